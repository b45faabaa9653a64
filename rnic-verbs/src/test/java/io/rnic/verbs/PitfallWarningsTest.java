package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.hca.HcaAccess;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pitfall warnings ({@link Pitfall}, RNIC-W001 to RNIC-W010): each scenario makes exactly one
 * of the ten happen, on the simulated network in virtual time, and no other on either device. The
 * device carries on as a NIC would (the same completions and NAKs as without the warning); the
 * warning is counted at every occurrence and logged once per object.
 */
class PitfallWarningsTest {

    private static QueuePair[] pair(SimPair p, RcOptions o) {
        QueuePair a = p.pdA.createQp(QpInitAttributes.rc(p.cqA, p.cqA));
        QueuePair b = p.pdB.createQp(QpInitAttributes.rc(p.cqB, p.cqB));
        Connections.connectPair(a, p.mrA, 100, b, p.mrB, 200, o);
        return new QueuePair[] {a, b};
    }

    /** {@code p} happened on {@code dev}, and nothing else happened on either device. */
    private static void only(SimPair s, RdmaDevice dev, Pitfall p) {
        assertTrue(dev.pitfallCount(p) > 0, p + " was not counted");
        List<String> others = new ArrayList<>();
        for (RdmaDevice d : new RdmaDevice[] {s.a, s.b}) {
            for (Pitfall q : Pitfall.values()) {
                if ((d != dev || q != p) && d.pitfallCount(q) != 0) {
                    others.add(q + " x" + d.pitfallCount(q) + " on " + d);
                }
            }
        }
        assertTrue(others.isEmpty(), "other warnings: " + others);
    }

    private static String logged(RdmaDevice dev, Pitfall p) {
        String line = HcaAccess.of(dev).pitfalls().lastLogged(p);
        assertNotNull(line, p + " was not logged");
        assertTrue(line.startsWith(p.code() + " ["), line);
        assertTrue(line.endsWith("Fix: " + p.fix()), line);
        return line;
    }

    @Test
    void w001SendsThatKeepFindingNoReceiveAreWarnedAboutOncePastSixteenRnrNaks() {
        try (SimPair s = new SimPair(1)) {
            QueuePair[] q = pair(s, RcOptions.defaults());
            q[0].postSend(s.sendA(1, 0, 64));
            // RNR timer code 12 is 0.64 ms: 40 ms of virtual time is about 60 RNR NAKs.
            s.net.scheduler().runUntil(() -> false, 40_000_000L);
            long naks = s.b.counters().get(Counter.SEND_RNR_ERR);
            assertTrue(naks > Pitfall.RNR_NAKS_BEFORE_WARNING, naks + " RNR NAKs");
            assertEquals(naks - Pitfall.RNR_NAKS_BEFORE_WARNING, s.b.pitfallCount(Pitfall.RNR_NAKS_REPEATED));
            only(s, s.b, Pitfall.RNR_NAKS_REPEATED);
            assertTrue(logged(s.b, Pitfall.RNR_NAKS_REPEATED).contains("has sent 17 RNR NAKs"));
            q[1].postRecv(s.recvB(2, 0, 64)); // the SEND then goes through, as without the warning
            assertEquals(WcStatus.SUCCESS, s.await(s.cqA).status());
        }
    }

    @Test
    void w002AShortMinimumRnrTimerWithEndlessRetriesIsWarnedAboutAtTheModify() {
        try (SimPair s = new SimPair(2)) {
            QueuePair[] q = pair(s, RcOptions.defaults().withMinRnrTimer(1)); // 0.01 ms, rnr_retry 7
            assertEquals(1, s.a.pitfallCount(Pitfall.SHORT_RNR_TIMER_WITH_ENDLESS_RETRY));
            assertEquals(1, s.b.pitfallCount(Pitfall.SHORT_RNR_TIMER_WITH_ENDLESS_RETRY));
            for (Pitfall p : Pitfall.values()) {
                if (p != Pitfall.SHORT_RNR_TIMER_WITH_ENDLESS_RETRY) {
                    assertEquals(0, s.a.pitfallCount(p) + s.b.pitfallCount(p), p.toString());
                }
            }
            assertTrue(logged(s.a, Pitfall.SHORT_RNR_TIMER_WITH_ENDLESS_RETRY).contains("min_rnr_timer 1 with rnr_retry 7"));
            // Code 0 is the longest timer (655 ms), and a finite retry count cannot storm forever.
            try (SimPair t = new SimPair(3)) {
                pair(t, RcOptions.defaults().withMinRnrTimer(0));
                pair(t, RcOptions.defaults().withMinRnrTimer(1).withRetry(14, 7, 3));
                assertEquals(0, t.a.pitfallCount(Pitfall.SHORT_RNR_TIMER_WITH_ENDLESS_RETRY));
            }
            assertEquals(QpState.RTS, q[0].state());
        }
    }

