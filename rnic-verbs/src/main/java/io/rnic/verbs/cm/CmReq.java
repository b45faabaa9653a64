package io.rnic.verbs.cm;

import java.nio.ByteBuffer;

/**
 * The connection request (REQ, attribute 0x0010; IBA 12.6.5), primary path only: what the
 * active side offers. Offsets are those of the 232-byte CM data area; a RoCEv2 path has
 * permissive LIDs (0xFFFF) and IP-based GIDs.
 *
 * @param localCommId            the sender's communication ID
 * @param serviceId              whom the request is for (rdma_cm: port space and port)
 * @param localCaGuid            the sender's node GUID
 * @param localQkey              the sender's Q_Key (0 for RC)
 * @param localQpn               the sender's QP number
 * @param responderResources     READ/atomic requests the sender's QP will answer at once
 * @param initiatorDepth         READ/atomic requests the sender's QP will have outstanding
 * @param remoteCmResponseTimeout how long the sender waits for an answer (4.096 µs × 2^n)
 * @param transportType          0 RC, 1 UC
 * @param startingPsn            the sender's first PSN
 * @param localCmResponseTimeout how long the sender takes to answer (4.096 µs × 2^n)
 * @param retryCount             transport retries the receiver's QP should make
 * @param pkey                   the partition
 * @param pathMtu                the path MTU code (1 = 256 … 5 = 4096)
 * @param rnrRetryCount          RNR retries the receiver's QP should make
 * @param maxCmRetries           how often the sender repeats this request
 * @param srq                    the sender's QP uses an SRQ
 * @param localGid               the sender's GID
 * @param remoteGid              the receiver's GID
 * @param flowLabel              the path's flow label
 * @param trafficClass           the path's traffic class
 * @param hopLimit               the path's hop limit
 * @param localAckTimeout        the path's ACK timeout exponent
 * @param privateData            92 bytes of private data (rdma_cm: its IP header, then the user's)
 */
record CmReq(int localCommId, long serviceId, long localCaGuid, int localQkey, int localQpn, int responderResources,
             int initiatorDepth, int remoteCmResponseTimeout, int transportType, int startingPsn,
             int localCmResponseTimeout, int retryCount, int pkey, int pathMtu, int rnrRetryCount, int maxCmRetries,
             boolean srq, byte[] localGid, byte[] remoteGid, int flowLabel, int trafficClass, int hopLimit,
             int localAckTimeout, byte[] privateData) {
    static final int PRIVATE_DATA = 92;

    /**
     * Why no connection can use this REQ, as an IBA REJ reason (table 112), or 0 if it can:
     * <ul>
     * <li>26, invalid path MTU: the code is not one of 1 (256) to 5 (4096);</li>
     * <li>9, invalid transport service type: neither RC (0) nor UC (1), or a QP number of 0 or
     *     1, the subnet management and general services QPs, which carry only management
     *     datagrams and cannot be one end of a connection;</li>
     * <li>12, primary remote port GID rejected: the GID the REQ is addressed to is not
     *     {@code receiverGid}, or the sender's is not {@code senderGid}, the address it came
     *     from (zero GIDs included). The Linux CM refuses a path it cannot resolve the same way.</li>
     * </ul>
     *
     * @param receiverGid this port's GID
     * @param senderGid   the GID of the address the REQ came from
     */
    int invalidReason(byte[] receiverGid, byte[] senderGid) {
        if (pathMtu < 1 || pathMtu > 5) {
            return CmId.REJ_INVALID_MTU;
        }
        if (transportType > 1 || localQpn <= 1) {
            return CmId.REJ_INVALID_TRANSPORT_TYPE;
        }
        if (!java.util.Arrays.equals(remoteGid, receiverGid) || !java.util.Arrays.equals(localGid, senderGid)) {
            return CmId.REJ_INVALID_GID;
        }
        return 0;
    }

    void encode(ByteBuffer mad, long tid) {
        Mad.header(mad, tid, Mad.REQ);
        Mad.put32(mad, 0, localCommId);
        Mad.put64(mad, 8, serviceId);
        Mad.put64(mad, 16, localCaGuid);
        Mad.put32(mad, 28, localQkey);
        Mad.put24and8(mad, 32, localQpn, responderResources);
        Mad.put24and8(mad, 36, 0, initiatorDepth);
        Mad.put24and8(mad, 40, 0, remoteCmResponseTimeout << 3 | transportType << 1);
        Mad.put24and8(mad, 44, startingPsn, localCmResponseTimeout << 3 | retryCount);
        Mad.put16(mad, 48, pkey);
        Mad.put8(mad, 50, pathMtu << 4 | rnrRetryCount);
        Mad.put8(mad, 51, maxCmRetries << 4 | (srq ? 8 : 0));
        Mad.put16(mad, 52, 0xFFFF);
        Mad.put16(mad, 54, 0xFFFF);
        Mad.putBytes(mad, 56, localGid, 16);
        Mad.putBytes(mad, 72, remoteGid, 16);
        Mad.put32(mad, 88, flowLabel << 12);
        Mad.put8(mad, 92, trafficClass);
        Mad.put8(mad, 93, hopLimit);
        Mad.put8(mad, 95, localAckTimeout << 3);
        Mad.putBytes(mad, 140, privateData, PRIVATE_DATA);
    }

    static CmReq decode(ByteBuffer mad) {
        int b43 = Mad.u8(mad, 43);
        int b47 = Mad.u8(mad, 47);
        int b50 = Mad.u8(mad, 50);
        int b51 = Mad.u8(mad, 51);
        return new CmReq(Mad.u32(mad, 0), Mad.u64(mad, 8), Mad.u64(mad, 16), Mad.u32(mad, 28), Mad.u24(mad, 32),
                Mad.u8(mad, 35), Mad.u8(mad, 39), b43 >>> 3, b43 >>> 1 & 3, Mad.u24(mad, 44), b47 >>> 3, b47 & 7,
                Mad.u16(mad, 48), b50 >>> 4, b50 & 7, b51 >>> 4, (b51 & 8) != 0, Mad.bytes(mad, 56, 16),
                Mad.bytes(mad, 72, 16), Mad.u32(mad, 88) >>> 12, Mad.u8(mad, 92), Mad.u8(mad, 93),
                Mad.u8(mad, 95) >>> 3, Mad.bytes(mad, 140, PRIVATE_DATA));
    }
}
