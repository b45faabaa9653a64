package io.rnic.core.cc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link DcqcnMlx} against the rules of HPCC's {@code rdma-hw.cc} (the NIC variant), worked by
 * hand: expected values are literals or the rule applied to local variables, never values read
 * back from the implementation.
 */
class DcqcnMlxTest {
    static final long LINE = 100_000_000_000L;
    static final double G = 1.0 / 256;
    static final double KEEP = 1 - G;
    static final long US = 1_000;

    /** run.py's dcqcn at 100 Gb/s: α 1 µs, decrease check 4 µs, RPTimer 300 µs, F 1, AI 20 Mb/s, HAI 200 Mb/s. */
    static final DcqcnMlxParameters RUN_PY = DcqcnMlxParameters.hpccRunPy(LINE);

    static DcqcnMlxParameters withFirstCnpRate(double rateOnFirstCnp, boolean clamp) {
        return new DcqcnMlxParameters(G, 1 * US, 4 * US, 300 * US, 1, 20_000_000, 200_000_000, 1_000_000_000,
                rateOnFirstCnp, clamp);
    }

    static void close(double expected, double actual, String what) {
        assertEquals(expected, actual, Math.abs(expected) * 1e-12, what);
    }

    @Test
    void runPyScalesTheStepsWithTheLineRate() {
        assertEquals(20_000_000, RUN_PY.rateAiBps(), "5 * 100 / 25 Mb/s");
        assertEquals(200_000_000, RUN_PY.rateHaiBps(), "50 * 100 / 25 Mb/s");
        assertEquals(1_000_000_000, RUN_PY.minRateBps());
    }

    @Test
    void theFirstCnpSetsAlphaToOneAndTheRateToRateOnFirstCnpTimesTheRate() {
        DcqcnMlx cc = new DcqcnMlx(withFirstCnpRate(0.5, false), LINE);
        assertEquals(IncreasePhase.NONE, cc.phase());
        cc.onCnp(1 * US);
        close(50e9, cc.currentRate(), "RateOnFirstCnp x rate");
        close(50e9, cc.targetRate(), "the target too");
        assertEquals(1.0, cc.alpha(), 0.0, "alpha = 1");
        assertEquals(IncreasePhase.FAST_RECOVERY, cc.phase());
        cc.advanceTo(2 * US);
        close(KEEP, cc.alpha(), "the first CNP does not raise the alpha flag: the first update decays");
    }

    @Test
    void theRateIsCutOnlyAtTheFourMicrosecondChecksOncePerCheck() {
        long t1 = 1 * US;
        DcqcnMlx cc = new DcqcnMlx(RUN_PY, LINE);
        cc.onCnp(t1);
        close(100e9, cc.currentRate(), "RateOnFirstCnp 1.0: nothing changes at the CNP");
        cc.advanceTo(t1 + 4 * US);
        close(100e9, cc.currentRate(), "the check is at t1 + 4 µs + 1 ns");
        close(Math.pow(KEEP, 4), cc.alpha(), "four decays at t1 + 1..4 µs");
        cc.advanceTo(t1 + 4 * US + 1);
        double r1 = 100e9 * (1 - Math.pow(KEEP, 4) / 2);
        close(r1, cc.currentRate(), "R_C (1 - alpha/2)");
        close(100e9, cc.targetRate(), "stage 0 and no clamp: the target stays");

        // Three CNPs in one check interval make one cut. The α update at t1 + 5 µs runs before the
        // CNP at that instant; the flag it raises is seen at + 6 µs, the CNP at + 6 µs raises it
        // again for + 7 µs, and + 8 µs decays.
        cc.onCnp(t1 + 5 * US);
        cc.onCnp(t1 + 5 * US + 500);
        cc.onCnp(t1 + 6 * US);
        cc.advanceTo(t1 + 8 * US);
        close(r1, cc.currentRate(), "no cut before the check");
        cc.advanceTo(t1 + 8 * US + 1);
        double a5 = Math.pow(KEEP, 5);
        double a6 = KEEP * a5 + G;
        double a7 = KEEP * a6 + G;
        double a8 = KEEP * a7;
        close(a8, cc.alpha(), "alpha after updates at 5 (decay), 6 and 7 (CNP), 8 (decay)");
        close(r1 * (1 - a8 / 2), cc.currentRate(), "one cut for three CNPs");
        close(100e9, cc.targetRate(), "still stage 0");
        cc.advanceTo(t1 + 20 * US + 1);
        close(r1 * (1 - a8 / 2), cc.currentRate(), "no CNP since: later checks do nothing");
    }

