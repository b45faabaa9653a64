package io.rnic.core.cc;

import java.util.Objects;

/**
 * DCQCN as HPCC's simulator implements it after Mellanox's ConnectX NICs (the HPCC README: "slightly
 * different from the DCQCN paper version"). It differs from {@link Dcqcn} in structure, not only in
 * parameters. Followed: alibaba-edu/High-Precision-Congestion-Control @ 9f4be2a,
 * {@code simulation/src/point-to-point/model/rdma-hw.cc}, functions {@code cnp_received_mlx},
 * {@code UpdateAlphaMlx}, {@code CheckRateDecreaseMlx}, {@code RateIncEventTimerMlx},
 * {@code RateIncEventMlx}, {@code FastRecoveryMlx}, {@code ActiveIncreaseMlx},
 * {@code HyperIncreaseMlx}; initial values from {@code rdma-queue-pair.cc} (α = 1) and
 * {@code RdmaHw::AddQueuePair} (rate = target = line rate).
 * <ul>
 *   <li><b>A CNP only raises flags</b> (one for α, one for the rate); nothing changes at once,
 *       except on the <b>first CNP</b>: α ← 1, the rate and the target rate ← {@code RateOnFirstCnp}
 *       × rate, and two periodic clocks start, anchored at that instant t<sub>1</sub>: the α update
 *       at t<sub>1</sub> + j·{@code AlphaResumInterval}, and the rate-decrease check at
 *       t<sub>1</sub> + 1 ns + j·{@code RateDecreaseInterval} (the 1 ns keeps each check after an α
 *       update falling at the same microsecond). The first CNP does not raise the α flag.</li>
 *   <li><b>α update</b>, once per {@code AlphaResumInterval}: α ← (1 − g)·α + g if a CNP arrived in
 *       the interval, else α ← (1 − g)·α.</li>
 *   <li><b>Rate-decrease check</b>, once per {@code RateDecreaseInterval}; this is the only limit
 *       on how often the rate is cut (there is no CNP interval at the receiver in HPCC). If a CNP
 *       arrived since the last check: R<sub>T</sub> ← R<sub>C</sub> if {@code ClampTargetRate} or
 *       if an increase event has happened since the last cut (stage ≠ 0); R<sub>C</sub> ←
 *       max(R<sub>min</sub>, R<sub>C</sub>·(1 − α/2)); stage ← 0; the increase timer restarts.</li>
 *   <li><b>Increase timer</b> every {@code RPTimer} after a cut; there is no byte counter. By the
 *       stage s (increase events since the cut): s &lt; F fast recovery, R<sub>C</sub> ←
 *       (R<sub>C</sub> + R<sub>T</sub>)/2; s = F one additive step, R<sub>T</sub> ←
 *       min(L, R<sub>T</sub> + R<sub>AI</sub>), then the averaging; s &gt; F hyper steps,
 *       R<sub>T</sub> ← min(L, R<sub>T</sub> + R<sub>HAI</sub>) (flat, not times i), then the
 *       averaging; then s ← s + 1. So F = 5 gives five fast-recovery steps here and four in
 *       {@link Dcqcn}.</li>
 * </ul>
 * Where the NIC's events fall at the same nanosecond, HPCC's event order applies: an increase
 * event due at a decrease check's instant runs first (it was scheduled earlier, as
 * {@code RPTimer} &gt; {@code RateDecreaseInterval} in every configuration). HPCC keeps rates as
 * ns-3 {@code DataRate}, whole bits per second, so its halvings truncate; rates here are doubles.
 *
 * <h2>Laziness</h2>
 * No timer is ever scheduled (see {@link CongestionControl}). α is kept as an anchor value and
 * the grid index it was set at, and read as anchor·(1 − g)<sup>j − j<sub>anchor</sub></sup>; only
 * the first α update after a CNP moves the anchor. Only the first decrease check after a CNP can
 * do anything, so at most one is evaluated per call. Hyper steps are applied in closed form
 * ({@link IncreaseRun}); fast-recovery and additive steps number at most F + 1 per cut.
 */
