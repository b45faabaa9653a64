package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The fabric's parameters: each default is the value its source gives. */
class FabricConfigTest {
    private final FabricConfig d = FabricConfig.DEFAULT;

    @Test
    void theSwitchBufferDefaultsAreHpccs() {
        assertEquals(32L * 1024 * 1024, d.bufferBytes(), "mix/config.txt BUFFER_SIZE 32, x 1024 x 1024");
        assertEquals(1.0 / 8, d.alphaIn(), "third.cc pfc_a_shift 3");
        assertEquals(4_096, d.reserveBytes(), "switch-mmu.cc reserve = 4 * 1024");
        assertEquals(3_072, d.resumeOffsetBytes(), "switch-mmu.cc resume_offset = 3 * 1024");
        assertEquals(0, d.staticXoffBytes(), "HPCC always uses the dynamic threshold");
        assertEquals(1.0, d.alphaOut(), "ConWeave EgressAlpha");
    }

    @Test
    void ecnDefaultsToHpccsMarkingAtDequeueWithItsThresholds() {
        assertTrue(d.ecnEnabled());
        assertTrue(d.ecnMarkOnDequeue());
        assertSame(EcnThresholds.defaults(), d.ecnThresholds());
        assertEquals(400_000, d.ecnThresholds().kminBytes(100_000_000_000L));
    }

    @Test
    void pfcDefaultsToOneLosslessPriorityThreeWithTheLongestPause() {
        assertTrue(d.pfcEnabled());
        assertEquals(1 << 3, d.losslessMask());
        assertTrue(d.isLossless(3));
        assertFalse(d.isLossless(0));
        assertEquals(0xFFFF, d.pauseQuanta());
        assertEquals(4_200, d.maxFrameBytes());
        assertEquals(0, d.pfcResponseNanos());
        assertFalse(d.pfcWatchdogEnabled());
        assertEquals(200_000_000L, d.pfcWatchdogDetectNanos(), "Junos: two 100 ms polls");
        assertEquals(200_000_000L, d.pfcWatchdogRecoveryNanos(), "Junos recovery time");
        FabricConfig off = d.withPfc(false);
        assertFalse(off.isLossless(3), "PFC off: every priority is lossy");
        assertEquals(0, off.effectiveLosslessMask());
        assertEquals(1 << 3, off.losslessMask(), "the configured set is kept for when PFC is on again");
    }

    @Test
    void forwardingDefaultsToStrictPriorityNoDelayAndFlowEcmpSeededByNodeId() {
        assertEquals(FabricConfig.Scheduling.STRICT, d.scheduling());
        assertArrayEquals(new int[] {1, 1, 1, 1, 1, 1, 1, 1}, d.dwrrWeights());
        assertEquals(4_200, d.dwrrQuantumBytes());
        assertEquals(0, d.forwardingDelayNanos());
        assertEquals(320, d.switchEcmpSeed(320), "HPCC seeds each switch with its node id");
        assertEquals(1_320, d.withEcmpSeed(1_000).switchEcmpSeed(320));
        assertFalse(d.sprayPerPacket());
        assertEquals(100_000, d.linkFailureConvergenceNanos());
    }

    /** Class selector convention: priority = DSCP >> 3. */
    @Test
    void dscpMapsToPriorityByClassSelector() {
        assertEquals(3, d.priorityOfDscp(26), "AF31, RoCE data");
        assertEquals(6, d.priorityOfDscp(48), "CS6, CNPs");
        assertEquals(0, d.priorityOfDscp(0));
        assertEquals(7, d.priorityOfDscp(63));
        assertEquals(3, d.priorityOfDscp(24), "CS3");
        FabricConfig c = d.withDscpPriority(48, 7);
        assertEquals(7, c.priorityOfDscp(48));
        assertEquals(6, d.priorityOfDscp(48), "the default is unchanged");
        assertEquals(64, d.dscpToPriority().length);
        assertEquals(7, d.controlPriority());
        assertThrows(IllegalArgumentException.class, () -> d.priorityOfDscp(64));
        assertThrows(IllegalArgumentException.class, () -> d.withDscpPriority(1, 8));
    }

    /** TOS = DSCP << 2 | ECN: DSCP 26 with ECT(0) (0b10) is 106; without ECN, 104. */
    @Test
    void hostsSendDscp26WithEct0SoTheTosByteIs106() {
        assertEquals(26, d.hostDscp());
        assertTrue(d.hostsSendEct());
        assertEquals(106, d.hostTos());
        assertEquals(104, d.withEcn(false).hostTos(), "no ECN: Not-ECT");
        assertEquals(104, d.withHostsSendEct(false).hostTos());
        assertEquals(0, d.withHostDscp(0).withEcn(false).hostTos());
    }

