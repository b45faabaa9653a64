package io.rnic.core.cc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link Dcqcn} against the paper's formulas, worked by hand here: every expected value is either
 * a literal computed by hand or the rule itself applied step by step to local variables, never a
 * value read back from the implementation.
 */
class DcqcnTest {
    static final long LINE = 40_000_000_000L;
    static final double G = 1.0 / 256;
    static final long US = 1_000;

    /** K = T = 55 µs (the paper's), B 10 MB, F 5, R_AI 40 Mb/s, R_HAI 200 Mb/s, min 100 Mb/s, α₀ as given. */
    static DcqcnParameters paperWith(double initialAlpha) {
        return new DcqcnParameters(G, 55 * US, 55 * US, 10_000_000, 5, 40_000_000, 200_000_000, 100_000_000,
                initialAlpha);
    }

    static void close(double expected, double actual, String what) {
        assertEquals(expected, actual, Math.abs(expected) * 1e-12, what);
    }

    @Test
    void aCnpSetsTheTargetToTheCurrentRateCutsItByHalfAlphaThenRaisesAlpha() {
        // α₀ = 0.5 so that the α update shows (with α₀ = 1 it stays at 1).
        Dcqcn cc = new Dcqcn(paperWith(0.5), LINE);
        cc.onCnp(1 * US);
        close(40e9, cc.targetRate(), "R_T <- R_C");
        close(30e9, cc.currentRate(), "R_C <- R_C (1 - alpha/2) with the alpha held before the CNP, 0.5");
        double alpha1 = (1 - G) * 0.5 + G;
        close(alpha1, cc.alpha(), "alpha <- (1 - g) alpha + g");

        cc.onCnp(11 * US);      // within K: no decay in between
        close(30e9, cc.targetRate(), "R_T <- R_C");
        close(30e9 * (1 - alpha1 / 2), cc.currentRate(), "R_C <- R_C (1 - alpha/2)");
        close((1 - G) * alpha1 + G, cc.alpha(), "alpha <- (1 - g) alpha + g");
        assertEquals(IncreasePhase.FAST_RECOVERY, cc.phase());
        assertEquals(0, cc.timerEvents());
        assertEquals(0, cc.byteCounterEvents());
    }

    @Test
    void withThePaperDefaultsTheFirstCnpHalvesTheRate() {
        Dcqcn cc = new Dcqcn(DcqcnParameters.paper(), LINE);
        assertEquals(IncreasePhase.NONE, cc.phase());
        close(40e9, cc.currentRate(), "a QP starts at the line rate");
        cc.onCnp(0);
        close(20e9, cc.currentRate(), "alpha = 1: R_C (1 - 1/2)");
        close(40e9, cc.targetRate(), "R_T <- R_C");
        close(1.0, cc.alpha(), "(1 - g) 1 + g = 1");
    }

    @Test
    void cutsStopAtTheMinimumRate() {
        Dcqcn cc = new Dcqcn(DcqcnParameters.paper(), LINE);
        double rc = 40e9;
        for (int k = 1; k <= 8; k++) {
            cc.onCnp(0);
            rc /= 2;                        // alpha stays 1
            close(rc, cc.currentRate(), "cut " + k);
        }
        cc.onCnp(0);                        // 40 Gb/s / 2^9 = 78.125 Mb/s < 100 Mb/s
        close(100e6, cc.currentRate(), "max(R_min, R_C (1 - alpha/2))");
        close(156.25e6, cc.targetRate(), "R_T <- R_C before the cut");
        cc.onCnp(0);
        close(100e6, cc.currentRate(), "still the minimum");
        close(100e6, cc.targetRate(), "R_T <- R_C");
    }

