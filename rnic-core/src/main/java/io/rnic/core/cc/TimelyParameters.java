package io.rnic.core.cc;

/**
 * The parameters of {@link Timely}. Units: times in nanoseconds, rates in bits per second.
 *
 * <h2>Sources, and where they disagree</h2>
 * <table>
 *   <caption>Parameter values by source (µs, Mb/s; "line" is the line rate in Gb/s)</caption>
 *   <tr><th>parameter</th><th>{@link #hpcc(long)} (the default)</th><th>{@link #patched(long)}</th>
 *       <th>eRPC's port of the authors' code</th></tr>
 *   <tr><td>EWMA α</td><td>0.875</td><td>0.875</td><td>0.02</td></tr>
 *   <tr><td>β</td><td>0.8</td><td>0.008</td><td>0.8</td></tr>
 *   <tr><td>T<sub>low</sub></td><td>50</td><td>50</td><td>50</td></tr>
 *   <tr><td>T<sub>high</sub></td><td>500</td><td>500</td><td>1000</td></tr>
 *   <tr><td>minRTT (the gradient's normaliser)</td><td>20</td><td>20</td><td>2 or 2.5 (by version)</td></tr>
 *   <tr><td>δ (additive step)</td><td>10·line/10 (100 at 100G)</td><td>same</td><td>5 MB/s</td></tr>
 *   <tr><td>hyper step</td><td>50·line/10 (500 at 100G)</td><td>not used</td><td>5·δ</td></tr>
 *   <tr><td>hyper after N increases</td><td>5</td><td>not used</td><td>5</td></tr>
 *   <tr><td>minimum rate</td><td>1000</td><td>1000</td><td>5 MB/s</td></tr>
 *   <tr><td>RTT<sub>ref</sub></td><td>not used</td><td>T<sub>low</sub></td><td>not used</td></tr>
 * </table>
 * <ul>
 *   <li><b>{@link #hpcc(long)}</b>: HPCC's simulator (alibaba-edu/High-Precision-Congestion-Control
 *       @ 9f4be2a, {@code simulation/}), which its README says uses the TIMELY paper's parameters,
 *       filling the missing ones from "ECN or Delay". α, β, T<sub>low</sub>, T<sub>high</sub>,
 *       minRTT: the {@code RdmaHw} attribute defaults {@code TimelyAlpha 0.875},
 *       {@code TimelyBeta 0.8}, {@code TimelyTLow 50000}, {@code TimelyTHigh 500000},
 *       {@code TimelyMinRtt 20000} ({@code rdma-hw.cc}); the hyper-increase threshold 5 is
 *       hard-coded in {@code UpdateRateTimely}; δ = {@code 10*bw/10} and the hyper step =
 *       {@code 50*bw/10} Mb/s from run.py's {@code timely} branch; {@code MIN_RATE 1000Mb/s} from
 *       run.py's config template (the attribute default is 100 Mb/s). "ECN or Delay" (CoNEXT 2016,
 *       §4.1, footnote) lists the same α, β, T<sub>low</sub>, T<sub>high</sub> and minRTT as the
 *       values the TIMELY paper recommends at 10 Gb/s, and its fluid model uses δ = 10 Mb/s there
 *       (github.com/jitupadhye-zz/rdma {@code fluidmodel/timely/timely2.m}), which is HPCC's δ at
 *       10 Gb/s. The TIMELY paper itself was not available to check.</li>
 *   <li><b>{@link #patched(long)}</b>: "ECN or Delay" §4.3: "All other TIMELY parameters remain the
 *       same except we set β = 0.008" (and 16 KB segments, which is the requester's business). Its
 *       reference queue q′ = C·T<sub>low</sub> is a queueing delay of T<sub>low</sub>, so
 *       RTT<sub>ref</sub> defaults to T<sub>low</sub>; the paper's Algorithm 2 names RTT<sub>ref</sub>
 *       without giving it a value, so this mapping is an inference.</li>
 *   <li><b>eRPC</b> (erpc-io/eRPC {@code src/cc/timely.h}, "From: ... timely-code-snippet.cc", the
 *       TIMELY authors' snippet): not offered as a preset, listed because it disagrees with HPCC on
 *       α, T<sub>high</sub> and minRTT, applies the hyper step only after five consecutive
 *       negative RTT differences, and scales each step by the time since the last update.</li>
 * </ul>
 *
 * @param ewmaAlpha the EWMA weight of a new RTT difference, in (0, 1]
 * @param beta the multiplicative-decrease factor, in (0, 1]
 * @param tLowNanos below this RTT, always increase
 * @param tHighNanos above this RTT, decrease by β·(1 − T<sub>high</sub>/RTT)
 * @param minRttNanos the gradient's normaliser D<sub>minRTT</sub>
 * @param additiveIncreaseBps δ
 * @param hyperIncreaseBps the step after {@code hyperAfter} consecutive increases (plain TIMELY)
 * @param hyperAfter consecutive increases before hyper steps, at least 1 (plain TIMELY)
 * @param minRateBps the rate a decrease never goes below
 * @param patched use "ECN or Delay"'s patched rate rule
 * @param rttRefNanos RTT<sub>ref</sub> of the patched rule
 * @param oncePerRtt update at most once per RTT: only on a sample for a packet sent at or after the
 *        previous update, as HPCC does ({@code ack_seq > m_lastUpdateSeq}); if false, every sample
 *        updates the rate
 */
