package io.rnic.core.cc;

import java.util.Objects;

/**
 * TIMELY, RTT-gradient rate control (Mittal et al., "TIMELY: RTT-based Congestion Control for the
 * Datacenter", SIGCOMM 2015), driven by the RTT samples {@link #onAck} reports; and, as an option,
 * "patched TIMELY" (Zhu et al., "ECN or Delay: Lessons Learnt from Analysis of DCQCN and TIMELY",
 * CoNEXT 2016, §4.3). Starts at the line rate, as HPCC's simulator does (the TIMELY paper starts
 * a new flow at C/(N + 1) for N active flows; that is the requester's business).
 *
 * <h2>The update, per RTT sample</h2>
 * Followed: HPCC's {@code RdmaHw::UpdateRateTimely} (alibaba-edu/High-Precision-Congestion-Control
 * @ 9f4be2a, {@code simulation/src/point-to-point/model/rdma-hw.cc}), which is the TIMELY
 * paper's Algorithm 1 as "ECN or Delay" reprints it (its {@code conext2016/timely-protocol.tex},
 * github.com/jitupadhye-zz/rdma) plus hyper-active increase:
 * <pre>
 *   newRttDiff = rtt − prevRtt;   prevRtt = rtt
 *   rttDiff    = (1 − α)·rttDiff + α·newRttDiff
 *   gradient   = rttDiff / minRTT
 *   rtt &lt; T_low      : rate ← rate + δ                      (increase)
 *   rtt &gt; T_high     : rate ← rate·(1 − β·(1 − T_high/rtt))  (decrease)
 *   gradient ≤ 0     : rate ← rate + δ                      (increase)
 *   otherwise        : rate ← rate·max(0, 1 − β·gradient)   (decrease)
 * </pre>
 * An increase adds the hyper step instead of δ once {@code hyperAfter} (5) increases in a row have
 * happened, so the 6th consecutive increase is the first hyper one; any decrease restarts the
 * count. The rate stays within [minimum rate, line rate]. As in HPCC, the first sample only
 * records the RTT, and with {@link TimelyParameters#oncePerRtt()} a sample updates the rate only
 * if the packet it measures left at or after the previous update (now − rtt ≥ the previous
 * update's time), which is HPCC's once-per-RTT rule ({@code ack_seq > m_lastUpdateSeq}, that
 * sequence being {@code snd_nxt} at the update) stated in time. Samples that do not update leave
 * everything as it was, including the previous RTT.
 *
 * <h2>Patched TIMELY</h2>
 * "ECN or Delay" §4.3, Algorithm 2 (read in the paper's LaTeX source,
 * {@code conext2016/timely-fixed.tex}): the same EWMA and the same T<sub>low</sub>/T<sub>high</sub>
 * branches; between them
 * <pre>
 *   w      = 0 if g ≤ −1/4;  2g + 1/2 if −1/4 &lt; g &lt; 1/4;  1 if g ≥ 1/4
 *   error  = (rtt − RTT_ref)/RTT_ref
 *   rate  ← δ·(1 − w) + rate·(1 − β·w·error)
 * </pre>
 * with β = 0.008. What is not in Algorithm 2 and so not done here: hyper increase (the paper's
 * fluid model leaves it out too), a value for RTT<sub>ref</sub> (taken as T<sub>low</sub>, from
 * the model's reference queue q′ = C·T<sub>low</sub>, see {@link TimelyParameters#patched(long)}),
 * and rate bounds (the [minimum, line] bounds here are HPCC's, applied to both variants).
 *
 * <p>TIMELY has no timers, so nothing here is lazy; {@link #earliestSend} is plain pacing.
 */
public final class Timely implements CongestionControl {
    private final TimelyParameters p;
    private final double lineRate;
    private final Pacer pacer = new Pacer();

    private double rate;
    private double rttDiff;
    private long prevRtt;
    private boolean sampled;
    private long lastUpdateAt;
    private int increases;
    private long at = Long.MIN_VALUE;