    @Test
    void alphaDecaysByOneMinusGEveryQuietPeriodKCountedFromTheLastCnp() {
        Dcqcn cc = new Dcqcn(paperWith(0.5), LINE);
        long k = 55 * US;
        cc.onCnp(0);
        double alpha1 = (1 - G) * 0.5 + G;
        cc.advanceTo(k - 1);
        close(alpha1, cc.alpha(), "no decay before K");
        cc.advanceTo(k);
        close(alpha1 * (1 - G), cc.alpha(), "one period: (1 - g)^1 (an expiry at now counts)");
        cc.advanceTo(3 * k + 17);
        close(alpha1 * (1 - G) * (1 - G) * (1 - G), cc.alpha(), "three periods: (1 - g)^3");

        // A CNP restarts the α timer: the next decay is K after it, not on the old grid.
        cc.onCnp(3 * k + 20 * US);
        double alpha2 = (1 - G) * (alpha1 * Math.pow(1 - G, 3)) + G;
        cc.advanceTo(4 * k + 1);            // the old grid's next expiry; not due on the new one
        close(alpha2, cc.alpha(), "restarted at the CNP");
        cc.advanceTo(3 * k + 20 * US + k);
        close(alpha2 * (1 - G), cc.alpha(), "K after the CNP");
    }

    @Test
    void alphaAfterALongIdleGapIsTheClosedFormOfTenThousandDecays() {
        Dcqcn cc = new Dcqcn(paperWith(0.5), LINE);
        long k = 55 * US;
        cc.onCnp(0);
        double expected = (1 - G) * 0.5 + G;
        for (int i = 0; i < 10_000; i++) {
            expected *= 1 - G;              // one quiet period at a time, the rule as written
        }
        cc.advanceTo(10_000 * k + k - 1);   // one call for the whole gap
        assertEquals(expected, cc.alpha(), expected * 1e-9, "alpha (1 - g)^10000");
        assertTrue(cc.alpha() > 0 && cc.alpha() < 1e-15, "about e^-39: " + cc.alpha());
    }

    @Test
    void withoutCnpsTheTimerClimbsThroughFastRecoveryThenAdditiveIncrease() {
        Dcqcn cc = new Dcqcn(paperWith(0.5), LINE);
        long t = 55 * US;
        cc.onCnp(0);                        // R_C 30 Gb/s, R_T 40 Gb/s
        // Timer events 1-4: fast recovery, R_C <- (R_T + R_C)/2; event 5: the time count reaches F,
        // additive increase R_T += 40 Mb/s then the averaging; R_C never exceeds the line rate.
        double[] rc = {35e9, 37.5e9, 38.75e9, 39.375e9, 39.7075e9, 39.89375e9, 40e9, 40e9};
        double[] rt = {40e9, 40e9, 40e9, 40e9, 40.04e9, 40.08e9, 40.12e9, 40.16e9};
        IncreasePhase[] phase = {IncreasePhase.FAST_RECOVERY, IncreasePhase.FAST_RECOVERY,
            IncreasePhase.FAST_RECOVERY, IncreasePhase.FAST_RECOVERY, IncreasePhase.ADDITIVE_INCREASE,
            IncreasePhase.ADDITIVE_INCREASE, IncreasePhase.ADDITIVE_INCREASE, IncreasePhase.ADDITIVE_INCREASE};
        double before = 30e9;
        for (int i = 0; i < rc.length; i++) {
            cc.advanceTo((i + 1) * t - 1);
            close(before, cc.currentRate(), "before timer event " + (i + 1));
            cc.advanceTo((i + 1) * t);
            close(rc[i], cc.currentRate(), "R_C after timer event " + (i + 1));
            close(rt[i], cc.targetRate(), "R_T after timer event " + (i + 1));
            assertEquals(phase[i], cc.phase(), "phase after timer event " + (i + 1));
            assertEquals(i + 1, cc.timerEvents());
            before = rc[i];
        }
    }