public record TimelyParameters(double ewmaAlpha, double beta, long tLowNanos, long tHighNanos, long minRttNanos,
        long additiveIncreaseBps, long hyperIncreaseBps, int hyperAfter, long minRateBps, boolean patched,
        long rttRefNanos, boolean oncePerRtt) {

    /** Validates every value; the message names the parameter and the value. */
    public TimelyParameters {
        if (!(ewmaAlpha > 0 && ewmaAlpha <= 1)) {
            throw new IllegalArgumentException("TIMELY EWMA alpha " + ewmaAlpha + " is outside (0, 1]");
        }
        if (!(beta > 0 && beta <= 1)) {
            throw new IllegalArgumentException("TIMELY beta " + beta + " is outside (0, 1]");
        }
        positive("T_low (ns)", tLowNanos);
        if (tHighNanos <= tLowNanos) {
            throw new IllegalArgumentException("TIMELY T_high " + tHighNanos + " ns must exceed T_low " + tLowNanos + " ns");
        }
        positive("minRTT (ns)", minRttNanos);
        positive("additive step delta (bit/s)", additiveIncreaseBps);
        positive("hyper step (bit/s)", hyperIncreaseBps);
        if (hyperAfter < 1) {
            throw new IllegalArgumentException("TIMELY hyper-increase threshold " + hyperAfter + " must be at least 1");
        }
        positive("minimum rate (bit/s)", minRateBps);
        positive("RTT_ref (ns)", rttRefNanos);
    }

    /**
     * TIMELY as HPCC's simulator runs it (run.py {@code timely}) at the given line rate.
     *
     * @param lineRateBps the line rate; δ and the hyper step scale with it as run.py scales them
     * @return α 0.875, β 0.8, T_low 50 µs, T_high 500 µs, minRTT 20 µs, δ line/1000, hyper line/200 after 5,
     *         min 1 Gb/s, once per RTT
     */
    public static TimelyParameters hpcc(long lineRateBps) {
        return new TimelyParameters(0.875, 0.8, 50_000, 500_000, 20_000, lineRateBps / 1_000, lineRateBps / 200, 5,
                1_000_000_000, false, 50_000, true);
    }

    /**
     * Patched TIMELY ("ECN or Delay", CoNEXT 2016, §4.3): HPCC's values with β = 0.008 and
     * RTT<sub>ref</sub> = T<sub>low</sub>.
     *
     * @param lineRateBps the line rate; δ scales with it as run.py scales it
     * @return {@link #hpcc(long)} with β 0.008, the patched rule and RTT_ref 50 µs
     */
    public static TimelyParameters patched(long lineRateBps) {
        return new TimelyParameters(0.875, 0.008, 50_000, 500_000, 20_000, lineRateBps / 1_000, lineRateBps / 200, 5,
                1_000_000_000, true, 50_000, true);
    }

    private static void positive(String what, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException("TIMELY " + what + " " + value + " must be positive");
        }
    }
}
