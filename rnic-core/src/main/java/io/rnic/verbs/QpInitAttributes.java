package io.rnic.verbs;

/**
 * What {@code ibv_create_qp} needs: type, completion queues, queue sizes, the shared receive
 * queue if any, and whether every send WR is signaled.
 *
 * @param type      the transport (RC, UC, UD or XRC_SEND)
 * @param sendCq    where send completions go
 * @param recvCq    where receive completions go (also those of receive WQEs taken from the SRQ);
 *                  {@code null} for XRC_SEND, which receives nothing
 * @param caps      queue sizes ({@code maxRecvWr}/{@code maxRecvSge} are unused with an SRQ)
 * @param signalAll {@code sq_sig_all}
 * @param endToEndCredits advertise receive credits in every AETH and honour the peer's
 *                  (reference §3.1); {@code false} keeps rxe's behaviour: always "invalid", ignore credits
 * @param srq       the shared receive queue the QP's messages take receive WQEs from, or
 *                  {@code null} for a receive queue of its own
 * @param congestionControl the congestion control scheme of this QP's requester, or {@code null}
 *                  for the device's ({@link DeviceConfig#congestionControl})
 */
public record QpInitAttributes(QpType type, CompletionQueue sendCq, CompletionQueue recvCq, QpCaps caps,
                               boolean signalAll, boolean endToEndCredits, SharedReceiveQueue srq,
                               CongestionControlScheme congestionControl) {
    /**
     * Checks that the type, both completion queues and the queue sizes are given.
     *
     * @param type      the transport (RC, UC, UD or XRC_SEND)
     * @param sendCq    where send completions go
     * @param recvCq    where receive completions go; {@code null} for XRC_SEND
     * @param caps      queue sizes
     * @param signalAll {@code sq_sig_all}
     * @param endToEndCredits advertise receive credits in every AETH and honour the peer's
     * @param srq       the shared receive queue, or {@code null} for a receive queue of its own
     * @param congestionControl the QP's congestion control scheme, or {@code null} for the device's
     * @throws IllegalArgumentException if {@code type}, {@code sendCq}, {@code recvCq} or
     *     {@code caps} is null
     */
    public QpInitAttributes {
        java.util.Objects.requireNonNull(type, "type");
        java.util.Objects.requireNonNull(sendCq, "sendCq");
        java.util.Objects.requireNonNull(caps, "caps");
        if (type != QpType.XRC_SEND) { // an XRC initiator receives nothing: it has no receive CQ
            java.util.Objects.requireNonNull(recvCq, "recvCq");
        }
        if (type == QpType.XRC_RECV) {
            throw new IllegalArgumentException("an XRC_RECV QP belongs to an XRC domain: XrcDomain.createTargetQp");
        }
        if (type == QpType.XRC_SEND && srq != null) {
            throw new IllegalArgumentException("an XRC_SEND QP has no receive side and takes no SRQ");
        }
    }

    /**
     * An XRC initiator QP ({@code IBV_QPT_XRC_SEND}): a send queue only, whose work requests each
     * name the remote XRC SRQ ({@link SendWorkRequest#xrc}); default queue sizes, only signaled
     * send WRs completing.
     *
     * @param sendCq where send completions go
     * @return the attributes
     * @throws NullPointerException if {@code sendCq} is null
     */
    public static QpInitAttributes xrcSend(CompletionQueue sendCq) {
        java.util.Objects.requireNonNull(sendCq, "sendCq");
        return new QpInitAttributes(QpType.XRC_SEND, sendCq, null, QpCaps.defaults(), false, false);
    }

    /**
     * A reliable datagram QP ({@link ProtectionDomain#createRdQp}) with default queue sizes,
     * only signaled send WRs completing, and no end-to-end credits (RD has none: 9.7.8.3.1).
     *
     * @param sendCq where send completions go
     * @param recvCq where receive completions go
     * @return the attributes
     * @throws NullPointerException if a CQ is null
     */
    public static QpInitAttributes rd(CompletionQueue sendCq, CompletionQueue recvCq) {
        java.util.Objects.requireNonNull(sendCq, "sendCq");
        java.util.Objects.requireNonNull(recvCq, "recvCq");
        return new QpInitAttributes(QpType.RD, sendCq, recvCq, QpCaps.defaults(), false, false);
    }


    /**
     * As the canonical constructor, with the device's congestion control.
     *
     * @param type      the transport (RC, UC, UD or XRC_SEND)
     * @param sendCq    where send completions go
     * @param recvCq    where receive completions go; {@code null} for XRC_SEND
     * @param caps      queue sizes
     * @param signalAll {@code sq_sig_all}
     * @param endToEndCredits advertise receive credits in every AETH and honour the peer's
     * @param srq       the shared receive queue, or {@code null} for a receive queue of its own
     * @throws IllegalArgumentException if {@code type}, {@code sendCq}, {@code recvCq} or
     *     {@code caps} is null
     */
    public QpInitAttributes(QpType type, CompletionQueue sendCq, CompletionQueue recvCq, QpCaps caps,
                            boolean signalAll, boolean endToEndCredits, SharedReceiveQueue srq) {
        this(type, sendCq, recvCq, caps, signalAll, endToEndCredits, srq, null);
    }

    /**
     * As the canonical constructor, without an SRQ: the QP has a receive queue of its own.
     *
     * @param type      the transport (RC, UC, UD or XRC_SEND)
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
        java.util.Objects.requireNonNull(sendCq, "sendCq");
        java.util.Objects.requireNonNull(recvCq, "recvCq");
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
        java.util.Objects.requireNonNull(sendCq, "sendCq");
        java.util.Objects.requireNonNull(recvCq, "recvCq");
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
        java.util.Objects.requireNonNull(sendCq, "sendCq");
        java.util.Objects.requireNonNull(recvCq, "recvCq");
        return new QpInitAttributes(QpType.UD, sendCq, recvCq, QpCaps.defaults(), false, true);
    }

    /**
     * The device's GSI QP (QP1, reference §11.6) with default queue sizes: a UD QP for
     * management datagrams. A device has at most one; the connection manager of rnic-verbs
     * creates it, so an application that uses that manager does not create its own.
     *
     * @param sendCq where send completions go
     * @param recvCq where receive completions go (may be {@code sendCq})
     * @return the attributes
     */
    public static QpInitAttributes gsi(CompletionQueue sendCq, CompletionQueue recvCq) {
        java.util.Objects.requireNonNull(sendCq, "sendCq");
        java.util.Objects.requireNonNull(recvCq, "recvCq");
        return new QpInitAttributes(QpType.GSI, sendCq, recvCq, QpCaps.defaults(), false, true);
    }

    /**
     * Returns a copy with other queue sizes.
     *
     * @param c send and receive queue depths, SGEs per WR and inline data size
     * @return the changed copy
     */
    public QpInitAttributes withCaps(QpCaps c) {
        java.util.Objects.requireNonNull(c, "c");
        return new QpInitAttributes(type, sendCq, recvCq, c, signalAll, endToEndCredits, srq, congestionControl);
    }

    /**
     * Returns a copy with {@code sq_sig_all} set or cleared.
     *
     * @param all true: every send WR produces a work completion; false: only those posted with
     *            {@code signaled(true)} (and failed ones)
     * @return the changed copy
     */
    public QpInitAttributes withSignalAll(boolean all) {
        return new QpInitAttributes(type, sendCq, recvCq, caps, all, endToEndCredits, srq, congestionControl);
    }

    /**
     * Returns a copy with or without end-to-end credit flow control.
     *
     * @param on true to advertise and honour receive credits; false for rxe's behaviour
     * @return the changed copy
     */
    public QpInitAttributes withEndToEndCredits(boolean on) {
        return new QpInitAttributes(type, sendCq, recvCq, caps, signalAll, on, srq, congestionControl);
    }

    /**
     * Returns a copy whose QP takes receive WQEs from {@code s} instead of a queue of its own
     * ({@code init_attr.srq}).
     *
     * @param s the shared receive queue, of the same device, or {@code null} for a queue of its own
     * @return the changed copy
     */
    public QpInitAttributes withSrq(SharedReceiveQueue s) {
        return new QpInitAttributes(type, sendCq, recvCq, caps, signalAll, endToEndCredits, s, congestionControl);
    }

    /**
     * Returns a copy whose QP runs congestion control {@code scheme} instead of the device's.
     *
     * @param scheme the scheme, or {@code null} for the device's
     * @return the changed copy
     */
    public QpInitAttributes withCongestionControl(CongestionControlScheme scheme) {
        return new QpInitAttributes(type, sendCq, recvCq, caps, signalAll, endToEndCredits, srq, scheme);
    }
}