    @Test
    void theHeadroomFollowsTheConfiguredFrameAndResponse() {
        // 100G, 1 us: 25,000 + 2 x 4,200 + 64.
        assertEquals(33_464, d.headroomBytes(1_000, 100_000_000_000L));
        // 1,500 B frames and 1 us of response: 2 us and 1 us at 100G = 37,500; + 3,000 + 64.
        assertEquals(40_564, d.withMaxFrameBytes(1_500).withPfcResponseNanos(1_000).headroomBytes(1_000, 100_000_000_000L));
    }

    @Test
    void thePartsAreMadeFromTheConfiguration() {
        long h = d.headroomBytes(1_000, 100_000_000_000L);
        SharedBufferMmu mmu = d.newMmu(new long[] {h, h, h, h});
        assertEquals(32L * 1024 * 1024 - 4 * h - 4 * 8 * 4_096, mmu.sharedPoolBytes());
        assertTrue(mmu.isLossless(3));
        SharedBufferMmu lossy = d.withPfc(false).newMmu(new long[] {h, h, h, h});
        assertEquals(0, lossy.totalHeadroomBytes(), "no lossless priority, no headroom carved");
        assertFalse(d.newScheduler().isDwrr());
        EgressScheduler dwrr = d.withDwrr(new int[] {1, 1, 1, 1, 1, 1, 1, 1}, 1_500).newScheduler();
        assertTrue(dwrr.isDwrr());
        assertEquals(7, dwrr.next(0xFF, 0, new int[] {64, 64, 64, 64, 64, 64, 64, 64}), "the control priority is strict under DWRR");
        assertNull(d.newWatchdog());
        assertEquals(5_000, d.withPfcWatchdog(5_000, 7_000).newWatchdog().detectNanos());
        PauseState ps = d.newPauseState();
        ps.apply(1 | 1 << 3, new int[] {9, 0, 0, 9, 0, 0, 0, 0}, 0, 100_000_000_000L);
        assertTrue(ps.isPaused(3, 1));
        assertFalse(ps.isPaused(0, 1), "a lossy priority does not honour PAUSE");
    }

    @Test
    void eachWithReturnsAValidatedCopyAndLeavesTheOriginal() {
        FabricConfig c = d.withBufferBytes(9L << 20).withAlphaIn(1.0 / 16).withLosslessPriorities(3, 4);
        assertEquals(9L << 20, c.bufferBytes());
        assertEquals(1.0 / 16, c.alphaIn());
        assertEquals(1 << 3 | 1 << 4, c.losslessMask());
        assertEquals(32L << 20, d.bufferBytes());
        assertEquals(c, d.withBufferBytes(9L << 20).withAlphaIn(1.0 / 16).withLosslessPriorities(3, 4));
        assertNotEquals(c, d);
        assertTrue(d.toString().contains("buffer=33554432B"), d.toString());
    }

    @Test
    void impossibleValuesAreRejectedSayingWhich() {
        assertEquals("switch buffer 0 B must be positive",
                assertThrows(IllegalArgumentException.class, () -> d.withBufferBytes(0)).getMessage());
        assertEquals("PAUSE quanta 0 must be 1..65535 (0 would be a RESUME)",
                assertThrows(IllegalArgumentException.class, () -> d.withPauseQuanta(0)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> d.withAlphaIn(0));
        assertThrows(IllegalArgumentException.class, () -> d.withAlphaOut(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> d.withLosslessPriorities(8));
        assertThrows(IllegalArgumentException.class, () -> d.withControlPriority(8));
        assertThrows(IllegalArgumentException.class, () -> d.withHostDscp(64));
        assertThrows(IllegalArgumentException.class, () -> d.withMaxFrameBytes(63));
        assertThrows(IllegalArgumentException.class, () -> d.withPfcWatchdog(0, 1));
        assertThrows(IllegalArgumentException.class, () -> d.withDwrr(new int[] {1, 1, 1, 0, 1, 1, 1, 1}, 1_500));
        assertThrows(IllegalArgumentException.class, () -> d.withLinkFailureConvergenceNanos(-1));
        assertThrows(NullPointerException.class, () -> d.withEcnThresholds(null));
    }
}
