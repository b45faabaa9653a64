package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * RED marking on the egress queue (HPCC switch-mmu.cc ShouldSendCN; DCQCN's CP) and the
 * thresholds by port rate (HPCC mix/config.txt, and the HPCC paper's scaling rule).
 */
class EcnMarkingTest {
    private static final long KB = 1_000;
    /** HPCC's 100G thresholds: 400 KB, 1600 KB, 0.2. */
    private final RedMarker red = new RedMarker(400 * KB, 1_600 * KB, 0.2);

    @Test
    void aQueueAtOrBelowKminIsNeverMarked() {
        for (long q : new long[] {0, 1, 200 * KB, 400 * KB}) {
            assertEquals(0.0, red.probability(q));
            assertFalse(red.mark(q, 0.0), "q = " + q + " with the smallest draw");
        }
    }

    @Test
    void aQueueAboveKmaxIsAlwaysMarked() {
        for (long q : new long[] {1_600 * KB + 1, 5_000 * KB, Long.MAX_VALUE}) {
            assertEquals(1.0, red.probability(q));
            assertTrue(red.mark(q, Math.nextDown(1.0)), "q = " + q + " with the largest draw");
        }
    }

    /** p(q) = Pmax (q - Kmin) / (Kmax - Kmin): at 1,000 KB, 0.2 x 600/1200 = 0.1; at Kmax, Pmax. */
    @Test
    void eachQueueIsMarkedOnTheRedCurveBetweenKminAndKmax() {
        assertEquals(0.1, red.probability(1_000 * KB), 1e-15);
        assertTrue(red.mark(1_000 * KB, 0.0999));
        assertFalse(red.mark(1_000 * KB, 0.1001));
        assertEquals(0.2, red.probability(1_600 * KB), 1e-15, "at Kmax the probability is Pmax, not 1");
        assertFalse(red.mark(1_600 * KB, 0.2001));
        assertEquals(0.05, red.probability(700 * KB), 1e-15);
        assertEquals(0.2 / 1_200_000, red.probability(400 * KB + 1), 1e-18, "one byte above Kmin");
        // Seeded draws: at p = 0.05, 100,000 decisions mark 5,000 +- 5 sigma (sigma = 68.9).
        SplittableRandom r = new SplittableRandom(7);
        int marks = 0;
        for (int i = 0; i < 100_000; i++) {
            if (red.mark(700 * KB, r.nextDouble())) {
                marks++;
            }
        }
        assertTrue(Math.abs(marks - 5_000) <= 5 * 68.9, marks + " marks");
    }

    @Test
    void equalThresholdsMarkAsAStepWithNoBand() {
        RedMarker step = new RedMarker(30 * KB, 30 * KB, 1.0); // HPCC run.py's DCTCP setting at 10G
        assertFalse(step.mark(30 * KB, 0.0));
        assertTrue(step.mark(30 * KB + 1, Math.nextDown(1.0)));
    }

    @Test
    void impossibleThresholdsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new RedMarker(10, 5, 0.2));
        assertThrows(IllegalArgumentException.class, () -> new RedMarker(-1, 5, 0.2));
        assertThrows(IllegalArgumentException.class, () -> new RedMarker(1, 5, 1.5));
        assertThrows(IllegalArgumentException.class, () -> new RedMarker(1, 5, Double.NaN));
    }

    @Test
    void markingAllocatesNothing() {
        boolean[] sink = new boolean[1];
        long[] q = {0};
        Allocations.assertNonePerCall(200_000, () -> {
            q[0] = (q[0] + 7_919) % (2_000 * KB);
            sink[0] ^= red.mark(q[0], 0.5);
        });
    }

    @Test
    void hpccsTableGivesKminKmaxAndPmaxByRateInKilobytesOfAThousandBytes() {
        EcnThresholds t = EcnThresholds.defaults();
        assertEquals(100_000, t.kminBytes(25_000_000_000L));
        assertEquals(400_000, t.kmaxBytes(25_000_000_000L));
        assertEquals(200_000, t.kminBytes(50_000_000_000L));
        assertEquals(800_000, t.kmaxBytes(50_000_000_000L));
        assertEquals(400_000, t.kminBytes(100_000_000_000L));
        assertEquals(1_600_000, t.kmaxBytes(100_000_000_000L));
        for (long rate : new long[] {25_000_000_000L, 50_000_000_000L, 100_000_000_000L}) {
            assertTrue(t.hasEntry(rate));
            assertEquals(0.2, t.pmax(rate));
        }
    }

    /** Kmin = 100 KB x rate / 25G, Kmax = 400 KB x rate / 25G, Pmax 0.2 (HPCC paper §5, run.py). */
    @Test
    void aRateWithoutAnEntryScalesKminAndKmaxWithTheRate() {
        EcnThresholds t = EcnThresholds.defaults();
        assertFalse(t.hasEntry(400_000_000_000L), "HPCC's table has no 400G entry although fat.txt has 400G links");
        assertEquals(1_600_000, t.kminBytes(400_000_000_000L));
        assertEquals(6_400_000, t.kmaxBytes(400_000_000_000L));
        assertEquals(0.2, t.pmax(400_000_000_000L));
        assertEquals(40_000, t.kminBytes(10_000_000_000L));
        assertEquals(160_000, t.kmaxBytes(10_000_000_000L));
        assertEquals(4_000, t.kminBytes(1_000_000_000L), "1G: 100,000 x 1/25");
        assertEquals(3, t.kminBytes(999_999), "rounded down: 100,000 x 999,999 / 25e9 = 3.999996");
        RedMarker m = t.marker(400_000_000_000L);
        assertEquals(1_600_000, m.kminBytes());
        assertEquals(6_400_000, m.kmaxBytes());
    }

    @Test
    void anEntryCanBeOverriddenPerRateWithoutChangingTheDefaults() {
        EcnThresholds cw = EcnThresholds.defaults().with(400_000_000_000L, 100_000, 400_000, 0.2)
                .with(100_000_000_000L, 100_000, 400_000, 0.2); // ConWeave's flat 100/400 KB
        assertEquals(100_000, cw.kminBytes(400_000_000_000L));
        assertEquals(400_000, cw.kmaxBytes(100_000_000_000L));
        assertEquals(100_000, cw.kminBytes(25_000_000_000L), "untouched entries stay");
        assertEquals(400_000, EcnThresholds.defaults().kminBytes(100_000_000_000L), "the defaults are immutable");
        assertThrows(IllegalArgumentException.class, () -> EcnThresholds.defaults().with(0, 1, 2, 0.1));
        assertThrows(IllegalArgumentException.class, () -> EcnThresholds.defaults().with(1, 3, 2, 0.1));
        assertThrows(IllegalArgumentException.class, () -> EcnThresholds.defaults().kminBytes(0));
    }
}
