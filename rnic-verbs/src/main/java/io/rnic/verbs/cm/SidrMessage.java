package io.rnic.verbs.cm;

import java.nio.ByteBuffer;

/**
 * Service ID resolution for UD (IBA 12.11): SIDR_REQ (0x0017: request ID, P_Key, service ID,
 * 216 bytes of private data) asks which QP serves a service; SIDR_REP (0x0018: request ID,
 * status, QPN, service ID, Q_Key, 72 bytes of additional information, 136 of private data)
 * answers.
 *
 * @param attributeId {@link Mad#SIDR_REQ} or {@link Mad#SIDR_REP}
 * @param requestId   the requester's ID, echoed in the reply
 * @param pkey        SIDR_REQ: the partition
 * @param serviceId   the service asked for
 * @param status      SIDR_REP: 0 valid, 1 service ID not supported, 2 rejected, 3 no QP, 4
 *                    redirect, 5 unsupported class version
 * @param qpn         SIDR_REP: the QP that serves it
 * @param qkey        SIDR_REP: that QP's Q_Key
 * @param privateData the private data
 */
record SidrMessage(int attributeId, int requestId, int pkey, long serviceId, int status, int qpn, int qkey,
                   byte[] privateData) {
    static final int REQ_PRIVATE_DATA = 216;
    static final int REP_PRIVATE_DATA = 136;
    static final int STATUS_VALID = 0;
    static final int STATUS_UNSUPPORTED = 1;
    static final int STATUS_REJECT = 2;

    static SidrMessage request(int requestId, int pkey, long serviceId, byte[] pd) {
        return new SidrMessage(Mad.SIDR_REQ, requestId, pkey, serviceId, 0, 0, 0, pd);
    }

    static SidrMessage reply(int requestId, long serviceId, int status, int qpn, int qkey, byte[] pd) {
        return new SidrMessage(Mad.SIDR_REP, requestId, 0, serviceId, status, qpn, qkey, pd);
    }

    void encode(ByteBuffer mad, long tid) {
        Mad.header(mad, tid, attributeId);
        Mad.put32(mad, 0, requestId);
        if (attributeId == Mad.SIDR_REQ) {
            Mad.put16(mad, 4, pkey);
            Mad.put64(mad, 8, serviceId);
            Mad.putBytes(mad, 16, privateData, REQ_PRIVATE_DATA);
        } else {
            Mad.put8(mad, 4, status);
            Mad.put24and8(mad, 8, qpn, 0);
            Mad.put64(mad, 12, serviceId);
            Mad.put32(mad, 20, qkey);
            Mad.putBytes(mad, 96, privateData, REP_PRIVATE_DATA);
        }
    }

    static SidrMessage decode(ByteBuffer mad) {
        int id = Mad.attributeId(mad);
        if (id == Mad.SIDR_REQ) {
            return new SidrMessage(id, Mad.u32(mad, 0), Mad.u16(mad, 4), Mad.u64(mad, 8), 0, 0, 0,
                    Mad.bytes(mad, 16, REQ_PRIVATE_DATA));
        }
        return new SidrMessage(id, Mad.u32(mad, 0), 0, Mad.u64(mad, 12), Mad.u8(mad, 4), Mad.u24(mad, 8),
                Mad.u32(mad, 20), Mad.bytes(mad, 96, REP_PRIVATE_DATA));
    }
}
