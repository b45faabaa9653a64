package io.rnic.verbs;

/**
 * What {@code ibv_create_qp} needs: type, completion queues, queue sizes, the shared receive
 * queue if any, and whether every send WR is signaled.
 *
 * @param type      the transport (RC, UC or UD)
 * @param sendCq    where send completions go
 * @param recvCq    where receive completions go (also those of receive WQEs taken from the SRQ)
 * @param caps      queue sizes ({@code maxRecvWr}/{@code maxRecvSge} are unused with an SRQ)
 * @param signalAll {@code sq_sig_all}
 * @param endToEndCredits advertise receive credits in every AETH and honour the peer's
 *                  (reference §3.1); {@code false} keeps rxe's behaviour: always "invalid", ignore credits
 * @param srq       the shared receive queue the QP's messages take receive WQEs from, or
 *                  {@code null} for a receive queue of its own
 */
public record QpInitAttributes(QpType type, CompletionQueue sendCq, CompletionQueue recvCq, QpCaps caps,
                               boolean signalAll, boolean endToEndCredits, SharedReceiveQueue srq) {
    /**
     * Checks that the type, both completion queues and the queue sizes are given.
     *
     * @param type      the transport (RC, UC or UD)
     * @param sendCq    where send completions go
     * @param recvCq    where receive completions go
     * @param caps      queue sizes
     * @param signalAll {@code sq_sig_all}
     * @param endToEndCredits advertise receive credits in every AETH and honour the peer's
     * @param srq       the shared receive queue, or {@code null} for a receive queue of its own
     * @throws IllegalArgumentException if {@code type}, {@code sendCq}, {@code recvCq} or
     *     {@code caps} is null
     */
    public QpInitAttributes {
        if (type == null || sendCq == null || recvCq == null || caps == null) {
            throw new IllegalArgumentException("type, sendCq, recvCq and caps are required");
        }
    }

    /**
     * As the canonical constructor, without an SRQ: the QP has a receive queue of its own.
     *
     * @param type      the transport (RC, UC or UD)
     * @param sendCq    where send completions go
     * @param recvCq    where receive completions go
     * @param caps      queue sizes
     * @param signalAll {@code sq_sig_all}: every send WR completes with a work completion
     * @param endToEndCredits advertise receive credits in every AETH and honour the peer's
     * @throws IllegalArgumentException if {@code type}, {@code sendCq}, {@code recvCq} or
     *     {@code caps} is null
     */
    public QpInitAttributes(QpType type, CompletionQueue sendCq, CompletionQueue recvCq, QpCaps caps,
                            boolean signalAll, boolean endToEndCredits) {
        this(type, sendCq, recvCq, caps, signalAll, endToEndCredits, null);
    }

    /**
     * An RC QP with default queue sizes ({@link QpCaps#defaults()}), only signaled send WRs
     * completing, and end-to-end credits.
     *
     * @param sendCq where send completions go
     * @param recvCq where receive completions go (may be {@code sendCq})
     * @return the attributes
     */
    public static QpInitAttributes rc(CompletionQueue sendCq, CompletionQueue recvCq) {
        return new QpInitAttributes(QpType.RC, sendCq, recvCq, QpCaps.defaults(), false, true);
    }

    /**
     * A UC QP with default queue sizes ({@link QpCaps#defaults()}) and only signaled send WRs
     * completing.
     *
     * @param sendCq where send completions go
     * @param recvCq where receive completions go (may be {@code sendCq})
     * @return the attributes
     */
    public static QpInitAttributes uc(CompletionQueue sendCq, CompletionQueue recvCq) {
        return new QpInitAttributes(QpType.UC, sendCq, recvCq, QpCaps.defaults(), false, true);
    }

    /**
     * A UD QP with default queue sizes ({@link QpCaps#defaults()}) and only signaled send WRs
     * completing.
     *
     * @param sendCq where send completions go
     * @param recvCq where receive completions go (may be {@code sendCq})
     * @return the attributes
     */
    public static QpInitAttributes ud(CompletionQueue sendCq, CompletionQueue recvCq) {
        return new QpInitAttributes(QpType.UD, sendCq, recvCq, QpCaps.defaults(), false, true);
    }

    /**
     * Returns a copy with other queue sizes.
     *
     * @param c send and receive queue depths, SGEs per WR and inline data size
     * @return the changed copy
     */
    public QpInitAttributes withCaps(QpCaps c) {
        return new QpInitAttributes(type, sendCq, recvCq, c, signalAll, endToEndCredits, srq);
    }

    /**
     * Returns a copy with {@code sq_sig_all} set or cleared.
     *
     * @param all true: every send WR produces a work completion; false: only those posted with
     *            {@code signaled(true)} (and failed ones)
     * @return the changed copy
     */
    public QpInitAttributes withSignalAll(boolean all) {
        return new QpInitAttributes(type, sendCq, recvCq, caps, all, endToEndCredits, srq);
    }

    /**
     * Returns a copy with or without end-to-end credit flow control.
     *
     * @param on true to advertise and honour receive credits; false for rxe's behaviour
     * @return the changed copy
     */
    public QpInitAttributes withEndToEndCredits(boolean on) {
        return new QpInitAttributes(type, sendCq, recvCq, caps, signalAll, on, srq);
    }

    /**
     * Returns a copy whose QP takes receive WQEs from {@code s} instead of a queue of its own
     * ({@code init_attr.srq}).
     *
     * @param s the shared receive queue, of the same device, or {@code null} for a queue of its own
     * @return the changed copy
     */
    public QpInitAttributes withSrq(SharedReceiveQueue s) {
        return new QpInitAttributes(type, sendCq, recvCq, caps, signalAll, endToEndCredits, s);
    }
}
