package io.rnic.verbs.cm;

/**
 * A connection-manager event ({@code struct rdma_cm_event}). There is nothing to acknowledge:
 * an event holds no resources.
 *
 * @param type     what happened
 * @param id       the ID it happened to (for CONNECT_REQUEST, the new ID of the connection)
 * @param listenId for CONNECT_REQUEST, the listening ID the request came to; else {@code null}
 * @param status   0, a REJ reason for REJECTED, or a negative errno (-110 ETIMEDOUT)
 * @param param    for CONNECT_REQUEST and ESTABLISHED on a connected ID, the peer's offer (its
 *                 private data and depths, from this side's point of view); else {@code null}
 * @param ud       for ESTABLISHED on a UD ID, the peer's QP; else {@code null}
 */
public record CmEvent(CmEventType type, CmId id, CmId listenId, int status, ConnParam param, UdParam ud) {
    /** ETIMEDOUT, as librdmacm reports a peer that never answered. */
    public static final int ETIMEDOUT = -110;

    /**
     * The private data the peer sent with this event, or an empty array.
     *
     * @return a copy of the bytes
     */
    public byte[] privateData() {
        if (param != null) {
            return param.privateData();
        }
        return ud != null && ud.privateData() != null ? ud.privateData().clone() : new byte[0];
    }

    /**
     * The status in words: a REJECTED event's reason by name (REJ 8 is "invalid service ID"), an
     * errno by its name, or "" for 0.
     *
     * @return the status, described
     */
    public String statusText() {
        if (status == 0) {
            return "";
        }
        if (type == CmEventType.REJECTED && status > 0) {
            return "REJ " + status + " (" + CmRejectReason.name(status) + ")";
        }
        return switch (status) {
            case ETIMEDOUT -> "ETIMEDOUT (-110)";
            case -22 -> "EINVAL (-22)";
            case -101 -> "ENETUNREACH (-101)";
            case -111 -> "ECONNREFUSED (-111)";
            default -> "status " + status;
        };
    }

    @Override
    public String toString() {
        return type + (status != 0 ? " " + statusText() : "") + " on " + id;
    }
}
