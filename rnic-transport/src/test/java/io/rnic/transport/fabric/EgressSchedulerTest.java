package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Strict priority and DWRR over a port's eight queues. */
class EgressSchedulerTest {
    private static final int MAX_PACKET = 1_500;

    @Test
    void strictPriorityServesTheHighestNonEmptyUnpausedQueue() {
        EgressScheduler s = EgressScheduler.strictPriority();
        int[] heads = new int[8];
        int backlogged = 1 << 7 | 1 << 5 | 1 << 3 | 1;
        assertEquals(7, s.next(backlogged, 0, heads));
        assertEquals(5, s.next(backlogged, 1 << 7, heads), "7 is paused");
        assertEquals(3, s.next(backlogged, 1 << 7 | 1 << 5, heads));
        assertEquals(0, s.next(backlogged, 1 << 7 | 1 << 5 | 1 << 3, heads));
        assertEquals(-1, s.next(backlogged, backlogged, heads), "all paused");
        assertEquals(-1, s.next(0, 0, heads), "all empty");
        assertEquals(6, s.next(1 << 6 | 1 << 2, 0, heads));
    }

    /** Serves {@code picks} packets from always-backlogged queues in {@code active}, sizes 64..1500 from a seed; returns bytes per queue. */
    private static long[] serve(EgressScheduler s, int active, int pausedMask, int picks, SplittableRandom r, int[] heads) {
        long[] bytes = new long[8];
        for (int q = 0; q < 8; q++) {
            if (heads[q] == 0) {
                heads[q] = r.nextInt(64, MAX_PACKET + 1);
            }
        }
        for (int i = 0; i < picks; i++) {
            int q = s.next(active, pausedMask, heads);
            assertTrue(q >= 0 && (active >>> q & 1) == 1 && (pausedMask >>> q & 1) == 0, "picked " + q);
            bytes[q] += heads[q];
            heads[q] = r.nextInt(64, MAX_PACKET + 1);
        }
        return bytes;
    }

    /**
     * DRR's bound: queue i has had n or n+1 quanta Q_i and holds a deficit below Q_i plus one
     * packet, so over any backlogged stretch its bytes are within 2 Q_i + k x maxPacket (k
     * queues) of B x w_i / sum(w). Weights 1 : 2 : 5 at 1,500 B per weight, mixed sizes 64..1500.
     */
    @Test
    void dwrrByteSharesConvergeToTheWeightRatio() {
        int[] weights = {1, 2, 5, 1, 1, 1, 1, 1};
        int quantum = 1_500;
        EgressScheduler s = EgressScheduler.dwrr(weights, quantum, 1 << 7);
        int active = 0b111;
        long[] bytes = serve(s, active, 0, 300_000, new SplittableRandom(3), new int[8]);
        long total = bytes[0] + bytes[1] + bytes[2];
        for (int q = 0; q < 3; q++) {
            double share = total * weights[q] / 8.0;
            double bound = 2.0 * weights[q] * quantum + 3 * MAX_PACKET;
            assertTrue(Math.abs(bytes[q] - share) <= bound,
                    "queue " + q + ": " + bytes[q] + " B vs " + share + " (bound " + bound + ", total " + total + ")");
        }
    }

    @Test
    void aPausedQueueIsSkippedAndThenTakesItsShareAgain() {
        int[] weights = {1, 1, 1, 1, 1, 1, 1, 1};
        EgressScheduler s = EgressScheduler.dwrr(weights, MAX_PACKET, 0);
        SplittableRandom r = new SplittableRandom(9);
        int[] heads = new int[8];
        long[] paused = serve(s, 0b11, 0b10, 10_000, r, heads);
        assertEquals(0, paused[1], "queue 1 sends nothing while paused");
        long[] after = serve(s, 0b11, 0, 100_000, r, heads);
        long total = after[0] + after[1];
        for (int q = 0; q < 2; q++) {
            assertTrue(Math.abs(after[q] - total / 2.0) <= 2.0 * MAX_PACKET /* 2 Q */ + 2 * MAX_PACKET /* k = 2 packets */, "queue " + q + ": " + after[q] + " of " + total);
        }
    }

    @Test
    void anEmptyQueueEarnsNoCreditWhileIdle() {
        int[] weights = {1, 1, 1, 1, 1, 1, 1, 1};
        EgressScheduler s = EgressScheduler.dwrr(weights, 1_000, 0);
        int[] heads = new int[8];
        heads[1] = 100;
        for (int i = 0; i < 1_000; i++) {
            assertEquals(1, s.next(0b10, 0, heads), "only queue 1 has packets");
        }
        assertEquals(0, s.deficit(0), "queue 0 was visited empty and kept nothing");
        // Both backlogged with 100 B packets: queue 0 gets no burst, only its 10-packet turns.
        heads[0] = 100;
        int run = 0;
        int longest = 0;
        for (int i = 0; i < 1_000; i++) {
            int q = s.next(0b11, 0, heads);
            run = q == 0 ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        assertEquals(10, longest, "a turn of queue 0 is one quantum: 1,000 B = 10 packets");
    }

    @Test
    void strictPrioritiesAreServedBeforeTheDwrrQueues() {
        EgressScheduler s = EgressScheduler.dwrr(new int[] {1, 1, 1, 1, 1, 1, 1, 1}, MAX_PACKET, 1 << 7);
        int[] heads = {100, 100, 100, 100, 100, 100, 100, 100};
        assertEquals(7, s.next(0xFF, 0, heads));
        assertEquals(7, s.next(0xFF, 0, heads));
        int q = s.next(0x7F, 0, heads);
        assertTrue(q >= 0 && q < 7);
        assertEquals(-1, s.next(0x80, 0x80, heads), "a paused strict queue is skipped too");
    }

    @Test
    void badWeightsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> EgressScheduler.dwrr(new int[7], 1, 0));
        assertThrows(IllegalArgumentException.class, () -> EgressScheduler.dwrr(new int[8], 1, 0), "weight 0");
        assertThrows(IllegalArgumentException.class, () -> EgressScheduler.dwrr(new int[] {1, 1, 1, 1, 1, 1, 1, 1}, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> EgressScheduler.dwrr(new int[] {1, 1, 1, 1, 1, 1, 1, 1}, 1, 0x100));
    }

    @Test
    void pickingAQueueAllocatesNothing() {
        EgressScheduler s = EgressScheduler.dwrr(new int[] {1, 2, 3, 4, 1, 1, 1, 1}, MAX_PACKET, 1 << 7);
        int[] heads = {64, 1500, 700, 1000, 64, 64, 64, 64};
        int[] sink = new int[1];
        Allocations.assertNonePerCall(200_000, () -> sink[0] += s.next(0x0F, sink[0] & 1, heads));
    }
}
