package io.rnic.core.cc;

import java.util.Objects;

/**
 * DCQCN's reaction point as the paper describes it (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015): one instance per QP, starting at the line rate.
 *
 * <h2>The rules, and the code they follow</h2>
 * The paper gives the cut and the α rules as equations and says the increase follows QCN. For
 * the increase (and everything the equations leave open) this class follows the paper's first
 * author's simulator, bobzhuyb/ns3-rdma, {@code src/point-to-point/model/qbb-net-device.cc}: the
 * functions {@code rpr_cnm_received}, {@code rpr_timer_wrapper}, {@code rpr_fast_time},
 * {@code rpr_active_time}, {@code rpr_hyper_time}, {@code rpr_fast_byte},
 * {@code rpr_active_byte}, {@code rpr_hyper_byte}, {@code rpr_active_select},
 * {@code rpr_hyper_increase}, {@code AdjustRates} and {@code ResumeAlpha}, with
 * {@code CLAMP_TARGET_RATE 1} as its shipped config sets it. The IEEE 802.1Qau (QCN) clause itself
 * was not available to check.
 * <ul>
 *   <li><b>On a CNP:</b> R<sub>T</sub> ← R<sub>C</sub>; R<sub>C</sub> ← max(R<sub>min</sub>,
 *       R<sub>C</sub>·(1 − α/2)); α ← (1 − g)·α + g, in the paper's order: the cut uses the α
 *       held before this CNP. (ns3-rdma updates α first and cuts with the new α; HPCC issue #52
 *       notes the same difference in HPCC's simulator. The issue is open.) Both increase
 *       counters restart at 0, the byte counter at B, the increase timer at T from now, and the
 *       α timer at K from now.</li>
 *   <li><b>α timer:</b> each K after the last CNP without another, α ← (1 − g)·α.</li>
 *   <li><b>Increase events:</b> after the first CNP, a timer (period T) and a byte counter (every
 *       B bytes sent: the packet that takes the count below zero fires it) each count events.
 *       An event first counts itself, then:
 *       <ul>
 *         <li>fast recovery while both counts are below F: R<sub>C</sub> ← (R<sub>T</sub> + R<sub>C</sub>)/2;
 *             so with F = 5 a counter's events 1–4 are fast recovery and its 5th already increases
 *             the target, as in {@code rpr_fast_time};</li>
 *         <li>additive increase once one count has reached F: R<sub>T</sub> ← R<sub>T</sub> + R<sub>AI</sub>,
 *             then R<sub>C</sub> ← (R<sub>T</sub> + R<sub>C</sub>)/2;</li>
 *         <li>hyper increase once both have: R<sub>T</sub> ← R<sub>T</sub> + i·R<sub>HAI</sub> with
 *             i = min(counts) − F + 1, then the same averaging; in this phase the timer runs at T/2
 *             and the byte counter at B/2 (from the event after the one that entered it).</li>
 *       </ul>
 *       As in ns3-rdma, the move from additive to hyper increase is decided only by a timer event
 *       or by a fast-recovery event ({@code rpr_active_select}); a byte event in additive
 *       increase stays additive ({@code rpr_active_byte}).</li>
 *   <li><b>Bounds:</b> R<sub>C</sub> ≤ the line rate and R<sub>C</sub> ≥ R<sub>min</sub> after a
 *       cut. R<sub>T</sub> is not bounded, as in ns3-rdma: it is only ever read through the
 *       averaging, whose result is bounded, and the next CNP resets it to R<sub>C</sub>.</li>
 * </ul>
 * Left out of ns3-rdma's {@code AdjustRates}: QCN's "if R<sub>T</sub> &gt; 10·R<sub>C</sub> at a
 * counter's first event, R<sub>T</sub> ← R<sub>T</sub>/8". With R<sub>T</sub> ← R<sub>C</sub> on
 * every CNP, R<sub>T</sub> ≤ 2·R<sub>C</sub> right after a cut, so it cannot fire at the first
 * event after a cut; it could only fire at a late first byte event of a QP that stayed idle long
 * enough for R<sub>T</sub> to outgrow ten times the line rate, where it changes nothing observable.
 *
 * <h2>Laziness</h2>
 * No timer is ever scheduled (see {@link CongestionControl}). α is computed when read, as
 * α<sub>CNP</sub>·(1 − g)<sup>⌊(t − t<sub>CNP</sub>)/K⌋</sup>. Timer increase events due since
 * the last call are applied in order; runs of identical steps (additive increase while the byte
 * count is below F, hyper increase at a fixed i, or any step once R<sub>C</sub> sits at the line
 * rate) are applied in closed form ({@link IncreaseRun}), so a call after any idle stretch does a
 * bounded amount of work: at most about 2F single events plus the hyper steps before the rate
 * reaches the line rate.
 */
