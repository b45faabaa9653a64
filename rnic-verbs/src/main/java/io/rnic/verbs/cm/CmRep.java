package io.rnic.verbs.cm;

import java.nio.ByteBuffer;

/**
 * The connection reply (REP, attribute 0x0013; IBA 12.6.8): what the passive side accepts.
 *
 * @param localCommId        the sender's communication ID
 * @param remoteCommId       the REQ's sender's communication ID
 * @param localQkey          the sender's Q_Key (0 for RC)
 * @param localQpn           the sender's QP number
 * @param startingPsn        the sender's first PSN
 * @param responderResources READ/atomic requests the sender's QP answers at once
 * @param initiatorDepth     READ/atomic requests the sender's QP has outstanding
 * @param targetAckDelay     the sender's ACK turnaround (4.096 µs × 2^n)
 * @param rnrRetryCount      RNR retries the active side's QP should make
 * @param srq                the sender's QP uses an SRQ
 * @param localCaGuid        the sender's node GUID
 * @param privateData        196 bytes of private data
 */
record CmRep(int localCommId, int remoteCommId, int localQkey, int localQpn, int startingPsn, int responderResources,
             int initiatorDepth, int targetAckDelay, int rnrRetryCount, boolean srq, long localCaGuid,
             byte[] privateData) {
    static final int PRIVATE_DATA = 196;

    void encode(ByteBuffer mad, long tid) {
        Mad.header(mad, tid, Mad.REP);
        Mad.put32(mad, 0, localCommId);
        Mad.put32(mad, 4, remoteCommId);
        Mad.put32(mad, 8, localQkey);
        Mad.put24and8(mad, 12, localQpn, 0);
        Mad.put24and8(mad, 20, startingPsn, 0);
        Mad.put8(mad, 24, responderResources);
        Mad.put8(mad, 25, initiatorDepth);
        Mad.put8(mad, 26, targetAckDelay << 3);
        Mad.put8(mad, 27, rnrRetryCount << 5 | (srq ? 0x10 : 0));
        Mad.put64(mad, 28, localCaGuid);
        Mad.putBytes(mad, 36, privateData, PRIVATE_DATA);
    }

    static CmRep decode(ByteBuffer mad) {
        int b27 = Mad.u8(mad, 27);
        return new CmRep(Mad.u32(mad, 0), Mad.u32(mad, 4), Mad.u32(mad, 8), Mad.u24(mad, 12), Mad.u24(mad, 20),
                Mad.u8(mad, 24), Mad.u8(mad, 25), Mad.u8(mad, 26) >>> 3, b27 >>> 5, (b27 & 0x10) != 0,
                Mad.u64(mad, 28), Mad.bytes(mad, 36, PRIVATE_DATA));
    }
}
