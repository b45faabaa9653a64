package io.rnic.core.cc;

/**
 * The parameters of {@link DcqcnMlx}, DCQCN as HPCC's simulator implements it after Mellanox's
 * NICs. Names follow HPCC's {@code RdmaHw} attributes and config keys. Units: times in
 * nanoseconds, rates in bits per second.
 *
 * <h2>Sources, and where they disagree</h2>
 * All from alibaba-edu/High-Precision-Congestion-Control at 9f4be2a, under {@code simulation/}.
 * <table>
 *   <caption>Parameter values by source (µs, Mb/s; "line" is the line rate in Gb/s)</caption>
 *   <tr><th>parameter (config key)</th><th>{@link #hpccRunPy(long)}: run.py {@code dcqcn} (the default)</th>
 *       <th>{@link #hpccRunPyPaper(long)}: run.py {@code dcqcn_paper}</th>
 *       <th>{@link #hpccConfigDoc()}: {@code mix/config.txt}</th>
 *       <th>{@link #rdmaHwDefaults()}: {@code rdma-hw.cc} attributes</th></tr>
 *   <tr><td>g ({@code EWMA_GAIN})</td><td>1/256</td><td>1/256</td><td>1/256</td><td>1/16</td></tr>
 *   <tr><td>α interval ({@code ALPHA_RESUME_INTERVAL})</td><td>1</td><td>50</td><td>1</td><td>55</td></tr>
 *   <tr><td>decrease interval ({@code RATE_DECREASE_INTERVAL})</td><td>4</td><td>50</td><td>4</td><td>4</td></tr>
 *   <tr><td>increase timer ({@code RP_TIMER})</td><td>300</td><td>55</td><td>900</td><td>1500</td></tr>
 *   <tr><td>{@code FAST_RECOVERY_TIMES}</td><td>1</td><td>1</td><td>1</td><td>5</td></tr>
 *   <tr><td>{@code RATE_AI}</td><td>5·line/25 (20 at 100G)</td><td>same</td><td>50</td><td>5</td></tr>
 *   <tr><td>{@code RATE_HAI}</td><td>50·line/25 (200 at 100G)</td><td>same</td><td>100</td><td>50</td></tr>
 *   <tr><td>{@code MIN_RATE}</td><td>1000</td><td>1000</td><td>100</td><td>100</td></tr>
 *   <tr><td>{@code RateOnFirstCnp}</td><td>1.0</td><td>1.0</td><td>1.0</td><td>1.0</td></tr>
 *   <tr><td>{@code CLAMP_TARGET_RATE}</td><td>0</td><td>0</td><td>0</td><td>0</td></tr>
 * </table>
 * <ul>
 *   <li>run.py's {@code dcqcn} is the variant the HPCC paper's DCQCN runs used (the maintainer, HPCC
 *       issue #36: "dcqcn and dcqcn_vwin were used in the HPCC paper"), hence the default. Its
 *       template fixes {@code FAST_RECOVERY_TIMES 1}, {@code CLAMP_TARGET_RATE 0} and
 *       {@code MIN_RATE 1000Mb/s}; the rest comes from run.py's {@code dcqcn} branch
 *       ({@code t_alpha=1, t_dec=4, t_inc=300, g=0.00390625, ai = 5·bw/25, hai = 50·bw/25}).</li>
 *   <li>{@code RateOnFirstCnp} is set by no config; its attribute default is 1.0 (keep the rate).
 *       The ConnectX firmware parameters listed in conweave-project/conweave-ns3
 *       ({@code scratch/network-load-balance.cc}, the comment above the RDMA driver setup) match
 *       run.py's timers: {@code rpg_time_reset 300} µs, {@code rpg_threshold 1},
 *       {@code rate_reduce_monitor_period 4} µs, {@code dce_tcp_rtt 1} µs, {@code clamp_tgt_rate
 *       false}, {@code initial_alpha_value 1023}. Its {@code rate_to_set_on_first_cnp 0} is a rate
 *       in Mb/s (0: not used), not HPCC's fraction, and its {@code dce_tcp_g 1019} is on a scale
 *       that list does not state, so it does not confirm g = 1/256.</li>
 *   <li>When a config omits {@code EWMA_GAIN}, HPCC's {@code third.cc} initialises it as the C++
 *       expression {@code 1/16}, which is the integer 0: the attribute table's 1/16 is not what such
 *       a run gets.</li>
 * </ul>
 *
 * @param g the EWMA gain of α, in (0, 1]
 * @param alphaIntervalNanos {@code AlphaResumInterval}: α is updated once per interval
 * @param decreaseIntervalNanos {@code RateDecreaseInterval}: how often a pending CNP may cut the rate
 * @param increaseTimerNanos {@code RPTimer}: the rate-increase timer's period
 * @param fastRecoveryTimes {@code FastRecoveryTimes}: fast-recovery steps before additive increase, at least 0
 * @param rateAiBps {@code RateAI}
 * @param rateHaiBps {@code RateHAI}
 * @param minRateBps {@code MinRate}: the rate a cut never goes below
 * @param rateOnFirstCnp {@code RateOnFirstCnp}: the fraction of the current rate the first CNP sets, in (0, 1]
 * @param clampTargetRate {@code ClampTargetRate}: set R<sub>T</sub> ← R<sub>C</sub> at every cut, not only
 *        at a cut after an increase event
 */