    /**
     * Timer and byte counter together, through all three phases, with ns3-rdma's rules: fast
     * recovery while both counts are below F, additive once one has reached F (a byte event in
     * additive increase stays additive), hyper once both have and a timer event selects it, with
     * R_T += i·R_HAI, i = min(counts) − F + 1, the timer at T/2 and the byte counter at B/2.
     */
    @Test
    void timerAndByteCounterEventsClimbThroughFastRecoveryAdditiveAndHyperIncrease() {
        long timer = 10 * US;
        Dcqcn cc = new Dcqcn(new DcqcnParameters(G, 55 * US, timer, 10_000, 5, 40_000_000, 200_000_000,
                100_000_000, 1.0), LINE);
        Steps x = new Steps();
        cc.onCnp(0);
        cc.onCnp(0);
        cc.onCnp(0);                        // alpha = 1: 40 -> 20 -> 10 -> 5 Gb/s
        x.rc = 5e9;
        x.rt = 10e9;
        close(x.rc, cc.currentRate(), "three halvings");
        close(x.rt, cc.targetRate(), "R_T = R_C before the last cut");

        for (int event = 1; event <= 4; event++) {
            cc.advanceTo(event * timer);
            x.fastRecovery();
            x.check(cc, "timer event " + event + ": fast recovery");
            assertEquals(IncreasePhase.FAST_RECOVERY, cc.phase());
        }
        cc.advanceTo(5 * timer);
        x.additive(40e6);
        x.check(cc, "timer event 5: the time count reaches F, the byte count is 0: additive");
        assertEquals(IncreasePhase.ADDITIVE_INCREASE, cc.phase());

        // 55 packets of 1000 bytes at 55 µs: B = 10,000, so every 11th takes the count below zero.
        for (int packet = 1; packet <= 55; packet++) {
            cc.onSend(55 * US, 1000);
            if (packet % 11 == 0) {
                x.additive(40e6);
                x.check(cc, "byte event " + packet / 11 + " in additive increase: additive");
            } else {
                x.check(cc, "packet " + packet + ": no event");
            }
        }
        assertEquals(5, cc.byteCounterEvents());
        assertEquals(IncreasePhase.ADDITIVE_INCREASE, cc.phase(), "byte events never select hyper increase");

        cc.advanceTo(6 * timer);
        x.hyper(1 * 200e6);
        x.check(cc, "timer event 6: both counts at F or above, hyper with i = min(5, 6) - 5 + 1 = 1");
        assertEquals(IncreasePhase.HYPER_INCREASE, cc.phase());
        cc.advanceTo(7 * timer - 1);
        x.check(cc, "the event that entered hyper increase re-armed the timer at T");
        cc.advanceTo(7 * timer);
        x.hyper(1 * 200e6);
        x.check(cc, "timer event 7 (70 µs): i = min(5, 7) - 4 = 1");
        cc.advanceTo(7 * timer + timer / 2);
        x.hyper(1 * 200e6);
        x.check(cc, "timer event 8 at T/2 later (75 µs): i = 1");
        assertEquals(8, cc.timerEvents());

        for (int packet = 1; packet <= 11; packet++) {
            cc.onSend(76 * US, 1000);
        }
        x.hyper(2 * 200e6);
        x.check(cc, "byte event 6: i = min(6, 8) - 4 = 2");
        for (int packet = 1; packet <= 5; packet++) {
            cc.onSend(76 * US, 1000);
        }
        x.check(cc, "in hyper increase the byte counter restarts at B/2 = 5000: 5 packets are not enough");
        cc.onSend(76 * US, 1000);
        x.hyper(3 * 200e6);
        x.check(cc, "the 6th packet takes B/2 below zero: byte event 7, i = min(7, 8) - 4 = 3");
        assertEquals(7, cc.byteCounterEvents());
    }

    @Test
    void aLongIdleStretchOfAdditiveSteps() {
        // R_AI = 1 kb/s so the rate is still climbing after 10,000 events (closed form vs the rule).
        long timer = 55 * US;
        Dcqcn cc = new Dcqcn(new DcqcnParameters(G, 55 * US, timer, 10_000_000, 5, 1_000, 200_000_000,
                100_000_000, 1.0), LINE);
        cc.onCnp(0);
        cc.onCnp(0);
        cc.onCnp(0);
        Steps x = new Steps();
        x.rc = 5e9;
        x.rt = 10e9;
        for (int event = 1; event <= 10_000; event++) {
            if (event < 5) {
                x.fastRecovery();
            } else {
                x.additive(1_000);
            }
        }
        cc.advanceTo(10_000 * timer);       // one call
        assertEquals(x.rc, cc.currentRate(), x.rc * 1e-12, "R_C after 4 fast-recovery and 9996 additive steps");
        assertEquals(x.rt, cc.targetRate(), x.rt * 1e-12, "R_T = 10 Gb/s + 9996 kb/s");
        assertEquals(10_000, cc.timerEvents());
        assertEquals(IncreasePhase.ADDITIVE_INCREASE, cc.phase());
    }

