package io.rnic.core.transport;

/**
 * Queue sizes of a QP ({@code struct ibv_qp_cap}).
 *
 * @param maxSendWr     send queue entries
 * @param maxRecvWr     receive queue entries
 * @param maxSendSge    scatter/gather entries per send WR
 * @param maxRecvSge    scatter/gather entries per receive WR
 * @param maxInlineData bytes a send WR may carry inline
 */
public record QpCaps(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    public QpCaps {
        if (maxSendWr < 1 || maxRecvWr < 1) {
            throw new IllegalArgumentException("max_send_wr and max_recv_wr must be at least 1, got "
                    + maxSendWr + " and " + maxRecvWr);
        }
        if (maxSendSge < 1 || maxRecvSge < 1) {
            throw new IllegalArgumentException("max_send_sge and max_recv_sge must be at least 1, got "
                    + maxSendSge + " and " + maxRecvSge);
        }
        if (maxInlineData < 0) {
            throw new IllegalArgumentException("max_inline_data " + maxInlineData + " is negative");
        }
    }

    /** 128 send and receive entries, 4 SGEs each, 256 bytes inline. */
    public static QpCaps defaults() {
        return new QpCaps(128, 128, 4, 4, 256);
    }
}
