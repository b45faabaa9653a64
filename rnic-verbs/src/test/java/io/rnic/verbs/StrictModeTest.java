package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Strict mode ({@link DeviceConfig#strict()}): where the specification leaves a choice open, the
 * device chooses at random, from the simulated network's seed, so an application that relies on
 * rnic's ordinary choice fails in its tests and the failure replays.
 */
class StrictModeTest {
    private static final int N = 16;

    /** The wr_ids of N receives posted to an SRQ in order 0..N-1, in the order N SENDs consumed them. */
    private static List<Long> srqOrder(long seed, DeviceConfig config) {
        try (SimPair s = new SimPair(seed, config)) {
            SharedReceiveQueue srq = s.pdB.createSrq(N, 1, 0);
            QueuePair a = s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA));
            QueuePair b = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB).withSrq(srq));
            Connections.connectPair(a, s.mrA, 1, b, s.mrB, 2, RcOptions.defaults());
            for (int i = 0; i < N; i++) {
                srq.postRecv(s.recvB(i, i * 64, 64));
            }
            for (int i = 0; i < N; i++) {
                a.postSend(s.sendA(100 + i, 0, 64));
            }
            return s.await(s.cqB, N).stream().map(WorkCompletion::wrId).collect(Collectors.toList());
        }
    }

    @Test
    void aSharedReceiveQueueHandsOutAnyPostedWqeNotTheOldest() {
        List<Long> posted = LongStream.range(0, N).boxed().collect(Collectors.toList());
        // rnic's ordinary choice: posting order (an application may not rely on it: IBA 10.8.3.2).
        assertEquals(posted, srqOrder(1, DeviceConfig.defaults()));
        List<Long> strict = srqOrder(1, DeviceConfig.defaults().strict());
        assertNotEquals(posted, strict, "strict mode took the WQEs in posting order");
        assertEquals(posted, strict.stream().sorted().collect(Collectors.toList()), "each WQE exactly once");
        assertEquals(strict, srqOrder(1, DeviceConfig.defaults().strict()), "the same seed, the same order");
        assertNotEquals(strict, srqOrder(2, DeviceConfig.defaults().strict()), "another seed, another order");
    }

    /** The flushed completions of N receives posted to a QP moved to ERR. */
    private static List<WorkCompletion> flushed(long seed, DeviceConfig config) {
        try (SimPair s = new SimPair(seed, config)) {
            QueuePair b = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB));
            b.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
            for (int i = 0; i < N; i++) {
                b.postRecv(s.recvB(i, 0, 64));
            }
            b.modify(new QpAttributes().state(QpState.ERR));
            List<WorkCompletion> wcs = s.drain(s.cqB);
            assertEquals(N, wcs.size());
            for (int i = 0; i < N; i++) { // what ibv_poll_cq(3) defines of an error completion stays right
                assertEquals(i, wcs.get(i).wrId());
                assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(i).status());
                assertEquals(b.qpn(), wcs.get(i).qpNum());
                assertEquals(0, wcs.get(i).vendorErr());
            }
            return wcs;
        }
    }

    private static String undefinedFields(WorkCompletion wc) {
        return wc.opcode() + "/" + wc.byteLen() + "/" + wc.immData() + "/" + wc.srcQp() + "/" + wc.wcFlags();
    }

    @Test
    void anErrorCompletionsUndefinedFieldsHoldRandomValues() {
        List<String> ordinary = flushed(3, DeviceConfig.defaults()).stream().map(StrictModeTest::undefinedFields)
                .collect(Collectors.toList());
        ordinary.forEach(f -> assertEquals("RECV/0/0/0/0", f));
        List<String> strict = flushed(3, DeviceConfig.defaults().strict()).stream()
                .map(StrictModeTest::undefinedFields).collect(Collectors.toList());
        assertTrue(strict.stream().distinct().count() > N / 2, "random, not constant: " + strict);
        assertTrue(strict.stream().noneMatch(f -> f.equals("RECV/0/0/0/0")), strict.toString());
        assertEquals(strict, flushed(3, DeviceConfig.defaults().strict()).stream()
                .map(StrictModeTest::undefinedFields).collect(Collectors.toList()), "the same seed replays");
    }

    private static List<Integer> qpns(long seed, DeviceConfig config) {
        try (SimPair s = new SimPair(seed, config)) {
            List<Integer> out = new ArrayList<>();
            List<QueuePair> qps = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                QueuePair q = s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA));
                qps.add(q);
                out.add(q.qpn());
            }
            qps.get(3).close();
            out.add(s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA)).qpn());
            // The QPs work whatever their numbers: a connected pair carries a SEND.
            QueuePair a = s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA));
            QueuePair b = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB));
            Connections.connectPair(a, s.mrA, 1, b, s.mrB, 2, RcOptions.defaults());
            b.postRecv(s.recvB(1, 0, 64));
            a.postSend(s.sendA(2, 0, 64));
            WorkCompletion wc = s.await(s.cqB);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(a.qpn(), wc.srcQp());
            return out;
        }
    }

    @Test
    void qpNumbersAreDrawnAtRandomFromTheFreeOnes() {
        assertEquals(List.of(0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19), qpns(4, DeviceConfig.defaults()));
        List<Integer> strict = qpns(4, DeviceConfig.defaults().strict());
        assertEquals(strict.size(), strict.stream().distinct().count(), "no number given twice: " + strict);
        assertTrue(strict.stream().allMatch(q -> q >= 0x11 && q <= 0xFFFFFF), strict.toString());
        assertNotEquals(strict.stream().sorted().collect(Collectors.toList()), strict, "not in sequence: " + strict);
        assertEquals(strict, qpns(4, DeviceConfig.defaults().strict()), "the same seed, the same numbers");
    }

    @Test
    void strictModeIsOffByDefaultAndStaysOnThroughTheOtherSetters() {
        assertTrue(!DeviceConfig.defaults().strictMode());
        assertTrue(DeviceConfig.defaults().strict().withKeySeed(5).withEcn(EcnMode.OFF).strictMode());
    }
}