public record DcqcnMlxParameters(double g, long alphaIntervalNanos, long decreaseIntervalNanos,
        long increaseTimerNanos, int fastRecoveryTimes, long rateAiBps, long rateHaiBps, long minRateBps,
        double rateOnFirstCnp, boolean clampTargetRate) {

    /** Validates every value; the message names the parameter and the value. */
    public DcqcnMlxParameters {
        if (!(g > 0 && g <= 1)) {
            throw new IllegalArgumentException("DCQCN (mlx) g " + g + " is outside (0, 1]");
        }
        positive("AlphaResumInterval (ns)", alphaIntervalNanos);
        positive("RateDecreaseInterval (ns)", decreaseIntervalNanos);
        positive("RPTimer (ns)", increaseTimerNanos);
        if (fastRecoveryTimes < 0) {
            throw new IllegalArgumentException("DCQCN (mlx) FastRecoveryTimes " + fastRecoveryTimes + " is negative");
        }
        positive("RateAI (bit/s)", rateAiBps);
        positive("RateHAI (bit/s)", rateHaiBps);
        positive("MinRate (bit/s)", minRateBps);
        if (!(rateOnFirstCnp > 0 && rateOnFirstCnp <= 1)) {
            throw new IllegalArgumentException("DCQCN (mlx) RateOnFirstCnp " + rateOnFirstCnp + " is outside (0, 1]");
        }
    }

    /**
     * HPCC's run.py {@code dcqcn}, the DCQCN of the HPCC paper, at the given line rate.
     *
     * @param lineRateBps the line rate; RateAI and RateHAI scale with it as run.py scales them
     * @return g 1/256, α 1 µs, decrease 4 µs, RPTimer 300 µs, F 1, AI line/5000, HAI line/500, min 1 Gb/s
     */
    public static DcqcnMlxParameters hpccRunPy(long lineRateBps) {
        return new DcqcnMlxParameters(1.0 / 256, 1_000, 4_000, 300_000, 1, lineRateBps / 5_000, lineRateBps / 500,
                1_000_000_000, 1.0, false);
    }

    /**
     * HPCC's run.py {@code dcqcn_paper}: HPCC's reading of the DCQCN paper's timers, on the same
     * structure.
     *
     * @param lineRateBps the line rate; RateAI and RateHAI scale with it as run.py scales them
     * @return g 1/256, α 50 µs, decrease 50 µs, RPTimer 55 µs, F 1, AI line/5000, HAI line/500, min 1 Gb/s
     */
    public static DcqcnMlxParameters hpccRunPyPaper(long lineRateBps) {
        return new DcqcnMlxParameters(1.0 / 256, 50_000, 50_000, 55_000, 1, lineRateBps / 5_000, lineRateBps / 500,
                1_000_000_000, 1.0, false);
    }

    /**
     * HPCC's shipped {@code mix/config.txt} (documented key by key in {@code mix/config_doc.txt}).
     *
     * @return g 1/256, α 1 µs, decrease 4 µs, RPTimer 900 µs, F 1, AI 50 Mb/s, HAI 100 Mb/s, min 100 Mb/s
     */
    public static DcqcnMlxParameters hpccConfigDoc() {
        return new DcqcnMlxParameters(1.0 / 256, 1_000, 4_000, 900_000, 1, 50_000_000, 100_000_000,
                100_000_000, 1.0, false);
    }

    /**
     * The attribute defaults in HPCC's {@code rdma-hw.cc}.
     *
     * @return g 1/16, α 55 µs, decrease 4 µs, RPTimer 1500 µs, F 5, AI 5 Mb/s, HAI 50 Mb/s, min 100 Mb/s
     */
    public static DcqcnMlxParameters rdmaHwDefaults() {
        return new DcqcnMlxParameters(1.0 / 16, 55_000, 4_000, 1_500_000, 5, 5_000_000, 50_000_000,
                100_000_000, 1.0, false);
    }

    private static void positive(String what, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException("DCQCN (mlx) " + what + " " + value + " must be positive");
        }
    }
}