    /**
     * A TIMELY sender starting at the line rate.
     *
     * @param parameters the algorithm's parameters
     * @param lineRateBps the port's line rate in bit/s: the initial and the maximum rate
     */
    public Timely(TimelyParameters parameters, long lineRateBps) {
        this.p = Objects.requireNonNull(parameters, "parameters");
        if (lineRateBps < parameters.minRateBps()) {
            throw new IllegalArgumentException("line rate " + lineRateBps + " bit/s is below TIMELY's minimum rate "
                    + parameters.minRateBps() + " bit/s");
        }
        this.lineRate = lineRateBps;
        this.rate = lineRate;
    }

    @Override
    public void onSend(long nowNanos, int bytes) {
        CcChecks.bytes(bytes);
        advanceTo(nowNanos);
        pacer.sent(nowNanos, bytes, rate);
    }

    @Override
    public void onAck(long nowNanos, long rttNanos) {
        CcChecks.rtt(rttNanos);
        advanceTo(nowNanos);
        if (rttNanos < 0) {
            return;
        }
        if (!sampled) {
            sampled = true;
            prevRtt = rttNanos;
            lastUpdateAt = nowNanos;
            return;
        }
        if (p.oncePerRtt() && nowNanos - rttNanos < lastUpdateAt) {
            return;
        }
        double diff = (1 - p.ewmaAlpha()) * rttDiff + p.ewmaAlpha() * (double) (rttNanos - prevRtt);
        double gradient = diff / p.minRttNanos();
        rttDiff = diff;
        prevRtt = rttNanos;
        lastUpdateAt = nowNanos;
        if (rttNanos < p.tLowNanos()) {
            increase(p.patched() ? p.additiveIncreaseBps() : step());
        } else if (rttNanos > p.tHighNanos()) {
            decrease(1 - p.beta() * (1 - (double) p.tHighNanos() / rttNanos));
        } else if (p.patched()) {
            double w = weight(gradient);
            double error = (double) (rttNanos - p.rttRefNanos()) / p.rttRefNanos();
            rate = bound(p.additiveIncreaseBps() * (1 - w) + rate * (1 - p.beta() * w * error));
        } else if (gradient <= 0) {
            increase(step());
        } else {
            decrease(Math.max(0, 1 - p.beta() * gradient));
        }
    }

    /** A CNP means nothing to TIMELY: only the clock moves. */
    @Override
    public void onCnp(long nowNanos) {
        advanceTo(nowNanos);
    }

    @Override
    public long earliestSend(long nowNanos, int bytes) {
        CcChecks.bytes(bytes);
        advanceTo(nowNanos);
        return pacer.earliest(nowNanos, rate);
    }

    @Override
    public long windowBytes() {
        return Long.MAX_VALUE;
    }

    @Override
    public void advanceTo(long nowNanos) {
        CcChecks.time(at, nowNanos);
        at = nowNanos;
    }

    @Override
    public double rateBitsPerSecond() {
        return rate;
    }

    /** The EWMA of RTT differences, in nanoseconds. @return rttDiff */
    public double rttDiffNanos() {
        return rttDiff;
    }

    /** Consecutive increases so far (HPCC's {@code m_incStage}). @return the count */
    public int consecutiveIncreases() {
        return increases;
    }

    /** The parameters. @return them */
    public TimelyParameters parameters() {
        return p;
    }

    /**
     * Patched TIMELY's weight w(g) ("ECN or Delay", §4.3): how much of the update is decrease.
     *
     * @param gradient the normalised RTT gradient
     * @return w in [0, 1]
     */
    public static double weight(double gradient) {
        if (gradient <= -0.25) {
            return 0;
        }
        if (gradient >= 0.25) {
            return 1;
        }
        return 2 * gradient + 0.5;
    }

    @Override
    public String toString() {
        return (p.patched() ? "timely-patched(rate=" : "timely(rate=") + rate + ", rttDiff=" + rttDiff + ")";
    }

    private double step() {
        return increases < p.hyperAfter() ? p.additiveIncreaseBps() : p.hyperIncreaseBps();
    }

    private void increase(double by) {
        rate = Math.min(lineRate, rate + by);
        if (increases < Integer.MAX_VALUE) {
            increases++;
        }
    }

    private void decrease(double factor) {
        rate = Math.max(p.minRateBps(), rate * factor);
        increases = 0;
    }

    private double bound(double r) {
        return Math.min(lineRate, Math.max(p.minRateBps(), r));
    }
}
