package io.rnic.verbs.cm;

/**
 * What an application asks of a connection ({@code struct rdma_conn_param}), for
 * {@link CmId#connect} and {@link CmId#accept}, and what a CONNECT_REQUEST or ESTABLISHED event
 * reports of the peer's.
 *
 * @param privateData        bytes for the peer (an active side's REQ carries 56, a REP 196, a
 *                           SIDR_REQ 180, a SIDR_REP 136), or empty
 * @param responderResources READ/atomic requests this side's QP answers at once (its
 *                           max_dest_rd_atomic)
 * @param initiatorDepth     READ/atomic requests this side's QP keeps outstanding (its
 *                           max_rd_atomic)
 * @param retryCount         transport retries (0–7)
 * @param rnrRetryCount      RNR retries (0–7, 7 is "forever")
 * @param srq                this side's QP uses an SRQ
 */
public record ConnParam(byte[] privateData, int responderResources, int initiatorDepth, int retryCount,
                        int rnrRetryCount, boolean srq) {
    /**
     * Checks the ranges and copies the private data.
     *
     * @param privateData        bytes for the peer, or {@code null} for none
     * @param responderResources READ/atomic requests this side answers at once, 0–255
     * @param initiatorDepth     READ/atomic requests this side keeps outstanding, 0–255
     * @param retryCount         transport retries, 0–7
     * @param rnrRetryCount      RNR retries, 0–7
     * @param srq                this side's QP uses an SRQ
     */
    public ConnParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (responderResources < 0 || responderResources > 255 || initiatorDepth < 0 || initiatorDepth > 255) {
            throw new IllegalArgumentException("responder resources " + responderResources + " and initiator depth "
                    + initiatorDepth + " must be 0..255");
        }
        if (retryCount < 0 || retryCount > 7 || rnrRetryCount < 0 || rnrRetryCount > 7) {
            throw new IllegalArgumentException("retry count " + retryCount + " and RNR retry count " + rnrRetryCount
                    + " must be 0..7");
        }
    }

    /**
     * rping's and ucmatose's choice: one READ each way, 7 retries of both kinds, no private data.
     *
     * @return the parameters
     */
    public static ConnParam defaults() {
        return new ConnParam(null, 1, 1, 7, 7, false);
    }

    /**
     * These parameters with {@code data} as private data.
     *
     * @param data the bytes for the peer
     * @return the new parameters
     */
    public ConnParam withPrivateData(byte[] data) {
        return new ConnParam(data, responderResources, initiatorDepth, retryCount, rnrRetryCount, srq);
    }

    /**
     * The private data.
     *
     * @return a copy of the bytes
     */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
