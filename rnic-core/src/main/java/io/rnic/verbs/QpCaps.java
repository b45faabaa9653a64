package io.rnic.verbs;

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
    /**
     * Checks the sizes.
     *
     * @param maxSendWr     send queue entries, at least 1
     * @param maxRecvWr     receive queue entries, at least 1
     * @param maxSendSge    scatter/gather entries per send WR, at least 1
     * @param maxRecvSge    scatter/gather entries per receive WR, at least 1
     * @param maxInlineData bytes a send WR may carry inline, at least 0
     * @throws IllegalArgumentException if a queue or SGE count is below 1, or the inline size negative
     */
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

    /**
     * The default sizes, used by the {@link QpInitAttributes} factories.
     *
     * @return 128 send and receive entries, 4 SGEs each, 256 bytes inline
     */
    public static QpCaps defaults() {
        return new QpCaps(128, 128, 4, 4, 256);
    }
}
