package io.rnic.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.fabric.EcnThresholds;
import io.rnic.transport.fabric.FabricConfig;
import io.rnic.verbs.CongestionControlScheme;
import io.rnic.verbs.LossRecovery;
import io.rnic.verbs.PathMtu;
import org.junit.jupiter.api.Test;

/**
 * Congestion control on the fabric: incasts of long RC WRITE flows on one switch
 * ({@code Topology.star}) at 100 Gb/s with ECN on, in virtual time. The switch marks as the DCQCN
 * paper configures it (Kmin 5 KB, Kmax 200 KB, Pmax 1 %), the senders start staggered, and each
 * flow's goodput is taken over the interval in which all are active, less its first 100 µs
 * ({@link Convergence}). Figures are printed for the record (docs/performance.md).
 */
class IncastCongestionControlTest {
    static final long LINE = 100_000_000_000L;
    static final long KMAX = 200_000;
    static final FabricConfig PAPER_ECN = FabricConfig.DEFAULT.withEcnThresholds(EcnThresholds.defaults()
            .with(LINE, 5_000, KMAX, 0.01));

    static IncastExperiment.Config incast(int senders, int size, long staggerNanos, CongestionControlScheme cc) {
        return incast(IncastExperiment.Op.WRITE, senders, size, staggerNanos, cc);
    }

    static IncastExperiment.Config incast(IncastExperiment.Op op, int senders, int size, long staggerNanos,
                                          CongestionControlScheme cc) {
        return new IncastExperiment.Config(senders, size, "star", LINE, FabricConfig.DEFAULT.bufferBytes(), true, true,
                LossRecovery.GO_BACK_N, op, staggerNanos, 1, PathMtu.MTU_1024, 6, PAPER_ECN).withCc(cc);
    }

    private static Convergence run(IncastExperiment.Config c) {
        return Convergence.of(result(c), 100_000);
    }

    private static IncastExperiment.Result result(IncastExperiment.Config c) {
        IncastExperiment.Result r = IncastExperiment.run(c, null);
        assertTrue(r.allSucceeded(), r.flows().toString());
        assertEquals(0, r.drops(), "PFC on: lossless");
        Convergence f = Convergence.of(r, 100_000);
        System.out.printf("%d:1 %s %s: %s; ECN marks %d%n", c.senders(), c.op().name().toLowerCase(java.util.Locale.ROOT),
                c.cc().cliName(), f, r.ecnMarks());
        return r;
    }

    /**
     * 2:1, the second sender 100 µs after the first, 8 MB each (about 1.1 ms all active: over 250
     * of DCQCN-mlx's 4 µs rate-decrease periods, nearly 4 of its 300 µs rate-increase periods):
     * each flow within ±10 % of the fair share, the queue bounded well under the buffer, no pause.
     */
    @Test
    void twoToOneWithDcqcnMlxConvergesToTheFairShare() {
        Convergence f = run(incast(2, 8_000_000, 100_000, CongestionControlScheme.DCQCN_MLX));
        assertTrue(f.worstDeviation() <= 0.10, f.toString());
        assertTrue(f.fairGbps() * 2 > 80, "the bottleneck stays busy: " + f);
        assertTrue(f.maxQueue() < FabricConfig.DEFAULT.bufferBytes() / 100, f.toString());
        assertTrue(f.pausedShare() < 0.05, f.toString());
    }

    /**
     * 8:1, 25 µs apart, 2 MB each: DCQCN (the paper's reaction point) keeps the bottleneck queue
     * near the marking thresholds (mean under Kmax over the all-active interval), where without
     * congestion control it stands at what the senders' PSN windows hold in flight.
     */
    @Test
    void eightToOneWithDcqcnKeepsTheQueueNearTheMarkingThresholds() {
        Convergence none = run(incast(8, 2_000_000, 25_000, CongestionControlScheme.NONE));
        Convergence dcqcn = run(incast(8, 2_000_000, 25_000, CongestionControlScheme.DCQCN));
        assertTrue(dcqcn.meanQueue() < KMAX, dcqcn.toString());
        assertTrue(none.meanQueue() > 2 * KMAX, "without congestion control the windows fill the queue: " + none);
        assertTrue(dcqcn.pausedShare() <= none.pausedShare() + 0.001, dcqcn + " against " + none);
        assertTrue(dcqcn.pausedShare() < 0.05, dcqcn.toString());
    }

    /** TIMELY on the same 2:1 incast: it completes with a bounded queue; fairness is reported, not asserted. */
    @Test
    void timelyRunsTheIncastWithABoundedQueue() {
        Convergence f = run(incast(2, 4_000_000, 100_000, CongestionControlScheme.TIMELY));
        assertTrue(f.maxQueue() < FabricConfig.DEFAULT.bufferBytes() / 100, f.toString());
    }

    /**
     * READ: the receiver's requesters are the notification points for their responses' CE marks,
     * and each sender's responder QP the reaction point, pacing its READ responses: with DCQCN the
     * senders' rates are cut and the queue stays far below what it is without.
     */
    @Test
    void readResponsesArePacedByTheRespondingQpsDcqcn() {
        IncastExperiment.Result n = result(incast(IncastExperiment.Op.READ, 8, 2_000_000, 0, CongestionControlScheme.NONE));
        IncastExperiment.Result r = result(incast(IncastExperiment.Op.READ, 8, 2_000_000, 0, CongestionControlScheme.DCQCN));
        Convergence none = Convergence.over(n, 0, n.completionNanos());
        Convergence dcqcn = Convergence.over(r, 0, r.completionNanos());
        System.out.println("8:1 read, whole run: none " + none + "; dcqcn " + dcqcn);
        for (double[] rate : r.rates()) {
            double min = Double.POSITIVE_INFINITY;
            for (int j = 1; j < rate.length; j += 2) {
                min = Math.min(min, rate[j]);
            }
            assertTrue(min < LINE / 1e9 / 2, "every responder was cut at least once: min " + min + " Gb/s");
        }
        assertTrue(dcqcn.meanQueue() < none.meanQueue() / 2, dcqcn + " against " + none);
    }

    /** The same seed gives the same CSV, with congestion control and its CNPs. */
    @Test
    void theSameSeedGivesTheSameCsv() {
        IncastExperiment.Config c = incast(4, 512 * 1024, 10_000, CongestionControlScheme.DCQCN);
        String a = new IncastReport(IncastExperiment.run(c, null)).csv();
        String b = new IncastReport(IncastExperiment.run(c, null)).csv();
        assertEquals(a, b);
    }
}
