package io.rnic.verbs;

/**
 * The attributes {@link Connections#connect} uses to bring an RC QP from RESET to RTS.
 *
 * @param mtu             path MTU
 * @param accessFlags     remote operations the QP accepts
 * @param timeout         local ACK timeout exponent (4.096 µs × 2^timeout)
 * @param retryCnt        transport retries
 * @param rnrRetry        RNR retries (7 = forever)
 * @param minRnrTimer     RNR NAK timer code this side asks peers to wait
 * @param maxRdAtomic     outstanding READs/atomics this side may initiate
 * @param maxDestRdAtomic READs/atomics this side accepts outstanding
 * @param pkeyIndex       P_Key table index
 * @param lossRecovery    how an RC QP recovers from loss (seed 002); XRC and UC QPs ignore it
 * @param trafficClass    the address vector's traffic class: its DSCP (the upper six bits) marks
 *                        the QP's packets, 0 for the network's default; the device sets the ECN bits
 */
public record RcOptions(PathMtu mtu, int accessFlags, int timeout, int retryCnt, int rnrRetry, int minRnrTimer,
                        int maxRdAtomic, int maxDestRdAtomic, int pkeyIndex, LossRecovery lossRecovery, int trafficClass) {
    /**
     * Checks that the MTU and the loss recovery mode are given.
     *
     * @param mtu path MTU
     * @param accessFlags remote operations the QP accepts
     * @param timeout local ACK timeout exponent (4.096 µs × 2^timeout)
     * @param retryCnt transport retries
     * @param rnrRetry RNR retries (7 = forever)
     * @param minRnrTimer RNR NAK timer code this side asks peers to wait
     * @param maxRdAtomic outstanding READs/atomics this side may initiate
     * @param maxDestRdAtomic READs/atomics this side accepts outstanding
     * @param pkeyIndex P_Key table index
     * @param lossRecovery how an RC QP recovers from loss (seed 002); XRC and UC QPs ignore it
     * @param trafficClass the address vector's traffic class: its DSCP (the upper six bits) marks the QP's packets, 0 for the network's default; the device sets the ECN bits
     */
    public RcOptions {
        java.util.Objects.requireNonNull(mtu, "mtu");
        java.util.Objects.requireNonNull(lossRecovery, "lossRecovery");
    }

    /**
     * rdma-core's test defaults: timeout 14, retry 7, rnr_retry 7, min_rnr_timer 12; MTU 1024;
     * remote WRITE, READ and atomics allowed; 16 READs/atomics outstanding each way; P_Key
     * index 0.
     *
     * @return the defaults
     */
    public static RcOptions defaults() {
        return new RcOptions(PathMtu.MTU_1024,
                AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC,
                14, 7, 7, 12, 16, 16, 0, LossRecovery.GO_BACK_N, 0);
    }

    /**
     * Returns a copy with another path MTU; both sides should use the same.
     *
     * @param m the path MTU, at most the port's active MTU
     * @return the changed copy
     */
    public RcOptions withMtu(PathMtu m) {
        java.util.Objects.requireNonNull(m, "m");
        return new RcOptions(m, accessFlags, timeout, retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, pkeyIndex, lossRecovery, trafficClass);
    }

    /**
     * Returns a copy with other remote access rights for the QP (the regions' own rights apply
     * as well).
     *
     * @param flags {@link AccessFlags} {@code REMOTE_*} bits
     * @return the changed copy
     */
    public RcOptions withAccess(int flags) {
        return new RcOptions(mtu, flags, timeout, retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, pkeyIndex, lossRecovery, trafficClass);
    }

    /**
     * Returns a copy with other retransmission settings.
     *
     * @param timeoutExp the local ACK timeout exponent: 4.096 µs × 2^timeoutExp, 0 for none
     * @param retries    transport retries after a timeout or sequence error NAK, 0 to 7
     * @param rnrRetries retries after an RNR NAK, 0 to 7 (7 = forever)
     * @return the changed copy
     */
    public RcOptions withRetry(int timeoutExp, int retries, int rnrRetries) {
        return new RcOptions(mtu, accessFlags, timeoutExp, retries, rnrRetries, minRnrTimer, maxRdAtomic, maxDestRdAtomic, pkeyIndex, lossRecovery, trafficClass);
    }

    /**
     * Returns a copy with another RNR NAK timer, the wait this side asks a peer to observe before
     * retrying a message that found no receive WQE.
     *
     * @param code the IB timer code, 0 to 31 (12 is 0.64 ms)
     * @return the changed copy
     */
    public RcOptions withMinRnrTimer(int code) {
        return new RcOptions(mtu, accessFlags, timeout, retryCnt, rnrRetry, code, maxRdAtomic, maxDestRdAtomic, pkeyIndex, lossRecovery, trafficClass);
    }

    /**
     * Returns a copy with other limits on outstanding RDMA READs and atomics.
     *
     * @param initiator READs/atomics this side may have outstanding ({@code max_rd_atomic})
     * @param responder READs/atomics this side accepts outstanding ({@code max_dest_rd_atomic})
     * @return the changed copy
     */
    public RcOptions withRdAtomic(int initiator, int responder) {
        return new RcOptions(mtu, accessFlags, timeout, retryCnt, rnrRetry, minRnrTimer, initiator, responder, pkeyIndex, lossRecovery, trafficClass);
    }

    /**
     * Returns a copy using another entry of the device's P_Key table.
     *
     * @param index the P_Key index
     * @return the changed copy
     */
    public RcOptions withPkeyIndex(int index) {
        return new RcOptions(mtu, accessFlags, timeout, retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, index,
                lossRecovery, trafficClass);
    }

    /**
     * Returns a copy with another loss recovery mode (seed 002). {@link LossRecovery#SELECTIVE}
     * changes the packets: give both sides the same.
     *
     * @param mode the mode
     * @return the changed copy
     * @throws NullPointerException if {@code mode} is null
     */
    public RcOptions withLossRecovery(LossRecovery mode) {
        java.util.Objects.requireNonNull(mode, "loss recovery mode");
        return new RcOptions(mtu, accessFlags, timeout, retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic,
                pkeyIndex, mode, trafficClass);
    }

    /**
     * Returns a copy whose QPs send with traffic class {@code tc}: its DSCP (upper six bits)
     * selects the packets' class of service, and so their PFC priority on a fabric; the device
     * sets the two ECN bits itself. 0 leaves the DSCP to the network's default.
     *
     * @param tc the traffic class, 0..255
     * @return the changed copy
     * @throws IllegalArgumentException if {@code tc} is outside 0..255
     */
    public RcOptions withTrafficClass(int tc) {
        if ((tc & ~0xFF) != 0) {
            throw new IllegalArgumentException("traffic class " + tc + " is not a byte (0..255)");
        }
        return new RcOptions(mtu, accessFlags, timeout, retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic,
                pkeyIndex, lossRecovery, tc);
    }
}
