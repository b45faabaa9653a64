package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What received PFC frames do to an egress port (IEEE 802.1Qbb), and the PFC watchdog. */
class PauseStateTest {
    private static final long G100 = 100_000_000_000L;
    /** 65,535 quanta at 100 Gb/s: 65,535 x 5.12 ns = 335,539.2 ns, rounded up. */
    private static final long MAX_PAUSE_100G = 335_540;
    private static final int P3 = 3;

    private static int[] quanta(int p, int q) {
        int[] a = new int[8];
        a[p] = q;
        return a;
    }

    @Test
    void aPauseLastsItsQuantaAtTheLinkRate() {
        PauseState s = new PauseState(1 << P3);
        s.apply(1 << P3, quanta(P3, 0xFFFF), 1_000, G100);
        assertTrue(s.isPaused(P3, 1_000));
        assertTrue(s.isPaused(P3, 1_000 + MAX_PAUSE_100G - 1));
        assertFalse(s.isPaused(P3, 1_000 + MAX_PAUSE_100G));
        assertEquals(1 << P3, s.pausedMask(2_000));
        assertEquals(1_000 + MAX_PAUSE_100G, s.nextExpiry(2_000));
        assertFalse(s.isPaused(2, 2_000), "only the enabled priority");
        assertEquals(1, s.pausesReceived(P3));
    }

    @Test
    void aLostResumeCannotStallThePortForeverBecauseTheQuantaExpire() {
        PauseState s = new PauseState(1 << P3);
        s.apply(1 << P3, quanta(P3, 0xFFFF), 0, G100); // the RESUME that should follow is lost
        assertFalse(s.isPaused(P3, MAX_PAUSE_100G));
        assertEquals(0, s.pausedMask(1_000_000_000L));
        assertEquals(Long.MAX_VALUE, s.nextExpiry(MAX_PAUSE_100G), "nothing left to expire");
        assertEquals(MAX_PAUSE_100G, s.pausedNanos(P3, 1_000_000_000L), "paused exactly one maximum pause");
    }

    @Test
    void zeroQuantaResumeAtOnce() {
        PauseState s = new PauseState(1 << P3);
        s.apply(1 << P3, quanta(P3, 0xFFFF), 0, G100);
        s.apply(1 << P3, quanta(P3, 0), 10_000, G100);
        assertFalse(s.isPaused(P3, 10_000));
        assertEquals(10_000, s.pausedNanos(P3, 50_000));
        assertEquals(1, s.resumesReceived(P3));
        s.apply(1 << P3, quanta(P3, 0), 60_000, G100);
        assertEquals(10_000, s.pausedNanos(P3, 70_000), "a RESUME when not paused changes nothing");
        assertEquals(2, s.resumesReceived(P3));
    }

    /** 802.1Qbb: a new pause time replaces the running timer, shortening as well as extending it. */
    @Test
    void aNewPauseTimeReplacesTheRunningTimer() {
        PauseState s = new PauseState(1 << P3);
        s.apply(1 << P3, quanta(P3, 0xFFFF), 0, G100);
        s.apply(1 << P3, quanta(P3, 1_000), 100_000, G100); // 1,000 x 5.12 = 5,120 ns
        assertEquals(105_120, s.nextExpiry(100_000));
        assertEquals(0, s.pausedSince(P3, 100_000), "one pause, refreshed");
        s.apply(1 << P3, quanta(P3, 0xFFFF), 105_000, G100);
        assertEquals(105_000 + MAX_PAUSE_100G, s.nextExpiry(105_000), "and extended");
        assertEquals(0, s.pausedSince(P3, 105_000));
        assertEquals(3, s.pausesReceived(P3));
    }

    /** Paused time is weighted by time: [0, 5,120) + [10,000, 20,000) + [30,000, 31,000 read) = 16,120 ns. */
    @Test
    void pausedTimeIsTheExactSumOfThePauseIntervals() {
        PauseState s = new PauseState(1 << P3);
        s.apply(1 << P3, quanta(P3, 1_000), 0, G100); // expires at 5,120
        s.apply(1 << P3, quanta(P3, 0xFFFF), 10_000, G100);
        s.apply(1 << P3, quanta(P3, 0), 20_000, G100);
        s.apply(1 << P3, quanta(P3, 0xFFFF), 30_000, G100);
        assertEquals(5_120 + 10_000 + 1_000, s.pausedNanos(P3, 31_000));
        assertEquals(5_120 + 10_000 + MAX_PAUSE_100G, s.pausedNanos(P3, 10_000_000));
        assertEquals(30_000, s.pausedSince(P3, 31_000));
        assertEquals(-1, s.pausedSince(P3, 30_000 + MAX_PAUSE_100G));
    }

    @Test
    void aLossyPriorityNeitherHonoursPauseNorCountsItAsPaused() {
        PauseState s = new PauseState(1 << P3);
        int[] q = new int[8];
        q[0] = 0xFFFF;
        q[P3] = 0xFFFF;
        s.apply(1 | 1 << P3, q, 0, G100);
        assertFalse(s.isPaused(0, 1));
        assertTrue(s.isPaused(P3, 1));
        assertEquals(1, s.ignoredFrames(0));
        assertEquals(0, s.pausesReceived(0));
        assertEquals(0, s.pausedNanos(0, 1_000));
    }

