package io.rnic.verbs.cm;

import java.nio.ByteBuffer;

/**
 * The CM messages that carry two communication IDs and little else (IBA 12.6): RTU (0x0014,
 * 224 bytes of private data), DREQ (0x0015: the remote QPN, then 220), DREP (0x0016, 224),
 * MRA (0x0011: the message MRAed and a service timeout, then 222) and REJ (0x0012: the message
 * rejected, the reason and up to 72 bytes of additional information, then 148).
 *
 * @param attributeId   which message
 * @param localCommId   the sender's communication ID
 * @param remoteCommId  the receiver's communication ID (0 when a REJ answers a REQ it never took)
 * @param value         DREQ: the remote QPN; MRA: the message MRAed (0 REQ, 1 REP, 2 LAP); REJ:
 *                      the message rejected (0 REQ, 1 REP, 2 other)
 * @param value2        MRA: the service timeout; REJ: the reason; otherwise 0
 * @param info          REJ's additional rejection information (ARI), else empty
 * @param privateData   the private data
 */
record CmReply(int attributeId, int localCommId, int remoteCommId, int value, int value2, byte[] info,
               byte[] privateData) {
    static final byte[] NONE = new byte[0];

    /** The private data size the message carries. */
    static int privateDataSize(int attributeId) {
        return switch (attributeId) {
            case Mad.RTU, Mad.DREP -> 224;
            case Mad.DREQ -> 220;
            case Mad.MRA -> 222;
            case Mad.REJ -> 148;
            default -> throw new IllegalArgumentException("not a two-ID CM message: " + Mad.attributeName(attributeId));
        };
    }

    private static int privateDataOffset(int attributeId) {
        return Mad.DATA - privateDataSize(attributeId);
    }

    static CmReply rtu(int local, int remote, byte[] pd) {
        return new CmReply(Mad.RTU, local, remote, 0, 0, NONE, pd);
    }

    static CmReply dreq(int local, int remote, int remoteQpn, byte[] pd) {
        return new CmReply(Mad.DREQ, local, remote, remoteQpn, 0, NONE, pd);
    }

    static CmReply drep(int local, int remote, byte[] pd) {
        return new CmReply(Mad.DREP, local, remote, 0, 0, NONE, pd);
    }

    static CmReply mra(int local, int remote, int messageMraed, int serviceTimeout) {
        return new CmReply(Mad.MRA, local, remote, messageMraed, serviceTimeout, NONE, NONE);
    }

    static CmReply rej(int local, int remote, int messageRejected, int reason, byte[] pd) {
        return new CmReply(Mad.REJ, local, remote, messageRejected, reason, NONE, pd);
    }

    void encode(ByteBuffer mad, long tid) {
        Mad.header(mad, tid, attributeId);
        Mad.put32(mad, 0, localCommId);
        Mad.put32(mad, 4, remoteCommId);
        switch (attributeId) {
            case Mad.DREQ -> Mad.put24and8(mad, 8, value, 0);
            case Mad.MRA -> {
                Mad.put8(mad, 8, value << 6);
                Mad.put8(mad, 9, value2 << 3);
            }
            case Mad.REJ -> {
                Mad.put8(mad, 8, value << 6);
                Mad.put8(mad, 9, info.length << 1);
                Mad.put16(mad, 10, value2);
                Mad.putBytes(mad, 12, info, 72);
            }
            default -> {
            }
        }
        Mad.putBytes(mad, privateDataOffset(attributeId), privateData, privateDataSize(attributeId));
    }

    static CmReply decode(ByteBuffer mad) {
        int id = Mad.attributeId(mad);
        int value = 0;
        int value2 = 0;
        byte[] info = NONE;
        switch (id) {
            case Mad.DREQ -> value = Mad.u24(mad, 8);
            case Mad.MRA -> {
                value = Mad.u8(mad, 8) >>> 6;
                value2 = Mad.u8(mad, 9) >>> 3;
            }
            case Mad.REJ -> {
                value = Mad.u8(mad, 8) >>> 6;
                value2 = Mad.u16(mad, 10);
                info = Mad.bytes(mad, 12, Math.min(72, Mad.u8(mad, 9) >>> 1));
            }
            default -> {
            }
        }
        return new CmReply(id, Mad.u32(mad, 0), Mad.u32(mad, 4), value, value2, info,
                Mad.bytes(mad, privateDataOffset(id), privateDataSize(id)));
    }
}
