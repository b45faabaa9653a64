package io.rnic.core.cc;

/**
 * The reaction point's parameters for {@link Dcqcn}, the DCQCN paper's algorithm. Units: times in
 * nanoseconds, rates in bits per second, the byte counter in bytes.
 *
 * <h2>Sources, and where they disagree</h2>
 * <table>
 *   <caption>Parameter values by source (µs, Mb/s, bytes)</caption>
 *   <tr><th>parameter</th><th>{@link #paper()} (the default)</th>
 *       <th>{@link #ns3RdmaConfig()}</th><th>{@link #ns3RdmaAttributes()}</th></tr>
 *   <tr><td>g</td><td>1/256</td><td>1/256</td><td>1/16</td></tr>
 *   <tr><td>α interval K</td><td>55</td><td>55</td><td>55</td></tr>
 *   <tr><td>increase timer T</td><td>55</td><td>60</td><td>1500</td></tr>
 *   <tr><td>byte counter B</td><td>10,000,000</td><td>300,000,000</td><td>150,000</td></tr>
 *   <tr><td>fast recovery F</td><td>5</td><td>5</td><td>5</td></tr>
 *   <tr><td>R<sub>AI</sub></td><td>40</td><td>40</td><td>5</td></tr>
 *   <tr><td>R<sub>HAI</sub></td><td>200 (from ns3-rdma's config)</td><td>200</td><td>50</td></tr>
 *   <tr><td>minimum rate</td><td>100 (from ns3-rdma)</td><td>100</td><td>100</td></tr>
 *   <tr><td>initial α</td><td>1</td><td>0.5</td><td>0.5</td></tr>
 * </table>
 * <ul>
 *   <li><b>{@link #paper()}</b>: the values of Zhu et al., "Congestion Control for Large-Scale RDMA
 *       Deployments" (SIGCOMM 2015), at 40 Gb/s, as its first author's follow-up restates them:
 *       "ECN or Delay" (CoNEXT 2016) says the DCQCN paper's defaults set both the timer T and the
 *       α interval to 55 µs (its source, github.com/jitupadhye-zz/rdma,
 *       {@code conext2016/dcqcn-convergence.tex}), fixes F = 5 and R<sub>AI</sub> = 40 Mb/s
 *       ({@code dcqcn-model.tex}, Table 2), and its DCQCN fluid model
 *       ({@code fluidmodel/dcqcn/dcqcn2.m}) uses g = 1/256, K = 55 µs, T = 55 µs, B = 10 MB
 *       (10<sup>7</sup> bytes), a CNP interval of 50 µs, Kmin 5 KB. The paper's own table was
 *       not available to check. Neither gives R<sub>HAI</sub> (the fluid model leaves hyper
 *       increase out) nor a minimum rate, so those two come from ns3-rdma. Initial α = 1 is
 *       what the Mellanox firmware's {@code initial_alpha_value} 1023 (of 1023) and HPCC's
 *       simulator (α = 1 at the first CNP) use; ns3-rdma starts at 0.5.</li>
 *   <li><b>{@link #ns3RdmaConfig()}</b>: the DCQCN authors' simulator, bobzhuyb/ns3-rdma
 *       {@code windows/ns-3-dev/x64/Release/mix/config.txt}: {@code ALPHA_RESUME_INTERVAL 55},
 *       {@code RP_TIMER 60}, {@code BYTE_COUNTER 300000000} (300 MB: the byte counter is in
 *       effect off; a table that reads it as 300,000 B misreads it), {@code DCTCP_GAIN 0.00390625},
 *       {@code FAST_RECOVERY_TIMES 5}, {@code RATE_AI 40Mb/s}, {@code RATE_HAI 200Mb/s},
 *       {@code CLAMP_TARGET_RATE 1} (R<sub>T</sub> ← R<sub>C</sub> on every CNP, as here). It sets
 *       no minimum rate, so the attribute default applies.</li>
 *   <li><b>{@link #ns3RdmaAttributes()}</b>: the same simulator's {@code QbbNetDevice} attribute
 *       defaults ({@code src/point-to-point/model/qbb-net-device.cc}, {@code GetTypeId}).</li>
 * </ul>
 * The CNP interval N (50 µs in all three) belongs to the notification point: see
 * {@link CnpLimiter}. K should exceed N ("ECN or Delay", §3: τ′ must be larger than the CNP
 * generation timer). R<sub>AI</sub> and R<sub>HAI</sub> are absolute rates tuned at 40 Gb/s; HPCC
 * scales its DCQCN steps with the line rate (see {@link DcqcnMlxParameters#hpccRunPy(long)}).
 *
 * @param g the EWMA gain of α, in (0, 1]
 * @param alphaIntervalNanos K: α ← (1 − g)·α every K without a CNP, counted from the last CNP
 * @param increaseTimerNanos T: the rate-increase timer's period (T/2 in hyper increase)
 * @param byteCounterBytes B: bytes sent per byte-counter increase event (B/2 in hyper increase)
 * @param fastRecoverySteps F: increase events per counter before additive increase, at least 1
 * @param additiveIncreaseBps R<sub>AI</sub>
 * @param hyperIncreaseBps R<sub>HAI</sub>
 * @param minRateBps the rate a cut never goes below
 * @param initialAlpha α before the first CNP, in [0, 1]
 */