public final class DcqcnMlx implements CongestionControl {
    private final DcqcnMlxParameters p;
    private final double lineRate;
    private final double keep;
    private final long f;
    private final State live;
    private final State probe;
    private final Pacer pacer = new Pacer();

    /**
     * A reaction point starting at the line rate.
     *
     * @param parameters the algorithm's parameters
     * @param lineRateBps the port's line rate in bit/s: the initial and the maximum rate
     */
    public DcqcnMlx(DcqcnMlxParameters parameters, long lineRateBps) {
        this.p = Objects.requireNonNull(parameters, "parameters");
        if (lineRateBps < parameters.minRateBps()) {
            throw new IllegalArgumentException("line rate " + lineRateBps + " bit/s is below DCQCN's MinRate "
                    + parameters.minRateBps() + " bit/s");
        }
        this.lineRate = lineRateBps;
        this.keep = 1 - parameters.g();
        this.f = parameters.fastRecoveryTimes();
        this.live = new State(lineRate);
        this.probe = new State(lineRate);
    }

    private static final class State {
        final IncreaseRun rate;
        boolean started;
        long firstCnpAt;
        double alphaAnchor = 1;
        long alphaAnchorIndex;
        long alphaApplied;
        boolean alphaCnpArrived;
        boolean decreaseCnpArrived;
        long stage;
        long nextIncreaseAt = Long.MAX_VALUE;
        long at = Long.MIN_VALUE;

        State(double lineRate) {
            rate = new IncreaseRun(lineRate, true);
        }

        void copyFrom(State o) {
            rate.copyFrom(o.rate);
            started = o.started;
            firstCnpAt = o.firstCnpAt;
            alphaAnchor = o.alphaAnchor;
            alphaAnchorIndex = o.alphaAnchorIndex;
            alphaApplied = o.alphaApplied;
            alphaCnpArrived = o.alphaCnpArrived;
            decreaseCnpArrived = o.decreaseCnpArrived;
            stage = o.stage;
            nextIncreaseAt = o.nextIncreaseAt;
            at = o.at;
        }
    }

    @Override
    public void onSend(long nowNanos, int bytes) {
        CcChecks.bytes(bytes);
        advance(live, nowNanos);
        pacer.sent(nowNanos, bytes, live.rate.rc());
    }

    @Override
    public void onAck(long nowNanos, long rttNanos) {
        CcChecks.rtt(rttNanos);
        advance(live, nowNanos);
    }

    @Override
    public void onCnp(long nowNanos) {
        advance(live, nowNanos);
        State s = live;
        s.alphaCnpArrived = true;
        s.decreaseCnpArrived = true;
        if (!s.started) {
            s.started = true;
            s.firstCnpAt = nowNanos;
            s.alphaAnchor = 1;
            s.alphaAnchorIndex = 0;
            s.alphaApplied = 0;
            s.alphaCnpArrived = false;
            double r = p.rateOnFirstCnp() * s.rate.rc();
            s.rate.anchor(r, r, 0);
        }
    }

    @Override
    public long earliestSend(long nowNanos, int bytes) {
        CcChecks.bytes(bytes);
        advance(live, nowNanos);
        long send = pacer.earliest(nowNanos, live.rate.rc());
        long change = nextRateChange(live);
        if (send < change) {
            return send;
        }
        // A cut or an increase falls due before the packet may leave: walk them on a copy.
        probe.copyFrom(live);
        for (;;) {
            advance(probe, change);
            send = pacer.earliest(change, probe.rate.rc());
            long after = nextRateChange(probe);
            if (send < after) {
                return send;
            }
            change = after;
        }
    }

    @Override
    public long windowBytes() {
        return Long.MAX_VALUE;
    }

    @Override
    public void advanceTo(long nowNanos) {
        advance(live, nowNanos);
    }

    @Override
    public double rateBitsPerSecond() {
        return live.rate.rc();
    }

    /** The current rate as of the latest call, in bit/s. @return R<sub>C</sub> */
    public double currentRate() {
        return live.rate.rc();
    }

    /** The target rate as of the latest call, in bit/s. @return R<sub>T</sub> */
    public double targetRate() {
        return live.rate.rt();
    }