    @Test
    void theIncreaseTimerStepsThroughFastRecoveryOneAdditiveStepThenHyperSteps() {
        DcqcnMlx cc = new DcqcnMlx(withFirstCnpRate(0.5, false), LINE);
        cc.onCnp(0);                                    // rate = target = 50 Gb/s
        long cut = 4 * US + 1;
        cc.advanceTo(cut);
        double rt = 50e9;
        double rc = 50e9 * (1 - Math.pow(KEEP, 4) / 2);
        close(rc, cc.currentRate(), "the cut");
        assertEquals(IncreasePhase.FAST_RECOVERY, cc.phase(), "stage 0 < F = 1");

        cc.advanceTo(cut + 300 * US - 1);
        close(rc, cc.currentRate(), "RPTimer runs from the cut");
        cc.advanceTo(cut + 300 * US);
        rc = (rc + rt) / 2;
        close(rc, cc.currentRate(), "stage 0 < F: fast recovery");
        assertEquals(1, cc.stage());
        assertEquals(IncreasePhase.ADDITIVE_INCREASE, cc.phase(), "stage 1 = F");

        cc.advanceTo(cut + 600 * US);
        rt += 20e6;
        rc = (rc + rt) / 2;
        close(rt, cc.targetRate(), "stage F: R_T + R_AI");
        close(rc, cc.currentRate(), "then the averaging");
        assertEquals(IncreasePhase.HYPER_INCREASE, cc.phase());

        for (int event = 3; event <= 5; event++) {
            cc.advanceTo(cut + event * 300 * US);
            rt += 200e6;
            rc = (rc + rt) / 2;
            close(rt, cc.targetRate(), "stage > F: R_T + R_HAI, flat (event " + event + ")");
            close(rc, cc.currentRate(), "then the averaging (event " + event + ")");
        }
        assertEquals(5, cc.stage());
    }

    @Test
    void aCutAfterAnIncreaseEventSetsTheTargetToTheCurrentRate() {
        DcqcnMlx cc = new DcqcnMlx(RUN_PY, LINE);
        cc.onCnp(0);
        long cut = 4 * US + 1;
        cc.advanceTo(cut + 300 * US);                   // one fast-recovery step: stage 1
        double rc = (100e9 * (1 - Math.pow(KEEP, 4) / 2) + 100e9) / 2;
        close(rc, cc.currentRate(), "after fast recovery");
        cc.onCnp(400 * US);
        cc.advanceTo(400 * US + 1);                     // the check grid: 1 ns + multiples of 4 µs
        close(rc, cc.targetRate(), "stage 1: R_T <- R_C");
        close(rc * (1 - Math.pow(KEEP, 400) / 2), cc.currentRate(), "alpha after 400 quiet updates");
        assertEquals(0, cc.stage());
    }

    @Test
    void clampTargetRateSetsTheTargetAtEveryCut() {
        DcqcnMlx cc = new DcqcnMlx(withFirstCnpRate(1.0, true), LINE);
        cc.onCnp(0);
        cc.advanceTo(4 * US + 1);
        double r1 = 100e9 * (1 - Math.pow(KEEP, 4) / 2);
        close(100e9, cc.targetRate(), "R_T <- R_C at the cut (R_C was 100 Gb/s)");
        cc.onCnp(5 * US);
        cc.advanceTo(8 * US + 1);
        close(r1, cc.targetRate(), "stage 0, yet R_T <- R_C");
    }