public final class Dcqcn implements CongestionControl {
    private final DcqcnParameters p;
    private final double lineRate;
    private final double keep;
    private final long timer;
    private final long halfTimer;
    private final int f;
    private final State live;
    private final State probe;
    private final Pacer pacer = new Pacer();

    /**
     * A reaction point starting at the line rate.
     *
     * @param parameters the algorithm's parameters
     * @param lineRateBps the port's line rate in bit/s: the initial and the maximum rate
     */
    public Dcqcn(DcqcnParameters parameters, long lineRateBps) {
        this.p = Objects.requireNonNull(parameters, "parameters");
        if (lineRateBps < parameters.minRateBps()) {
            throw new IllegalArgumentException("line rate " + lineRateBps + " bit/s is below DCQCN's minimum rate "
                    + parameters.minRateBps() + " bit/s");
        }
        this.lineRate = lineRateBps;
        this.keep = 1 - parameters.g();
        this.timer = parameters.increaseTimerNanos();
        this.halfTimer = timer / 2;
        this.f = parameters.fastRecoverySteps();
        this.live = new State(lineRate, parameters.initialAlpha());
        this.probe = new State(lineRate, parameters.initialAlpha());
    }

    /** Everything that changes, so that {@link #earliestSend} can look ahead on a copy. */
    private static final class State {
        final IncreaseRun rate;
        boolean cnpSeen;
        double alphaAtCnp;
        long lastCnpAt;
        IncreasePhase phase = IncreasePhase.NONE;
        long timeEvents;
        long byteEvents;
        long nextTimerAt = Long.MAX_VALUE;
        long bytesLeft;
        long at = Long.MIN_VALUE;

        State(double lineRate, double initialAlpha) {
            rate = new IncreaseRun(lineRate, false);
            alphaAtCnp = initialAlpha;
        }

        void copyFrom(State o) {
            rate.copyFrom(o.rate);
            cnpSeen = o.cnpSeen;
            alphaAtCnp = o.alphaAtCnp;
            lastCnpAt = o.lastCnpAt;
            phase = o.phase;
            timeEvents = o.timeEvents;
            byteEvents = o.byteEvents;
            nextTimerAt = o.nextTimerAt;
            bytesLeft = o.bytesLeft;
            at = o.at;
        }
    }