    /** α as of the latest call (1 before the first CNP, as HPCC initialises it). @return α */
    public double alpha() {
        return alpha(live);
    }

    /** HPCC's {@code m_rpTimeStage}: increase events since the last cut. @return the stage */
    public long stage() {
        return live.stage;
    }

    /**
     * The kind of step the next increase event will take, or {@link IncreasePhase#NONE} before the
     * first CNP.
     *
     * @return the phase
     */
    public IncreasePhase phase() {
        if (!live.started) {
            return IncreasePhase.NONE;
        }
        return live.stage < f ? IncreasePhase.FAST_RECOVERY
                : live.stage == f ? IncreasePhase.ADDITIVE_INCREASE : IncreasePhase.HYPER_INCREASE;
    }

    /** The parameters. @return them */
    public DcqcnMlxParameters parameters() {
        return p;
    }

    @Override
    public String toString() {
        return "dcqcn-mlx(Rc=" + live.rate.rc() + ", Rt=" + live.rate.rt() + ", alpha=" + alpha(live)
                + ", stage=" + live.stage + ")";
    }

    private double alpha(State s) {
        return s.alphaAnchor * Math.pow(keep, (double) (s.alphaApplied - s.alphaAnchorIndex));
    }

    /** The first decrease check strictly after {@code t}. */
    private long checkAfter(State s, long t) {
        long interval = p.decreaseIntervalNanos();
        long j = Math.max(1, Math.floorDiv(t - s.firstCnpAt - 1, interval) + 1);
        return s.firstCnpAt + 1 + j * interval;
    }

    private long nextRateChange(State s) {
        long cut = s.decreaseCnpArrived ? checkAfter(s, s.at) : Long.MAX_VALUE;
        long increase = s.rate.rc() < lineRate ? s.nextIncreaseAt : Long.MAX_VALUE;
        return Math.min(cut, increase);
    }

    private void advance(State s, long to) {
        CcChecks.time(s.at, to);
        if (s.started && s.decreaseCnpArrived) {
            long check = checkAfter(s, s.at);
            if (check <= to) {
                increases(s, check);
                alphaTo(s, check);
                decrease(s, check);
            }
        }
        increases(s, to);
        if (s.started) {
            alphaTo(s, to);
        }
        s.at = to;
    }

    /** Apply the α updates due at or before {@code t}. */
    private void alphaTo(State s, long t) {
        long due = (t - s.firstCnpAt) / p.alphaIntervalNanos();
        if (due <= s.alphaApplied) {
            return;
        }
        if (s.alphaCnpArrived) {
            // The first update after a CNP: α ← (1 − g)·α + g; the rest are plain decays.
            s.alphaAnchor = keep * alpha(s) + p.g();
            s.alphaAnchorIndex = s.alphaApplied + 1;
            s.alphaCnpArrived = false;
        }
        s.alphaApplied = due;
    }

    private void decrease(State s, long t) {
        double rc = s.rate.rc();
        double rt = p.clampTargetRate() || s.stage != 0 ? rc : s.rate.rt();
        s.rate.anchor(Math.max(p.minRateBps(), rc * (1 - alpha(s) / 2)), rt, 0);
        s.stage = 0;
        s.decreaseCnpArrived = false;
        s.nextIncreaseAt = t + p.increaseTimerNanos();
    }

    /** Apply the increase events due at or before {@code to}. */
    private void increases(State s, long to) {
        long period = p.increaseTimerNanos();
        while (s.nextIncreaseAt <= to) {
            long t = s.nextIncreaseAt;
            if (s.stage < f) {
                s.rate.steps(0, 1);
                s.stage++;
                s.nextIncreaseAt = t + period;
            } else if (s.stage == f) {
                s.rate.steps(p.rateAiBps(), 1);
                s.stage++;
                s.nextIncreaseAt = t + period;
            } else {
                long k = (to - t) / period + 1;
                s.rate.steps(p.rateHaiBps(), k);
                s.stage += k;
                s.nextIncreaseAt = t + k * period;
            }
        }
    }
}