    @Test
    void aLongIdleStretchOfHyperStepsEndsAtTheLineRate() {
        DcqcnMlx cc = new DcqcnMlx(withFirstCnpRate(0.5, false), LINE);
        cc.onCnp(0);
        long cut = 4 * US + 1;
        double rt = 50e9;
        double rc = 50e9 * (1 - Math.pow(KEEP, 4) / 2);
        for (int event = 1; event <= 1000; event++) {
            double step = event == 1 ? 0 : event == 2 ? 20e6 : 200e6;
            rt = Math.min(LINE, rt + step);
            rc = (rc + rt) / 2;
        }
        cc.advanceTo(cut + 1000 * 300 * US);            // one call
        assertEquals(rt, cc.targetRate(), 0.0, "the target is capped at the line rate");
        assertEquals(rc, cc.currentRate(), rc * 1e-12, "R_C after 1000 steps");
        assertEquals(1000, cc.stage());
        cc.advanceTo(cut + 5000 * 300 * US);
        assertEquals(100e9, cc.currentRate(), 0.0, "R_C reaches the line rate exactly");
    }

    @Test
    void lazyEvaluationGivesWhatAnEagerTimerWouldHold() {
        DcqcnMlxParameters p = new DcqcnMlxParameters(G, 1 * US, 4 * US, 55 * US, 2, 20_000_000, 200_000_000,
                1_000_000_000, 0.7, false);
        DcqcnMlx lazy = new DcqcnMlx(p, LINE);
        DcqcnMlx eager = new DcqcnMlx(p, LINE);
        for (long now = 0; now <= 5_000 * US; now += 100) {
            eager.advanceTo(now);           // eager: looks every 100 ns
            if (now % (700 * US) == 0 || now % (700 * US) == 3 * US) {
                lazy.onCnp(now);
                eager.onCnp(now);
            }
            if (now % (2 * US) == 0) {
                lazy.onSend(now, 4096);
                eager.onSend(now, 4096);
            }
            if (now % (50 * US) == 0) {
                lazy.advanceTo(now);
                assertEquals(eager.currentRate(), lazy.currentRate(), eager.currentRate() * 1e-12, "R_C at " + now);
                assertEquals(eager.targetRate(), lazy.targetRate(), eager.targetRate() * 1e-12, "R_T at " + now);
                assertEquals(eager.alpha(), lazy.alpha(), 1e-15, "alpha at " + now);
                assertEquals(eager.stage(), lazy.stage(), "stage at " + now);
            }
        }
    }

    @Test
    void aCutThatFallsDueDuringTheGapLengthensIt() {
        // A 100 kB packet at 100 Gb/s takes 8 µs; the cut at 4 µs + 1 ns re-times it at the new rate.
        DcqcnMlx cc = new DcqcnMlx(RUN_PY, LINE);
        cc.onCnp(0);
        cc.onSend(0, 100_000);
        double cut = 100e9 * (1 - Math.pow(KEEP, 4) / 2);
        assertEquals((long) Math.ceil(800_000 * 1e9 / cut), cc.earliestSend(0, 1000));
        close(100e9, cc.currentRate(), "looking ahead changed nothing");
    }

    @Test
    void badParametersAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> withFirstCnpRate(0, false));
        assertThrows(IllegalArgumentException.class, () -> withFirstCnpRate(1.5, false));
        assertThrows(IllegalArgumentException.class,
                () -> new DcqcnMlxParameters(G, 0, 4, 300, 1, 1, 1, 1, 1.0, false));
        assertThrows(IllegalArgumentException.class,
                () -> new DcqcnMlxParameters(G, 1, 4, 300, -1, 1, 1, 1, 1.0, false));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DcqcnMlx(RUN_PY, 100_000_000));
        assertTrue(e.getMessage().contains("MinRate"), e.getMessage());
    }
}