    @Test
    void aLongIdleStretchEndsAtTheLineRate() {
        Dcqcn cc = new Dcqcn(DcqcnParameters.paper(), LINE);
        cc.onCnp(0);
        cc.advanceTo(1_000_000 * 55 * US);
        assertEquals(40e9, cc.currentRate(), 0.0, "R_C is bounded by the line rate, exactly");
        close(40e9 + (1_000_000 - 4) * 40e6, cc.targetRate(), "R_T is not bounded (ns3-rdma)");
    }

    /**
     * The same CNPs and sends, one instance also advanced every microsecond (as an eager timer
     * would see it), the other only when something happens: the state agrees at every checkpoint.
     * Sending every 3 µs the timer outpaces the byte counter; every 1 µs the byte counter outpaces
     * the timer (so hyper increase's i grows with each timer event); with three CNPs every 150 µs
     * and sends throughout, the rate is still below the line rate while it does. Otherwise each CNP cycle
     * ends with 60 % of it idle (the closed forms).
     */
    @ParameterizedTest
    @CsvSource({"3, 500, 40, 1", "1, 500, 40, 1", "1, 150, 100, 3"})
    void lazyEvaluationGivesWhatAnEagerTimerWouldHold(long sendEveryMicros, long cnpEveryMicros, long sendingPercent,
            int cnpsAtOnce) {
        long timer = 10 * US;
        DcqcnParameters p = new DcqcnParameters(G, 55 * US, timer, 20_000, 5, 40_000_000, 200_000_000,
                100_000_000, 1.0);
        Dcqcn lazy = new Dcqcn(p, LINE);
        Dcqcn eager = new Dcqcn(p, LINE);
        for (long now = 0; now <= 3_000 * US; now += US) {
            eager.advanceTo(now);
            if (now % (cnpEveryMicros * US) == 0) {
                for (int i = 0; i < cnpsAtOnce; i++) {
                    lazy.onCnp(now);
                    eager.onCnp(now);
                }
            }
            if (now % (cnpEveryMicros * US) < cnpEveryMicros * US * sendingPercent / 100 && now % (sendEveryMicros * US) == 0) {
                lazy.onSend(now, 4096);
                eager.onSend(now, 4096);
            }
            if (now % (50 * US) == 0) {
                lazy.advanceTo(now);        // the getters report the state as of the latest call
                assertEquals(eager.currentRate(), lazy.currentRate(), eager.currentRate() * 1e-12, "R_C at " + now);
                assertEquals(eager.targetRate(), lazy.targetRate(), eager.targetRate() * 1e-12, "R_T at " + now);
                assertEquals(eager.alpha(), lazy.alpha(), 1e-15, "alpha at " + now);
                assertEquals(eager.phase(), lazy.phase(), "phase at " + now);
                assertEquals(eager.timerEvents(), lazy.timerEvents(), "timer events at " + now);
                assertEquals(eager.byteCounterEvents(), lazy.byteCounterEvents(), "byte events at " + now);
            }
        }
    }

    @Test
    void badParametersAndTimeGoingBackwardsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> paperWith(1.5));
        assertThrows(IllegalArgumentException.class, () -> new DcqcnParameters(0, 1, 2, 2, 1, 1, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new DcqcnParameters(G, 1, 2, 2, 0, 1, 1, 1, 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Dcqcn(DcqcnParameters.paper(), 10_000_000));
        assertTrue(e.getMessage().contains("below"), e.getMessage());
        Dcqcn cc = new Dcqcn(DcqcnParameters.paper(), LINE);
        cc.onSend(100, 1000);
        e = assertThrows(IllegalArgumentException.class, () -> cc.onCnp(99));
        assertTrue(e.getMessage().contains("backwards"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> cc.onSend(100, 0));
        assertThrows(IllegalArgumentException.class, () -> cc.onAck(100, -2));
    }

    /** The paper's increase rules applied by hand to (R_C, R_T). */
    static final class Steps {
        double rc;
        double rt;

        void fastRecovery() {
            rc = Math.min(LINE, (rt + rc) / 2);
        }

        void additive(double rai) {
            rt += rai;
            rc = Math.min(LINE, (rt + rc) / 2);
        }

        void hyper(double step) {
            rt += step;
            rc = Math.min(LINE, (rt + rc) / 2);
        }

        void check(Dcqcn cc, String what) {
            close(rc, cc.currentRate(), "R_C, " + what);
            close(rt, cc.targetRate(), "R_T, " + what);
        }
    }
}
