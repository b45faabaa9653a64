package io.rnic.core.cc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * {@link Timely} against the TIMELY rate rules (Algorithm 1 as "ECN or Delay" reprints it, with
 * HPCC's hyper increase) and patched TIMELY's Algorithm 2, worked by hand. Most tests use an EWMA
 * weight of 1, so that the gradient is simply (rtt − previous rtt)/minRTT and each regime's
 * numbers can be read off; one test checks the EWMA itself at HPCC's 0.875.
 */
class TimelyTest {
    static final long LINE = 100_000_000_000L;
    static final long US = 1_000;
    static final long MS = 1_000_000;

    /** HPCC's values at 100 Gb/s (δ 100 Mb/s, hyper 500 Mb/s, min 1 Gb/s) with the EWMA weight given. */
    static TimelyParameters hpccWithEwma(double alpha, boolean oncePerRtt) {
        return new TimelyParameters(alpha, 0.8, 50 * US, 500 * US, 20 * US, 100_000_000, 500_000_000, 5,
                1_000_000_000, false, 50 * US, oncePerRtt);
    }

    /** One sample per millisecond: always for a packet sent after the previous update. */
    static void sample(Timely cc, int ms, long rttMicros) {
        cc.onAck(ms * MS, rttMicros * US);
    }

    static void close(double expected, double actual, String what) {
        assertEquals(expected, actual, Math.abs(expected) * 1e-12, what);
    }

    @Test
    void hpccDefaultsScaleDeltaAndTheHyperStepWithTheLineRate() {
        TimelyParameters p = TimelyParameters.hpcc(LINE);
        assertEquals(100_000_000, p.additiveIncreaseBps(), "10 * 100 / 10 Mb/s");
        assertEquals(500_000_000, p.hyperIncreaseBps(), "50 * 100 / 10 Mb/s");
        assertEquals(0.875, p.ewmaAlpha());
        assertEquals(0.8, p.beta());
        assertEquals(5, p.hyperAfter());
        assertEquals(0.008, TimelyParameters.patched(LINE).beta(), "ECN or Delay: beta = 0.008");
    }

    @Test
    void theFirstSampleOnlyRecordsTheRtt() {
        Timely cc = new Timely(hpccWithEwma(1, true), LINE);
        sample(cc, 1, 900);
        close(100e9, cc.rateBitsPerSecond(), "no update on the first sample, even above T_high");
        assertEquals(0, cc.rttDiffNanos());
    }

    @Test
    void aPositiveGradientCutsTheRateByBetaTimesTheGradient() {
        Timely cc = new Timely(hpccWithEwma(1, true), LINE);
        sample(cc, 1, 100);
        sample(cc, 2, 110);                 // gradient 10 µs / 20 µs = 0.5
        close(100e9 * (1 - 0.8 * 0.5), cc.rateBitsPerSecond(), "rate (1 - beta g)");
        assertEquals(0, cc.consecutiveIncreases());
    }

    @Test
    void aZeroOrNegativeGradientRaisesTheRateByDelta() {
        Timely cc = new Timely(hpccWithEwma(1, true), LINE);
        sample(cc, 1, 100);
        sample(cc, 2, 110);                 // 60 Gb/s
        sample(cc, 3, 100);                 // gradient -0.5
        close(60.1e9, cc.rateBitsPerSecond(), "rate + delta");
        sample(cc, 4, 100);                 // gradient 0
        close(60.2e9, cc.rateBitsPerSecond(), "g <= 0 includes 0");
        assertEquals(2, cc.consecutiveIncreases());
    }

    @Test
    void belowTLowTheRateRisesByDeltaWhateverTheGradient() {
        Timely cc = new Timely(hpccWithEwma(1, true), LINE);
        sample(cc, 1, 100);
        sample(cc, 2, 110);                 // 60 Gb/s
        sample(cc, 3, 30);
        sample(cc, 4, 45);                  // gradient +0.75, but 45 µs < T_low
        close(60.2e9, cc.rateBitsPerSecond(), "two increases by delta");
        sample(cc, 5, 50);                  // = T_low is not below it: gradient 0.25 decides
        close(60.2e9 * (1 - 0.8 * 0.25), cc.rateBitsPerSecond(), "the gradient rule at T_low itself");
    }

    @Test
    void aboveTHighTheRateDropsByBetaTimesOneMinusTHighOverTheRtt() {
        Timely cc = new Timely(hpccWithEwma(1, true), LINE);
        sample(cc, 1, 700);
        sample(cc, 2, 600);                 // gradient -5, but 600 µs > T_high
        close(100e9 * (1 - 0.8 * (1 - 500.0 / 600)), cc.rateBitsPerSecond(), "rate (1 - beta (1 - T_high/rtt))");
        double afterCut = cc.rateBitsPerSecond();
        sample(cc, 3, 500);                 // = T_high is not above it: gradient -5 decides
        close(afterCut + 100e6, cc.rateBitsPerSecond(), "the gradient rule at T_high itself");
    }

    @Test
    void theRttDifferenceIsAnEwmaWithWeightAlpha() {
        Timely cc = new Timely(TimelyParameters.hpcc(LINE), LINE);
        sample(cc, 1, 30);
        sample(cc, 2, 600);
        assertEquals(0.875 * 570_000, cc.rttDiffNanos(), 1e-9, "0.125 * 0 + 0.875 * (600 - 30) µs");
        close(100e9 * (1 - 0.8 * (1 - 500.0 / 600)), cc.rateBitsPerSecond(), "above T_high");
        sample(cc, 3, 40);
        assertEquals(0.125 * 498_750 + 0.875 * -560_000, cc.rttDiffNanos(), 1e-9, "-427,656.25 ns");
        sample(cc, 4, 100);
        assertEquals(0.125 * -427_656.25 + 0.875 * 60_000, cc.rttDiffNanos(), 1e-9, "-957.03125 ns: still an increase");
        assertEquals(2, cc.consecutiveIncreases());
        double before = cc.rateBitsPerSecond();
        sample(cc, 5, 120);
        double diff = 0.125 * -957.03125 + 0.875 * 20_000;
        assertEquals(diff, cc.rttDiffNanos(), 1e-9, "17,380.37 ns");
        close(before * (1 - 0.8 * diff / 20_000), cc.rateBitsPerSecond(), "cut by beta times the smoothed gradient");
    }

    @Test
    void afterFiveIncreasesInARowTheSixthAddsTheHyperStep() {
        Timely cc = new Timely(hpccWithEwma(1, true), LINE);
        sample(cc, 1, 100);
        sample(cc, 2, 110);                 // 60 Gb/s, count 0
        double rate = 60e9;
        for (int ms = 3; ms <= 7; ms++) {
            sample(cc, ms, 30);
            rate += 100e6;
            close(rate, cc.rateBitsPerSecond(), "increase " + (ms - 2) + ": delta");
        }
        sample(cc, 8, 30);
        rate += 500e6;
        close(rate, cc.rateBitsPerSecond(), "increase 6: the hyper step");
        sample(cc, 9, 30);
        rate += 500e6;
        close(rate, cc.rateBitsPerSecond(), "increase 7: still hyper");
        sample(cc, 10, 33);                 // gradient +0.15, but 33 µs is below T_low
        rate += 500e6;
        close(rate, cc.rateBitsPerSecond(), "still below T_low: hyper");
        sample(cc, 11, 60);                 // gradient 27/20 = 1.35: factor max(0, 1 - 1.08) = 0
        close(1e9, cc.rateBitsPerSecond(), "a decrease to the minimum rate");
        sample(cc, 12, 30);
        close(1e9 + 100e6, cc.rateBitsPerSecond(), "the decrease restarted the count: delta again");
    }

    @Test
    void theRateStaysWithinTheMinimumAndTheLineRate() {
        Timely cc = new Timely(hpccWithEwma(1, true), LINE);
        sample(cc, 1, 30);
        sample(cc, 2, 30);
        close(100e9, cc.rateBitsPerSecond(), "an increase at the line rate stays there");
        sample(cc, 3, 200);                 // gradient 8.5: factor clipped at 0
        close(1e9, cc.rateBitsPerSecond(), "a cut never goes below the minimum rate");
        sample(cc, 4, 5_000);               // far above T_high
        close(1e9, cc.rateBitsPerSecond(), "nor does the T_high cut");
    }

    @Test
    void aSampleForAPacketSentBeforeThePreviousUpdateIsIgnored() {
        Timely cc = new Timely(hpccWithEwma(1, true), LINE);
        cc.onAck(1 * MS, 100 * US);         // recorded at 1 ms
        cc.onAck(1 * MS + 50 * US, 110 * US);   // that packet left at 0.94 ms, before the update
        close(100e9, cc.rateBitsPerSecond(), "ignored");
        cc.onAck(1 * MS + 110 * US, 110 * US);  // left at 1 ms exactly: counts
        close(60e9, cc.rateBitsPerSecond(), "gradient (110 - 100)/20 against the recorded 100 µs");
        cc.onAck(1 * MS + 111 * US, -1);
        close(60e9, cc.rateBitsPerSecond(), "no sample, no update");

        Timely every = new Timely(hpccWithEwma(1, false), LINE);
        every.onAck(1 * MS, 100 * US);
        every.onAck(1 * MS + 50 * US, 110 * US);
        close(60e9, every.rateBitsPerSecond(), "without the once-per-RTT rule every sample updates");
    }

    @Test
    void patchedTimelysWeightIsPiecewiseLinearInTheGradient() {
        assertEquals(0, Timely.weight(-1));
        assertEquals(0, Timely.weight(-0.25));
        assertEquals(0.3, Timely.weight(-0.1), 1e-15);
        assertEquals(0.5, Timely.weight(0));
        assertEquals(0.7, Timely.weight(0.1), 1e-15);
        assertEquals(1, Timely.weight(0.25));
        assertEquals(1, Timely.weight(3));
    }

    @Test
    void patchedTimelyMovesTheRateByDeltaTimesOneMinusWeightAndTheWeightedError() {
        TimelyParameters p = new TimelyParameters(1, 0.008, 50 * US, 500 * US, 20 * US, 100_000_000, 500_000_000,
                5, 1_000_000_000, true, 50 * US, true);
        Timely cc = new Timely(p, LINE);
        sample(cc, 1, 100);
        sample(cc, 2, 100);                 // g 0: w 0.5; error (100 - 50)/50 = 1
        double rate = 100e6 * 0.5 + 100e9 * (1 - 0.008 * 0.5 * 1);
        close(rate, cc.rateBitsPerSecond(), "delta (1 - w) + rate (1 - beta w error)");
        sample(cc, 3, 110);                 // g 0.5: w 1; error 60/50
        rate = rate * (1 - 0.008 * 1 * 1.2);
        close(rate, cc.rateBitsPerSecond(), "w = 1: a pure decrease in proportion to the error");
        sample(cc, 4, 100);                 // g -0.5: w 0
        rate = rate + 100e6;
        close(rate, cc.rateBitsPerSecond(), "w = 0: a pure increase by delta");
        sample(cc, 5, 102);                 // g 0.1: w 0.7; error 52/50
        rate = 100e6 * 0.3 + rate * (1 - 0.008 * 0.7 * 1.04);
        close(rate, cc.rateBitsPerSecond(), "in between");
        sample(cc, 6, 40);
        rate += 100e6;
        close(rate, cc.rateBitsPerSecond(), "below T_low: + delta");
        sample(cc, 7, 600);
        rate *= 1 - 0.008 * (1 - 500.0 / 600);
        close(rate, cc.rateBitsPerSecond(), "above T_high: the same rule, with beta 0.008");
    }

    @Test
    void badParametersAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> hpccWithEwma(0, true));
        assertThrows(IllegalArgumentException.class, () -> new TimelyParameters(0.5, 0.8, 500, 50, 20, 1, 1, 5, 1,
                false, 1, true));
        assertThrows(IllegalArgumentException.class, () -> new TimelyParameters(0.5, 0.8, 50, 500, 20, 1, 1, 0, 1,
                false, 1, true));
        assertThrows(IllegalArgumentException.class, () -> new Timely(TimelyParameters.hpcc(LINE), 100_000_000));
    }
}
