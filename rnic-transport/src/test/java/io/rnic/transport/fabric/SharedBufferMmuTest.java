package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The shared-buffer MMU: the Choudhury–Hahne dynamic threshold, headroom, XOFF/XON hysteresis,
 * lossless admission and the lossy egress threshold. Expected values are worked out by hand in
 * each test from the rule it names, not read back from the MMU.
 */
class SharedBufferMmuTest {
    private static final int P3 = 3; // the lossless priority
    private static final int P0 = 0; // a lossy priority
    private static final long RESERVE = 4_096;
    private static final long RESUME_OFFSET = 3_072;
    private static final long G100 = 100_000_000_000L;

    /** A switch of {@code ports} ports, each with {@code headroom} per lossless priority; priority 3 lossless. */
    private static SharedBufferMmu mmu(long buffer, int ports, long headroom, double alphaIn, double alphaOut, long staticXoff) {
        long[] h = new long[ports];
        java.util.Arrays.fill(h, headroom);
        return new SharedBufferMmu(buffer, h, RESERVE, RESUME_OFFSET, alphaIn, alphaOut, staticXoff, 1 << P3);
    }

    @Test
    void theSharedPoolIsTheBufferLessEveryHeadroomAndEveryReserve() {
        // 4 ports x 50,000 B headroom x 1 lossless priority = 200,000; 4 ports x 8 priorities x 4,096 = 131,072.
        SharedBufferMmu m = mmu(2_000_000, 4, 50_000, 0.125, 1, 0);
        assertEquals(200_000, m.totalHeadroomBytes());
        assertEquals(131_072, m.totalReserveBytes());
        assertEquals(2_000_000 - 200_000 - 131_072, m.sharedPoolBytes());
        // Two lossless priorities carve two headrooms per port.
        SharedBufferMmu two = new SharedBufferMmu(2_000_000, new long[] {50_000, 50_000, 50_000, 50_000},
                RESERVE, RESUME_OFFSET, 0.125, 1, 0, 1 << 3 | 1 << 4);
        assertEquals(400_000, two.totalHeadroomBytes());
        assertEquals(2_000_000 - 400_000 - 131_072, two.sharedPoolBytes());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> mmu(300_000, 4, 50_000, 0.125, 1, 0));
        assertEquals("buffer 300000 B leaves no shared pool: it must hold the headroom (200000 B) and the reserves (131072 B) of 4 ports first", e.getMessage());
    }

    /**
     * Choudhury–Hahne: a queue may grow while it is below α(B − Q). One congested queue alone
     * (Q = q) settles where q = α(B − q), q = αB/(1 + α); with α = 1/8 that is B/9. The MMU's
     * packets are 100 B, so it stops within one packet above it.
     */
    @Test
    void oneCongestedQueueSettlesAtAlphaTimesThePoolOverOnePlusAlpha() {
        SharedBufferMmu m = mmu(2_000_000, 4, 50_000, 0.125, 1, 0);
        long pool = 2_000_000 - 200_000 - 131_072; // 1,668,928
        double settle = pool / 9.0; // 185,436.4
        int admittedToShared = 0;
        while (m.headroomInUse(0, P3) == 0) {
            assertTrue(m.admit(0, P3, 1, 100));
            admittedToShared++;
        }
        long q = m.sharedBytes(0, P3);
        assertTrue(q >= settle && q < settle + 100, "settled at " + q + ", B/9 = " + settle);
        assertEquals(RESERVE + q, m.ingressBytes(0, P3), "the reserve fills first");
        assertEquals((RESERVE + q) / 100 + 1, admittedToShared, "the next packet went to headroom");
        assertEquals((pool - q) / 8, m.xoffThreshold(), "threshold = alpha x (pool - shared in use), alpha = 1/8");
        assertTrue(m.shouldPause(0, P3, false));
    }

    /** With S congested queues each settles at αB/(1 + αS): two queues, α = 1/8, B/10 each. */
    @Test
    void twoCongestedQueuesEachSettleAtAlphaTimesThePoolOverOnePlusTwoAlpha() {
        SharedBufferMmu m = mmu(2_000_000, 4, 50_000, 0.125, 1, 0);
        long pool = 2_000_000 - 200_000 - 131_072;
        double settle = pool / 10.0; // 166,892.8
        while (m.headroomInUse(0, P3) == 0 || m.headroomInUse(1, P3) == 0) {
            for (int in = 0; in < 2; in++) {
                if (m.headroomInUse(in, P3) == 0) {
                    m.admit(in, P3, 2, 100);
                }
            }
        }
        for (int in = 0; in < 2; in++) {
            long q = m.sharedBytes(in, P3);
            assertTrue(Math.abs(q - settle) < 200, "queue " + in + " settled at " + q + ", B/10 = " + settle);
        }
    }

    /** 2 x delay x rate + 2 x max frame + 64 (the PAUSE frame) + response x rate, in bytes. */
    @Test
    void headroomIsTwiceTheDelayAtLineRatePlusTwoMaximumFramesPlusThePauseFrameAndTheResponse() {
        // 100G, 1 us: 2 x 12,500 = 25,000; 2 x 1,048 = 2,096; + 64.
        assertEquals(27_160, SharedBufferMmu.headroomBytes(1_000, G100, 1_048, 0));
        // + 500 ns of response at 100G: 6,250 more.
        assertEquals(33_410, SharedBufferMmu.headroomBytes(1_000, G100, 1_048, 500));
        // 400G, 1 us, 4,200 B frames: 100,000 + 8,400 + 64.
        assertEquals(108_464, SharedBufferMmu.headroomBytes(1_000, 400_000_000_000L, 4_200, 0));
        // 3 ns at 10G: 2 x 3 x 10 / 8 = 7.5 B, rounded up to 8; + 3,000 + 64.
        assertEquals(3_072, SharedBufferMmu.headroomBytes(3, 10_000_000_000L, 1_500, 0));
        assertEquals(33_464, FabricConfig.DEFAULT.headroomBytes(1_000, G100), "the default 4,200 B frame");
    }

    /**
     * XOFF when the shared bytes reach the threshold; XON only once no headroom is in use and
     * they are a resume offset (3,072 B) below it. Static threshold 45,904 B; 1,000 B packets
     * fill the 4,096 B reserve first, so after n packets the shared bytes are 1,000n − 4,096.
     */
    @Test
    void xoffAtTheThresholdAndXonOnlyAResumeOffsetBelowIt() {
        SharedBufferMmu m = mmu(2_000_000, 2, 50_000, 0.125, 1, 45_904);
        for (int n = 1; n <= 49; n++) {
            assertTrue(m.admit(0, P3, 1, 1_000));
            assertFalse(m.shouldPause(0, P3, false), "packet " + n);
        }
        assertTrue(m.admit(0, P3, 1, 1_000));
        assertEquals(45_904, m.sharedBytes(0, P3), "50 x 1,000 - 4,096");
        assertTrue(m.shouldPause(0, P3, false), "shared = threshold: XOFF");
        assertFalse(m.shouldPause(0, P3, true), "no second PAUSE while one is outstanding");
        assertFalse(m.shouldResume(0, P3, true));
        // XON needs shared + 3,072 <= 45,904, i.e. shared <= 42,832: four releases (41,904), not three (42,904).
        for (int r = 1; r <= 3; r++) {
            m.release(0, P3, 1, 1_000);
            assertFalse(m.shouldResume(0, P3, true), "after " + r + " releases, shared " + m.sharedBytes(0, P3));
        }
        m.release(0, P3, 1, 1_000);
        assertEquals(41_904, m.sharedBytes(0, P3));
        assertTrue(m.shouldResume(0, P3, true));
        assertFalse(m.shouldResume(0, P3, false), "nothing to resume without an outstanding PAUSE");
    }

    @Test
    void noXonWhileHeadroomIsInUseAndReleaseTakesHeadroomFirst() {
        SharedBufferMmu m = mmu(2_000_000, 2, 50_000, 0.125, 1, 45_904);
        for (int n = 1; n <= 52; n++) {
            assertTrue(m.admit(0, P3, 1, 1_000));
        }
        assertEquals(45_904, m.sharedBytes(0, P3));
        assertEquals(2_000, m.headroomInUse(0, P3), "packets 51 and 52 arrived after the threshold");
        assertTrue(m.shouldPause(0, P3, false));
        m.release(0, P3, 1, 1_000);
        assertEquals(1_000, m.headroomInUse(0, P3), "headroom released first");
        assertEquals(45_904, m.sharedBytes(0, P3));
        for (int r = 0; r < 10; r++) {
            m.release(0, P3, 1, 1_000);
            if (r == 0) {
                assertEquals(0, m.headroomInUse(0, P3));
            }
        }
        assertTrue(m.shouldResume(0, P3, true));
        assertEquals(RESERVE + 45_904 - 9_000, m.ingressBytes(0, P3));
        assertEquals(m.ingressBytes(0, P3), m.usedBytes());
    }

    /**
     * The worst case for headroom: the upstream sends maximum frames back to back at line rate,
     * the egress never drains, and the switch decides to pause on the arrival of frame k. The
     * PAUSE waits behind a whole maximum frame the switch has just begun sending upstream, takes
     * 64 B of time itself, crosses the link (delay), and the upstream stops after its response
     * time, finishing the frame it has begun. Every frame the upstream began before then
     * arrives. Over many link delays (so every phase of the frame train against the PAUSE is
     * met), the computed headroom absorbs them all, and is tight to within one frame.
     */
    @Test
    void aLosslessPriorityWithTheComputedHeadroomDropsNothingWhenTheUpstreamSendsUntilThePauseTakesEffect() {
        int frame = 1_000;
        long rate = G100;
        long serPs = frame * 8L * 1_000_000_000_000L / rate; // 80,000 ps
        long pausePs = 64 * 8L * 1_000_000_000_000L / rate; // 5,120 ps
        int cases = 0;
        for (long responseNs : new long[] {0, 300}) {
            for (long delayNs = 0; delayNs <= 2_000; delayNs += 7) {
                long headroom = SharedBufferMmu.headroomBytes(delayNs, rate, frame, responseNs);
                SharedBufferMmu m = mmu(32L << 20, 2, headroom, 0.125, 1, 0);
                long stopPs = Long.MAX_VALUE; // when the upstream stops starting frames
                long afterDecision = 0;
                boolean decided = false;
                for (long i = 0; i * serPs < stopPs; i++) {
                    // Frame i starts at i x ser and has fully arrived at i x ser + ser + delay.
                    long arrivedPs = i * serPs + serPs + delayNs * 1_000;
                    assertTrue(m.admit(0, P3, 1, frame), "delay " + delayNs + " ns: frame " + i + " dropped");
                    if (decided) {
                        afterDecision += frame;
                    } else if (m.shouldPause(0, P3, false)) {
                        decided = true;
                        stopPs = arrivedPs + serPs + pausePs + delayNs * 1_000 + responseNs * 1_000;
                    }
                }
                assertTrue(decided);
                assertEquals(0, m.headroomOverflows());
                assertEquals(afterDecision, m.headroomInUse(0, P3), "everything after the decision is in headroom");
                assertTrue(afterDecision <= headroom, afterDecision + " > " + headroom);
                assertTrue(afterDecision >= headroom - frame, "tight to one frame: " + afterDecision + " vs " + headroom);
                cases++;
            }
        }
        assertEquals(2 * 286, cases);
    }

    @Test
    void aTooSmallHeadroomOverflowsAndIsCountedApartFromLossyDrops() {
        SharedBufferMmu m = mmu(2_000_000, 2, 2_500, 0.125, 1, 45_904);
        int admitted = 0;
        for (int n = 0; n < 60; n++) {
            if (m.admit(0, P3, 1, 1_000)) {
                admitted++;
            }
        }
        assertEquals(50 + 2, admitted, "50 packets to the reserve and shared, 2 fit 2,500 B of headroom");
        assertEquals(8, m.headroomOverflows());
        assertEquals(8, m.headroomOverflows(0, P3));
        assertEquals(0, m.lossyDrops());
    }

    /**
     * Lossy egress dynamic threshold, α_out = 1: a packet is admitted while q + size ≤
     * α(B' − held), B' = the buffer outside the headroom (1,100,000 − 2 × 50,000 = 1,000,000).
     * One queue of 1,000 B packets, held = q: q + 1,000 ≤ 1,000,000 − q ⇔ q ≤ 499,500, so 500
     * packets are admitted (q = 500,000) and the 501st is dropped. With α = 1/2: q ≤ 332,666,
     * 333 packets.
     */
    @Test
    void aLossyQueueIsTailDroppedAtTheEgressDynamicThreshold() {
        SharedBufferMmu m = mmu(1_100_000, 2, 50_000, 0.125, 1.0, 0);
        int admitted = 0;
        for (int n = 0; n < 600; n++) {
            if (m.admit(0, P0, 1, 1_000)) {
                admitted++;
            } else {
                break;
            }
        }
        assertEquals(500, admitted);
        assertEquals(500_000, m.egressBytes(1, P0));
        assertEquals(1, m.lossyDrops(1, P0));
        assertEquals(0, m.headroomInUse(0, P0), "lossy traffic never enters headroom");
        assertFalse(m.shouldPause(0, P0, false), "a lossy priority never pauses");

        SharedBufferMmu half = mmu(1_100_000, 2, 50_000, 0.125, 0.5, 0);
        admitted = 0;
        while (half.admit(0, P0, 1, 1_000)) {
            admitted++;
        }
        assertEquals(333, admitted);
    }

    /** Two lossy queues with α = 1 each settle at αB'/(1 + 2α) = B'/3. */
    @Test
    void twoLossyQueuesEachSettleAtAThirdOfTheBufferOutsideHeadroom() {
        SharedBufferMmu m = mmu(1_100_000, 3, 33_333, 0.125, 1.0, 0);
        long outside = 1_100_000 - 3 * 33_333; // B' = 1,000,001: each queue settles near 333,334
        boolean[] full = new boolean[2];
        while (!full[0] || !full[1]) {
            for (int out = 0; out < 2; out++) {
                if (!full[out] && !m.admit(2, P0, out, 100)) {
                    full[out] = true;
                }
            }
        }
        for (int out = 0; out < 2; out++) {
            long q = m.egressBytes(out, P0);
            assertTrue(Math.abs(q - outside / 3.0) < 200, "queue " + out + ": " + q + " vs " + outside / 3.0);
        }
    }

    @Test
    void lossyBytesShrinkThePoolThePfcThresholdIsComputedFrom() {
        SharedBufferMmu m = mmu(2_000_000, 4, 50_000, 0.125, 1, 0);
        long pool = m.sharedPoolBytes();
        assertEquals(pool / 8, m.xoffThreshold());
        for (int n = 0; n < 100; n++) {
            assertTrue(m.admit(2, P0, 3, 1_000));
        }
        long lossyShared = 100_000 - RESERVE;
        assertEquals(lossyShared, m.sharedUsed());
        assertEquals((pool - lossyShared) / 8, m.xoffThreshold());
    }

    @Test
    void releasingBytesThatWereNotAdmittedIsAnAccountingError() {
        SharedBufferMmu m = mmu(2_000_000, 2, 50_000, 0.125, 1, 0);
        m.admit(0, P3, 1, 1_000);
        assertThrows(IllegalStateException.class, () -> m.release(0, P3, 1, 2_000));
        assertThrows(IllegalStateException.class, () -> m.release(1, P3, 0, 1_000));
        assertThrows(IllegalArgumentException.class, () -> m.admit(0, 8, 1, 1_000));
        assertThrows(IllegalArgumentException.class, () -> m.admit(0, P3, 1, 0));
    }

    @Test
    void admitAndReleaseAllocateNothing() {
        SharedBufferMmu m = mmu(32L << 20, 4, 50_000, 0.125, 1, 0);
        boolean[] sink = new boolean[1];
        Allocations.assertNonePerCall(100_000, () -> {
            if (m.admit(1, P3, 2, 1_048)) {
                sink[0] ^= m.shouldPause(1, P3, false);
                m.release(1, P3, 2, 1_048);
                sink[0] ^= m.shouldResume(1, P3, true);
            }
            if (m.admit(0, P0, 3, 64)) {
                m.release(0, P0, 3, 64);
            }
        });
        assertEquals(0, m.usedBytes());
    }
}