    @Test
    void theEarliestExpiryAmongPrioritiesIsNext() {
        PauseState s = new PauseState(0xFF);
        int[] q = new int[8];
        q[1] = 100; // 512 ns
        q[5] = 10; // 51.2 -> 52 ns
        s.apply(1 << 1 | 1 << 5, q, 1_000, G100);
        assertEquals(1_052, s.nextExpiry(1_000));
        assertEquals(1_512, s.nextExpiry(1_052));
        assertEquals(1 << 1, s.pausedMask(1_052));
    }

    @Test
    void timeRunningBackwardsIsRejected() {
        PauseState s = new PauseState(1 << P3);
        s.apply(1 << P3, quanta(P3, 1), 100, G100);
        assertThrows(IllegalArgumentException.class, () -> s.apply(1 << P3, quanta(P3, 1), 99, G100));
        assertThrows(IllegalArgumentException.class, () -> new PauseState(0x100));
    }

    @Test
    void applyingFramesAllocatesNothing() {
        PauseState s = new PauseState(1 << P3);
        int[] pause = quanta(P3, 0xFFFF);
        int[] resume = quanta(P3, 0);
        long[] now = {0};
        Allocations.assertNonePerCall(100_000, () -> {
            now[0] += 1_000;
            s.apply(1 << P3, (now[0] & 1_000) == 0 ? pause : resume, now[0], G100);
            now[0] += s.pausedMask(now[0]);
        });
    }

    // ---------------------------------------------------------------------------------------
    // The PFC watchdog

    /**
     * A storm: the downstream refreshes PAUSE every 100 us (before the 335.5 us pause expires),
     * so priority 3 is paused without a break from t = 0. With detection T = 1 ms and recovery
     * 2 ms: honoured until 1 ms, mitigating (ignoring PAUSE, dropping) from 1 ms to 3 ms, honoured
     * again at 3 ms, detected again at 4 ms.
     */
    @Test
    void aQueuePausedLongerThanTheDetectionTimeStopsHonouringPauseForTheRecoveryTime() {
        long t = 1_000_000;
        long recovery = 2_000_000;
        PauseState s = new PauseState(1 << P3);
        PfcWatchdog w = new PfcWatchdog(t, recovery);
        boolean[] mitigating = new boolean[60];
        for (int step = 0; step < 60; step++) {
            long now = step * 100_000L;
            s.apply(1 << P3, quanta(P3, 0xFFFF), now, G100);
            mitigating[step] = w.update(P3, s.pausedSince(P3, now), now);
        }
        for (int step = 0; step < 60; step++) {
            long now = step * 100_000L;
            boolean expected = (now >= 1_000_000 && now < 3_000_000) || now >= 4_000_000;
            assertEquals(expected, mitigating[step], "at " + now + " ns");
        }
        assertEquals(2, w.stormsDetected(P3));
        assertEquals(6_000_000, w.nextDeadline(P3, s.pausedSince(P3, 5_900_000)), "the second mitigation ends at 6 ms");
    }

    @Test
    void thePauseStateSaysExactlyWhenTheWatchdogNextActs() {
        PfcWatchdog w = new PfcWatchdog(1_000_000, 2_000_000);
        assertEquals(Long.MAX_VALUE, w.nextDeadline(P3, -1), "not paused: nothing pending");
        assertEquals(1_250_000, w.nextDeadline(P3, 250_000), "a pause since 250 us becomes a storm at 1.25 ms");
        assertFalse(w.update(P3, 250_000, 1_249_999));
        assertTrue(w.update(P3, 250_000, 1_250_000));
        assertEquals(3_250_000, w.nextDeadline(P3, 250_000));
        assertTrue(w.isMitigating(P3, 3_249_999));
        assertFalse(w.update(P3, -1, 3_250_000), "restored; the storm has stopped");
        assertFalse(w.isMitigating(P3, 3_250_000));
    }

    @Test
    void aPauseShorterThanTheDetectionTimeIsNoStorm() {
        PfcWatchdog w = new PfcWatchdog(1_000_000, 2_000_000);
        assertFalse(w.update(P3, 0, 999_999));
        assertFalse(w.update(P3, -1, 1_500_000), "the pause ended");
        assertFalse(w.update(P3, 1_600_000, 2_500_000), "a new pause starts the count again");
        assertEquals(0, w.stormsDetected(P3));
    }

    @Test
    void detectionIsExactInVirtualTimeEvenIfTheCallerLooksLate() {
        PfcWatchdog w = new PfcWatchdog(1_000_000, 2_000_000);
        assertTrue(w.update(P3, 0, 2_500_000));
        assertEquals(3_000_000, w.nextDeadline(P3, 0), "the storm began at 1 ms, so recovery ends at 3 ms");
        w.countDrop(P3);
        w.countDrop(P3);
        assertEquals(2, w.drops(P3));
        assertThrows(IllegalArgumentException.class, () -> new PfcWatchdog(0, 1));
    }
}