    @Test
    void w003ACqSmallerThanTheQueuesCompletingIntoItIsWarnedAboutAtQpCreation() {
        try (SimPair s = new SimPair(4)) {
            CompletionQueue small = s.a.createCq(10);
            s.pdA.createQp(QpInitAttributes.rc(small, small).withCaps(new QpCaps(4, 4, 1, 1, 0))); // 8 of 10: fine
            assertEquals(0, s.a.pitfallCount(Pitfall.CQ_SMALLER_THAN_ITS_QUEUES));
            s.pdA.createQp(QpInitAttributes.rc(small, s.cqA).withCaps(new QpCaps(4, 4, 1, 1, 0))); // 12 of 10
            only(s, s.a, Pitfall.CQ_SMALLER_THAN_ITS_QUEUES);
            assertTrue(logged(s.a, Pitfall.CQ_SMALLER_THAN_ITS_QUEUES).contains("has 10 entries, but the queues"
                    + " completing into it hold up to 12 work requests"));
        }
    }

    @Test
    void w004ASendQueueFullOfUnsignaledWorkIsWarnedAbout() {
        try (SimPair s = new SimPair(5)) {
            QueuePair a = s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA).withCaps(new QpCaps(4, 4, 1, 1, 0)));
            QueuePair b = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB));
            Connections.connectPair(a, s.mrA, 1, b, s.mrB, 2, RcOptions.defaults());
            SendWorkRequest write = new SendWorkRequest().opcode(WrOpcode.RDMA_WRITE).signaled(false)
                    .sge(s.mrA.address(), 64, s.mrA.lkey()).rdma(s.mrB.address(), s.mrB.rkey());
            for (int i = 0; i < 4; i++) {
                a.postSend(write.wrId(i)); // virtual time stands still: none leaves yet
            }
            assertThrows(IllegalStateException.class, () -> a.postSend(write.wrId(4)));
            only(s, s.a, Pitfall.UNSIGNALED_SEND_QUEUE_FULL);
            logged(s.a, Pitfall.UNSIGNALED_SEND_QUEUE_FULL);
            // One signaled among them: the queue is full, but it drains through that completion.
            s.settle();
            a.postSend(write.wrId(5));
            a.postSend(write.wrId(6));
            a.postSend(write.wrId(7).signaled(true));
            a.postSend(write.wrId(8).signaled(false));
            assertThrows(IllegalStateException.class, () -> a.postSend(write.wrId(9)));
            assertEquals(1, s.a.pitfallCount(Pitfall.UNSIGNALED_SEND_QUEUE_FULL));
        }
    }

    @Test
    void w005APsnWiderThan24BitsIsMaskedAndWarnedAbout() {
        try (SimPair s = new SimPair(6)) {
            QueuePair a = s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA));
            QueuePair b = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB));
            Connections.connect(b, Connections.local(b, 7, s.mrB), Connections.local(a, 0x123, s.mrA),
                    RcOptions.defaults(), s.a.wire().localAddress().getPort());
            // IBA 9.7.1: PSNs are 24 bits. A is given send PSN 0x1000123 and receive PSN 0x2000007: it
            // uses 0x000123 and 0x000007, as real stacks do (silently there).
            RcOptions o = RcOptions.defaults();
            a.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(o.accessFlags()));
            a.modify(new QpAttributes().state(QpState.RTR).av(AddressVector.of(s.b.gid().toInetAddress())
                            .withPort(s.b.wire().localAddress().getPort())).pathMtu(o.mtu()).destQpn(b.qpn())
                    .rqPsn(0x2000007).maxDestRdAtomic(1).minRnrTimer(12));
            a.modify(new QpAttributes().state(QpState.RTS).sqPsn(0x1000123).timeout(14).retryCnt(7).rnrRetry(7)
                    .maxRdAtomic(1));
            assertEquals(0x000123, a.query().sqPsn());
            assertEquals(2, s.a.pitfallCount(Pitfall.PSN_WIDER_THAN_24_BITS));
            only(s, s.a, Pitfall.PSN_WIDER_THAN_24_BITS);
            assertTrue(logged(s.a, Pitfall.PSN_WIDER_THAN_24_BITS).contains("receive PSN 0x2000007 is wider than 24"
                    + " bits; 0x000007 is used"));
            // Traffic flows both ways on the masked PSNs.
            b.postRecv(s.recvB(1, 0, 64));
            a.postSend(s.sendA(2, 0, 64));
            assertEquals(WcStatus.SUCCESS, s.await(s.cqB).status());
            a.postRecv(new RecvWorkRequest().wrId(3).sge(s.mrA.address(), 64, s.mrA.lkey()));
            b.postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.SEND).signaled(true)
                    .sge(s.mrB.address(), 64, s.mrB.lkey()));
            assertEquals(WcStatus.SUCCESS, s.await(s.cqA, 2).get(1).status());
        }
    }

    @Test
    void w006ResetWithWorkOutstandingIsWarnedAbout() {
        try (SimPair s = new SimPair(7)) {
            QueuePair[] q = pair(s, RcOptions.defaults());
            q[1].modify(new QpAttributes().state(QpState.ERR));
            s.drain(s.cqB);
            q[1].modify(new QpAttributes().state(QpState.RESET)); // ERR flushed everything first: no warning
            assertEquals(0, s.b.pitfallCount(Pitfall.RESET_WITH_OUTSTANDING_WORK));
            QueuePair c = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB));
            c.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
            c.postRecv(s.recvB(1, 0, 64));
            c.postRecv(s.recvB(2, 64, 64));
            c.modify(new QpAttributes().state(QpState.RESET));
            only(s, s.b, Pitfall.RESET_WITH_OUTSTANDING_WORK);
            assertTrue(logged(s.b, Pitfall.RESET_WITH_OUTSTANDING_WORK).contains("with 0 send and 2 receive work requests"));
            assertTrue(s.drain(s.cqB).isEmpty(), "RESET completes nothing");
        }
    }

    @Test
    void w007PostingToAQpInErrorIsWarnedAboutOncePerQp() {
        try (SimPair s = new SimPair(8)) {
            QueuePair[] q = pair(s, RcOptions.defaults());
            q[0].modify(new QpAttributes().state(QpState.ERR));
            q[0].postSend(s.sendA(1, 0, 64));
            q[0].postSend(s.sendA(2, 0, 64));
            q[0].postRecv(new RecvWorkRequest().wrId(3).sge(s.mrA.address(), 64, s.mrA.lkey()));
            List<WorkCompletion> wcs = s.drain(s.cqA);
            assertEquals(3, wcs.size());
            wcs.forEach(wc -> assertEquals(WcStatus.WR_FLUSH_ERR, wc.status()));
            assertEquals(3, s.a.pitfallCount(Pitfall.POST_TO_ERROR_QP));
            only(s, s.a, Pitfall.POST_TO_ERROR_QP);
            assertTrue(logged(s.a, Pitfall.POST_TO_ERROR_QP).contains("a send was posted to QP 0x"));
        }
    }

    @Test
    void w008AReadToAQpWithoutResponderResourcesIsWarnedAboutAtTheResponder() {
        try (SimPair s = new SimPair(9)) {
            QueuePair[] q = pair(s, RcOptions.defaults().withRdAtomic(16, 0));
            q[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(s.mrA.address(), 64, s.mrA.lkey()).rdma(s.mrB.address(), s.mrB.rkey()));
            assertEquals(WcStatus.REM_INV_REQ_ERR, s.await(s.cqA).status());
            only(s, s.b, Pitfall.NO_RESPONDER_RESOURCES);
            assertTrue(logged(s.b, Pitfall.NO_RESPONDER_RESOURCES).contains("max_dest_rd_atomic is 0"));
        }
    }

    @Test
    void w008ARequesterKeepingMoreReadsOutstandingThanTheResponderAcceptsIsWarnedAbout() {
        try (SimPair s = new SimPair(10)) {
            QueuePair a = s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA));
            QueuePair b = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB));
            ConnectionInfo ia = Connections.local(a, 1, s.mrA);
            ConnectionInfo ib = Connections.local(b, 2, s.mrB);
            Connections.connect(a, ia, ib, RcOptions.defaults().withRdAtomic(4, 4), s.b.wire().localAddress().getPort());
            Connections.connect(b, ib, ia, RcOptions.defaults().withRdAtomic(1, 1), s.a.wire().localAddress().getPort());
            for (int i = 0; i < 4; i++) { // 64 KiB each: the first is still streaming when the next arrives
                a.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_READ).signaled(true)
                        .sge(s.mrA.address(), 64 * 1024, s.mrA.lkey()).rdma(s.mrB.address(), s.mrB.rkey()));
            }
            s.settle();
            only(s, s.b, Pitfall.NO_RESPONDER_RESOURCES);
            assertTrue(logged(s.b, Pitfall.NO_RESPONDER_RESOURCES).contains("found all 1 responder resources"));
        }
    }

    @Test
    void w009AnRkeyOfADeregisteredRegionIsWarnedAboutWithItsHistory() {
        try (SimPair s = new SimPair(11)) {
            QueuePair[] q = pair(s, RcOptions.defaults());
            MemoryRegion gone = s.pdB.registerMemory(ByteBuffer.allocateDirect(4096),
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            int rkey = gone.rkey();
            long va = gone.address();
            gone.close();
            q[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(s.mrA.address(), 64, s.mrA.lkey()).rdma(va, rkey));
            assertEquals(WcStatus.REM_ACCESS_ERR, s.await(s.cqA).status()); // IBA 10.6.7: Remote Access Error
            only(s, s.b, Pitfall.STALE_RKEY);
            String line = logged(s.b, Pitfall.STALE_RKEY);
            assertTrue(line.contains(String.format("R_Key 0x%08x, which was a memory region key", rkey)), line);
            assertTrue(line.contains(", deregistered at t="), line);
        }
    }

    @Test
    void w009AKeyThatNeverExistedIsNotCalledStale() {
        try (SimPair s = new SimPair(12)) {
            QueuePair[] q = pair(s, RcOptions.defaults());
            q[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(s.mrA.address(), 64, s.mrA.lkey()).rdma(s.mrB.address(), s.mrB.rkey() ^ 0x5500));
            assertEquals(WcStatus.REM_ACCESS_ERR, s.await(s.cqA).status());
            for (Pitfall p : Pitfall.values()) {
                assertEquals(0, s.a.pitfallCount(p) + s.b.pitfallCount(p), p.toString());
            }
            assertNull(HcaAccess.of(s.b).pitfalls().lastLogged(Pitfall.STALE_RKEY));
        }
    }

    @Test
    void w010AMessageLongerThanItsReceiveBufferIsWarnedAboutWithBothSizes() {
        try (SimPair s = new SimPair(13)) {
            QueuePair[] q = pair(s, RcOptions.defaults());
            q[1].postRecv(s.recvB(1, 0, 16));
            q[0].postSend(s.sendA(2, 0, 64));
            assertEquals(WcStatus.LOC_LEN_ERR, s.await(s.cqB).status());
            only(s, s.b, Pitfall.RECEIVE_BUFFER_TOO_SHORT);
            assertTrue(logged(s.b, Pitfall.RECEIVE_BUFFER_TOO_SHORT).contains("a message of at least 64 bytes arrived"
                    + " for a receive buffer of 16 bytes"));
        }
    }

    @Test
    void aSilencedWarningIsCountedButNotLogged() {
        try (SimPair s = new SimPair(14, DeviceConfig.defaults().withPitfallWarningsOff(Pitfall.POST_TO_ERROR_QP))) {
            QueuePair[] q = pair(s, RcOptions.defaults());
            q[0].modify(new QpAttributes().state(QpState.ERR));
            q[0].postSend(s.sendA(1, 0, 64));
            assertEquals(1, s.a.pitfallCount(Pitfall.POST_TO_ERROR_QP));
            assertNull(HcaAccess.of(s.a).pitfalls().lastLogged(Pitfall.POST_TO_ERROR_QP));
        }
    }

    @Test
    void everyCodeIsStableAndDistinct() {
        Pitfall[] all = Pitfall.values();
        for (int i = 0; i < all.length; i++) {
            assertEquals(String.format("RNIC-W%03d", i + 1), all[i].code());
            assertTrue(!all[i].fix().isBlank());
        }
    }
}
