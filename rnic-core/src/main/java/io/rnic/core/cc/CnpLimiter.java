package io.rnic.core.cc;

/**
 * DCQCN's notification point for one flow (one QP pair): decides which CE-marked arrivals produce
 * a CNP, at most one per interval N.
 *
 * <p>The rule is the one "ECN or Delay" (Zhu et al., CoNEXT 2016, §3) states for DCQCN: "if a
 * marked packet arrives for a flow, and no CNP has been sent for this flow in last τ
 * microseconds, a CNP is generated immediately". So the first marked packet after a quiet
 * interval is answered at once, and marks that arrive within N of the last CNP are absorbed. The
 * DCQCN authors' simulator (bobzhuyb/ns3-rdma, {@code QbbNetDevice::CheckandSendQCN}) implements
 * it differently: a per-flow timer every N sends a CNP at the end of any window in which a marked
 * packet arrived, which delays the notification by up to N; HPCC's simulator has no interval at
 * all (it flags every ACK of a marked packet). An interval of 0 gives HPCC's behaviour.
 *
 * <p>The default interval is 50 µs: the DCQCN paper's N (as "ECN or Delay"'s DCQCN fluid model
 * uses it, τ = 50 µs in {@code fluidmodel/dcqcn/dcqcn2.m} of github.com/jitupadhye-zz/rdma), and
 * ns3-rdma's {@code CNPInterval} attribute and {@code CNP_INTERVAL} config value.
 *
 * <p>Pure and allocation-free; time is passed in and must not go backwards. Marks that produce no
 * CNP are counted ({@link #suppressed()}).
 */
public final class CnpLimiter {
    /** N = 50 µs, the DCQCN paper's CNP interval. */
    public static final long DEFAULT_INTERVAL_NANOS = 50_000;

    private final long intervalNanos;
    private boolean sentAny;
    private long lastCnpAt;
    private long at = Long.MIN_VALUE;
    private long sent;
    private long suppressed;

    /**
     * A limiter allowing one CNP per {@code intervalNanos}.
     *
     * @param intervalNanos N, at least 0 (0: a CNP for every marked packet)
     */
    public CnpLimiter(long intervalNanos) {
        if (intervalNanos < 0) {
            throw new IllegalArgumentException("CNP interval " + intervalNanos + " ns must not be negative");
        }
        this.intervalNanos = intervalNanos;
    }

    /**
     * A CE-marked packet of this flow arrived.
     *
     * @param nowNanos when it arrived
     * @return true if a CNP should be sent now; false if one was sent less than N ago
     */
    public boolean onCeMarked(long nowNanos) {
        CcChecks.time(at, nowNanos);
        at = nowNanos;
        if (sentAny && nowNanos - lastCnpAt < intervalNanos) {
            suppressed++;
            return false;
        }
        sentAny = true;
        lastCnpAt = nowNanos;
        sent++;
        return true;
    }

    /** The interval N. @return N in nanoseconds */
    public long intervalNanos() {
        return intervalNanos;
    }

    /** CNPs allowed so far. @return the count */
    public long sent() {
        return sent;
    }

    /** CE-marked packets that produced no CNP because one had been sent less than N before. @return the count */
    public long suppressed() {
        return suppressed;
    }
}