public record DcqcnParameters(double g, long alphaIntervalNanos, long increaseTimerNanos, long byteCounterBytes,
        int fastRecoverySteps, long additiveIncreaseBps, long hyperIncreaseBps, long minRateBps,
        double initialAlpha) {

    /** Validates every value; the message names the parameter and the value. */
    public DcqcnParameters {
        if (!(g > 0 && g <= 1)) {
            throw new IllegalArgumentException("DCQCN g " + g + " is outside (0, 1]");
        }
        positive("α interval K (ns)", alphaIntervalNanos);
        if (increaseTimerNanos < 2) {
            throw new IllegalArgumentException("DCQCN increase timer T " + increaseTimerNanos
                    + " ns must be at least 2 ns (hyper increase runs it at T/2)");
        }
        if (byteCounterBytes < 2) {
            throw new IllegalArgumentException("DCQCN byte counter B " + byteCounterBytes
                    + " bytes must be at least 2 (hyper increase counts B/2)");
        }
        if (fastRecoverySteps < 1) {
            throw new IllegalArgumentException("DCQCN fast recovery steps F " + fastRecoverySteps + " must be at least 1");
        }
        positive("R_AI (bit/s)", additiveIncreaseBps);
        positive("R_HAI (bit/s)", hyperIncreaseBps);
        positive("minimum rate (bit/s)", minRateBps);
        if (!(initialAlpha >= 0 && initialAlpha <= 1)) {
            throw new IllegalArgumentException("DCQCN initial α " + initialAlpha + " is outside [0, 1]");
        }
    }

    /**
     * The DCQCN paper's values at 40 Gb/s (see the class comment for where each comes from).
     *
     * @return g 1/256, K 55 µs, T 55 µs, B 10 MB, F 5, R_AI 40 Mb/s, R_HAI 200 Mb/s, min 100 Mb/s, α₀ 1
     */
    public static DcqcnParameters paper() {
        return new DcqcnParameters(1.0 / 256, 55_000, 55_000, 10_000_000, 5, 40_000_000, 200_000_000,
                100_000_000, 1.0);
    }

    /**
     * bobzhuyb/ns3-rdma's shipped {@code mix/config.txt}.
     *
     * @return g 1/256, K 55 µs, T 60 µs, B 300 MB, F 5, R_AI 40 Mb/s, R_HAI 200 Mb/s, min 100 Mb/s, α₀ 0.5
     */
    public static DcqcnParameters ns3RdmaConfig() {
        return new DcqcnParameters(1.0 / 256, 55_000, 60_000, 300_000_000, 5, 40_000_000, 200_000_000,
                100_000_000, 0.5);
    }

    /**
     * bobzhuyb/ns3-rdma's {@code QbbNetDevice} attribute defaults.
     *
     * @return g 1/16, K 55 µs, T 1500 µs, B 150,000, F 5, R_AI 5 Mb/s, R_HAI 50 Mb/s, min 100 Mb/s, α₀ 0.5
     */
    public static DcqcnParameters ns3RdmaAttributes() {
        return new DcqcnParameters(1.0 / 16, 55_000, 1_500_000, 150_000, 5, 5_000_000, 50_000_000,
                100_000_000, 0.5);
    }

    static void positive(String what, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException("DCQCN " + what + " " + value + " must be positive");
        }
    }
}