    @Override
    public void onSend(long nowNanos, int bytes) {
        CcChecks.bytes(bytes);
        advance(live, nowNanos);
        pacer.sent(nowNanos, bytes, live.rate.rc());
        State s = live;
        if (s.phase == IncreasePhase.NONE) {
            return;
        }
        s.bytesLeft -= bytes;
        if (s.bytesLeft >= 0) {
            return;
        }
        s.byteEvents++;
        switch (s.phase) {
            case FAST_RECOVERY -> {
                s.bytesLeft = p.byteCounterBytes();
                if (s.byteEvents < f) {
                    s.rate.steps(0, 1);
                } else {
                    select(s);
                }
            }
            case ADDITIVE_INCREASE -> {
                s.bytesLeft = p.byteCounterBytes();
                additive(s);
            }
            case HYPER_INCREASE -> {
                s.bytesLeft = p.byteCounterBytes() / 2;
                hyper(s);
            }
            default -> throw new IllegalStateException("byte event in phase " + s.phase);
        }
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
        double alpha = alpha(s);
        double rc = s.rate.rc();
        s.rate.anchor(Math.max(p.minRateBps(), rc * (1 - alpha / 2)), rc, 0);
        s.alphaAtCnp = keep * alpha + p.g();
        s.lastCnpAt = nowNanos;
        s.cnpSeen = true;
        s.phase = IncreasePhase.FAST_RECOVERY;
        s.timeEvents = 0;
        s.byteEvents = 0;
        s.nextTimerAt = nowNanos + timer;
        s.bytesLeft = p.byteCounterBytes();
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
        // A rate increase falls due before the packet may leave: walk the increases on a copy.
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

    /** R<sub>C</sub> as of the latest call, in bit/s. @return the current rate */
    public double currentRate() {
        return live.rate.rc();
    }

    /** R<sub>T</sub> as of the latest call, in bit/s. @return the target rate */
    public double targetRate() {
        return live.rate.rt();
    }

    /** α as of the latest call. @return α */
    public double alpha() {
        return alpha(live);
    }

    /** The increase phase as of the latest call. @return the phase */
    public IncreasePhase phase() {
        return live.phase;
    }

    /** Timer increase events since the last CNP. @return the count */
    public long timerEvents() {
        return live.timeEvents;
    }

    /** Byte-counter increase events since the last CNP. @return the count */
    public long byteCounterEvents() {
        return live.byteEvents;
    }

    /** The parameters. @return them */
    public DcqcnParameters parameters() {
        return p;
    }

    @Override
    public String toString() {
        return "dcqcn(Rc=" + live.rate.rc() + ", Rt=" + live.rate.rt() + ", alpha=" + alpha(live) + ", " + live.phase + ")";
    }

    private double alpha(State s) {
        if (!s.cnpSeen) {
            return s.alphaAtCnp;
        }
        return s.alphaAtCnp * Math.pow(keep, (double) ((s.at - s.lastCnpAt) / p.alphaIntervalNanos()));
    }

    /** The next instant a timer can change R<sub>C</sub>, or never. */
    private long nextRateChange(State s) {
        return s.phase == IncreasePhase.NONE || s.rate.rc() >= lineRate ? Long.MAX_VALUE : s.nextTimerAt;
    }

    private void advance(State s, long to) {
        CcChecks.time(s.at, to);
        while (s.nextTimerAt <= to) {
            long t = s.nextTimerAt;
            switch (s.phase) {
                case FAST_RECOVERY -> {
                    s.timeEvents++;
                    s.nextTimerAt = t + timer;
                    if (s.timeEvents < f) {
                        s.rate.steps(0, 1);
                    } else {
                        select(s);
                    }
                }
                case ADDITIVE_INCREASE -> {
                    if (s.byteEvents < f) {
                        // Every timer event until the next CNP or byte event is one additive step.
                        long k = (to - t) / timer + 1;
                        s.timeEvents += k;
                        s.nextTimerAt = t + k * timer;
                        s.rate.steps(p.additiveIncreaseBps(), k);
                    } else {
                        s.timeEvents++;
                        s.nextTimerAt = t + timer;
                        select(s);
                    }
                }
                case HYPER_INCREASE -> hyperTimer(s, t, to);
                default -> throw new IllegalStateException("timer armed in phase " + s.phase);
            }
        }
        s.at = to;
    }

    private void hyperTimer(State s, long t, long to) {
        long k = (to - t) / halfTimer + 1;
        if (s.timeEvents >= s.byteEvents) {
            // i = min(counts) − F + 1 is the byte count's and stays put: k identical steps.
            s.timeEvents += k;
            s.nextTimerAt = t + k * halfTimer;
            s.rate.steps((double) p.hyperIncreaseBps() * (s.byteEvents - f + 1), k);
        } else if (s.rate.rc() >= lineRate) {
            // R_C sits at the line rate and stays there; only R_T moves, by a sum of i·R_HAI
            // whose i grows by one per event until the time count catches the byte count.
            long growing = Math.min(k, s.byteEvents - s.timeEvents);
            double base = s.timeEvents - f + 1;
            double sum = growing * base + growing * (growing + 1) / 2.0 + (k - growing) * (double) (s.byteEvents - f + 1);
            s.timeEvents += k;
            s.nextTimerAt = t + k * halfTimer;
            s.rate.anchor(lineRate, s.rate.rt() + sum * p.hyperIncreaseBps(), 0);
        } else {
            s.timeEvents++;
            s.nextTimerAt = t + halfTimer;
            hyper(s);
        }
    }

    /** {@code rpr_active_select}: additive until both counts have reached F, then hyper. */
    private void select(State s) {
        if (s.byteEvents < f || s.timeEvents < f) {
            additive(s);
        } else {
            hyper(s);
        }
    }

    private void additive(State s) {
        s.rate.steps(p.additiveIncreaseBps(), 1);
        s.phase = IncreasePhase.ADDITIVE_INCREASE;
    }

    private void hyper(State s) {
        long i = Math.min(s.byteEvents, s.timeEvents) - f + 1;
        s.rate.steps((double) p.hyperIncreaseBps() * i, 1);
        s.phase = IncreasePhase.HYPER_INCREASE;
    }
}
