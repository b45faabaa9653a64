package io.rnic.verbs;

import io.rnic.core.memory.AccessFlags;
import io.rnic.core.qp.PathMtu;

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
 */
public record RcOptions(PathMtu mtu, int accessFlags, int timeout, int retryCnt, int rnrRetry, int minRnrTimer,
                        int maxRdAtomic, int maxDestRdAtomic, int pkeyIndex) {

    /** rdma-core's test defaults: timeout 14, retry 7, rnr_retry 7, min_rnr_timer 12; MTU 1024; all remote access. */
    public static RcOptions defaults() {
        return new RcOptions(PathMtu.MTU_1024,
                AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC,
                14, 7, 7, 12, 16, 16, 0);
    }

    public RcOptions withMtu(PathMtu m) {
        return new RcOptions(m, accessFlags, timeout, retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, pkeyIndex);
    }

    public RcOptions withAccess(int flags) {
        return new RcOptions(mtu, flags, timeout, retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, pkeyIndex);
    }

    public RcOptions withRetry(int timeoutExp, int retries, int rnrRetries) {
        return new RcOptions(mtu, accessFlags, timeoutExp, retries, rnrRetries, minRnrTimer, maxRdAtomic, maxDestRdAtomic, pkeyIndex);
    }

    public RcOptions withMinRnrTimer(int code) {
        return new RcOptions(mtu, accessFlags, timeout, retryCnt, rnrRetry, code, maxRdAtomic, maxDestRdAtomic, pkeyIndex);
    }

    public RcOptions withRdAtomic(int initiator, int responder) {
        return new RcOptions(mtu, accessFlags, timeout, retryCnt, rnrRetry, minRnrTimer, initiator, responder, pkeyIndex);
    }

    public RcOptions withPkeyIndex(int index) {
        return new RcOptions(mtu, accessFlags, timeout, retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, index);
    }
}
