package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.packet.AethSyndrome;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Shared receive queues through the verbs API on the simulated network (libibverbs semantics;
 * rdma-core's tests/test_srq.py is the scenario list): several QPs take receive WQEs from one
 * queue, completions name the QP that received, WQEs complete out of order, the limit event,
 * resize, the last-WQE event, and the credits a QP on an SRQ advertises.
 */
class SrqTest {
    final SimPair p = new SimPair(31);
    final List<AsyncEvent> eventsB = new CopyOnWriteArrayList<>();
    final SharedReceiveQueue srq = p.pdB.createSrq(64, 2, 0);
    final QueuePair[] senders = new QueuePair[2];
    final QueuePair[] receivers = new QueuePair[2];

    SrqTest() {
        p.b.addAsyncEventListener(eventsB::add);
        for (int i = 0; i < 2; i++) {
            senders[i] = p.pdA.createQp(QpInitAttributes.rc(p.cqA, p.cqA));
            receivers[i] = p.pdB.createQp(QpInitAttributes.rc(p.cqB, p.cqB).withSrq(srq));
            Connections.connectPair(senders[i], p.mrA, 0x100 + i, receivers[i], p.mrB, 0x900 + i, RcOptions.defaults());
        }
    }

    @AfterEach
    void close() {
        p.close();
    }

    private void postSrq(long wrId, int offset, int length) {
        srq.postRecv(p.recvB(wrId, offset, length));
    }

    private SendWorkRequest send(long wrId, int offset, int length) {
        return p.sendA(wrId, offset, length);
    }

    private long events(AsyncEvent.Type t) {
        return eventsB.stream().filter(e -> e.type() == t).count();
    }

    @Test
    void severalQpsTakeReceiveWqesFromOneSrqAndCompletionsNameTheQpThatReceived() {
        SimPair.fill(p.bufA, 0, 8192, 5);
        for (int i = 0; i < 4; i++) {
            postSrq(100 + i, i * 4096, 4096);
        }
        senders[0].postSend(send(1, 0, 1000));
        senders[1].postSend(send(2, 1000, 2000));
        senders[0].postSend(send(3, 3000, 3000));
        List<WorkCompletion> r = p.await(p.cqB, 3);
        assertEquals(List.of(100L, 101L, 102L), r.stream().map(WorkCompletion::wrId).toList(), "posted order");
        assertEquals(List.of(receivers[0].qpn(), receivers[1].qpn(), receivers[0].qpn()),
                r.stream().map(WorkCompletion::qpNum).toList());
        assertEquals(List.of(senders[0].qpn(), senders[1].qpn(), senders[0].qpn()),
                r.stream().map(WorkCompletion::srcQp).toList());
        assertEquals(List.of(1000, 2000, 3000), r.stream().map(WorkCompletion::byteLen).toList());
        assertTrue(SimPair.same(p.bufA, 0, p.bufB, 0, 1000));
        assertTrue(SimPair.same(p.bufA, 1000, p.bufB, 4096, 2000));
        assertTrue(SimPair.same(p.bufA, 3000, p.bufB, 8192, 3000));
        assertEquals(new SrqAttributes(64, 2, 0), srq.query(), "as created");
    }

    @Test
    void receiveWqesHeldByMessagesOnTwoQpsCompleteOutOfOrder() {
        // QP 0's 5-packet message takes WQE 100 with its first packet; its third is lost, so the
        // message stays open until the retransmission. QP 1's one-packet message takes WQE 101
        // meanwhile and completes first.
        p.net.direction(p.wireA, p.wireB).fault(io.rnic.transport.fault.Faults.dropPsnOnce(receivers[0].qpn(), 0x102));
        postSrq(100, 0, 8192);
        postSrq(101, 8192, 8192);
        SimPair.fill(p.bufA, 0, 5000, 9);
        senders[0].postSend(send(1, 0, 5000));
        p.net.scheduler().runUntil(() -> p.b.counters().get(Counter.OUT_OF_SEQ_REQUEST) >= 1, 1_000_000_000L);
        senders[1].postSend(send(2, 0, 10));
        List<WorkCompletion> r = p.await(p.cqB, 2);
        assertEquals(List.of(101L, 100L), r.stream().map(WorkCompletion::wrId).toList(),
                "the WQE taken second completed first");
        assertEquals(List.of(10, 5000), r.stream().map(WorkCompletion::byteLen).toList());
        // Both slots are free again: the queue takes 64 posts.
        for (int i = 0; i < 64; i++) {
            postSrq(200 + i, 0, 16);
        }
    }

    @Test
    void srqLimitReachedFiresOnceWhenArmedAndTheWqesDropBelowTheLimit() {
        // rdma-core test_modify_srq_limit: 10 posted, limit 7, 4 messages; the 4th leaves 6.
        for (int i = 0; i < 10; i++) {
            postSrq(i, i * 64, 64);
        }
        srq.armLimit(7);
        assertEquals(7, srq.query().srqLimit());
        for (int i = 0; i < 3; i++) {
            senders[i % 2].postSend(send(i, 0, 8));
            p.await(p.cqB);
        }
        assertEquals(0, events(AsyncEvent.Type.SRQ_LIMIT_REACHED));
        senders[1].postSend(send(3, 0, 8));
        p.await(p.cqB);
        assertEquals(1, events(AsyncEvent.Type.SRQ_LIMIT_REACHED));
        AsyncEvent e = eventsB.stream().filter(x -> x.type() == AsyncEvent.Type.SRQ_LIMIT_REACHED).findFirst().orElseThrow();
        assertEquals(srq.srqn(), e.resource());
        assertEquals(0, srq.query().srqLimit(), "fired: disarmed");
        senders[0].postSend(send(4, 0, 8));
        p.await(p.cqB);
        assertEquals(1, events(AsyncEvent.Type.SRQ_LIMIT_REACHED), "once per arming");
    }

    @Test
    void resizeGrowsTheQueueKeepingPostedWqesAndShrinkingBelowThemIsRefused() {
        // rdma-core test_resize_srq: the queried max_wr at least what was asked for.
        for (int i = 0; i < 10; i++) {
            postSrq(i, i * 64, 64);
        }
        srq.resize(128);
        assertEquals(128, srq.query().maxWr());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> srq.resize(9));
        assertTrue(e.getMessage().contains("10 WQEs"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> srq.resize(0));
        assertThrows(IllegalArgumentException.class, () -> srq.armLimit(129), "limit must not exceed max_wr");
        senders[0].postSend(send(1, 0, 8));
        assertEquals(0, p.await(p.cqB).wrId(), "the posted WQEs survived the resize");
    }

    @Test
    void anSrqCannotBeDestroyedWhileAQpUsesItNorAPdWhileAnSrqIsInIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class, srq::close);
        assertTrue(e.getMessage().contains("in use by 2 QP"), e.getMessage());
        receivers[0].close();
        receivers[1].close();
        assertThrows(IllegalStateException.class, p.pdB::close, "the SRQ holds the PD");
        srq.close();
        assertThrows(IllegalStateException.class, () -> postSrq(1, 0, 8));
    }

    @Test
    void postRecvOnAQpCreatedWithAnSrqIsRefused() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> receivers[0].postRecv(new RecvWorkRequest().wrId(1)));
        assertTrue(e.getMessage().contains("post receives to the SRQ"), e.getMessage());
    }

    @Test
    void acksOfAQpOnAnSrqCarryTheInvalidCreditCodeWhileAQpWithItsOwnQueueAdvertisesCredits() {
        // Reference §3.1; IBA 9.7.9 (XRC o9-114.a10: "the invalid credit code, as with an ordinary SRQ").
        var seen = Wiretap.sent(p.wireB);
        for (int i = 0; i < 8; i++) {
            postSrq(i, 0, 64);
        }
        senders[0].postSend(send(1, 0, 8));
        p.await(p.cqB);
        p.settle();
        Wiretap.Seen ack = seen.stream().filter(s -> s.opcode().equals("RC_ACKNOWLEDGE")).findFirst().orElseThrow();
        assertEquals(AethSyndrome.ack(AethSyndrome.CREDITS_INVALID), ack.syndrome());
        // The same traffic to a QP with its own receive queue advertises its free WQEs.
        QueuePair own = p.pdB.createQp(QpInitAttributes.rc(p.cqB, p.cqB));
        QueuePair to = p.pdA.createQp(QpInitAttributes.rc(p.cqA, p.cqA));
        Connections.connectPair(to, p.mrA, 1, own, p.mrB, 2, RcOptions.defaults());
        for (int i = 0; i < 8; i++) {
            own.postRecv(new RecvWorkRequest().wrId(i).sge(p.mrB.address(), 64, p.mrB.lkey()));
        }
        seen.clear();
        to.postSend(send(2, 0, 8));
        p.await(p.cqB);
        p.settle();
        Wiretap.Seen ownAck = seen.stream().filter(s -> s.opcode().equals("RC_ACKNOWLEDGE")).findFirst().orElseThrow();
        assertEquals(AethSyndrome.ack(AethSyndrome.creditCodeFor(7)), ownAck.syndrome());
    }

    @Test
    void anEmptySrqMakesTheRcResponderSendAnRnrNakAndTheRetryFindsTheWqePostedLater() {
        var seen = Wiretap.sent(p.wireB);
        senders[0].postSend(send(1, 0, 8));
        p.net.scheduler().runUntil(() -> p.b.counters().get(Counter.SEND_RNR_ERR) > 0, 1_000_000_000L);
        assertEquals(1, Wiretap.count(seen, "RC_ACKNOWLEDGE"), "the RNR NAK");
        postSrq(7, 0, 64);
        WorkCompletion r = p.await(p.cqB);
        assertEquals(7, r.wrId());
        assertEquals(WcStatus.SUCCESS, p.await(p.cqA).status());
    }

    @Test
    void aQpOnAnSrqThatEntersErrorRaisesLastWqeReachedFlushesOnlyTheWqeItHeldAndLeavesTheRestToTheOthers() {
        // o11-5.2.5: the last WQE reached event for a QP in ERR on an SRQ.
        postSrq(100, 0, 8192);
        postSrq(101, 8192, 8192);
        postSrq(102, 16384, 8192);
        SimPair.fill(p.bufA, 0, 5000, 3);
        // Drop the 3rd packet of QP 0's message: the message (holding WQE 100) stays open.
        p.net.direction(p.wireA, p.wireB).fault(io.rnic.transport.fault.Faults.dropPsnOnce(receivers[0].qpn(), 0x102));
        senders[0].postSend(send(1, 0, 5000));
        p.net.scheduler().runUntil(() -> p.b.counters().get(Counter.RCVD_PKTS) >= 2, 1_000_000_000L);
        receivers[0].modify(new QpAttributes().state(QpState.ERR));
        List<WorkCompletion> r = p.drain(p.cqB);
        assertEquals(1, r.size(), "only the held WQE is flushed: " + r);
        assertEquals(100, r.get(0).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, r.get(0).status());
        assertEquals(receivers[0].qpn(), r.get(0).qpNum());
        assertEquals(1, events(AsyncEvent.Type.QP_LAST_WQE_REACHED));
        assertEquals(receivers[0].qpn(), eventsB.stream().filter(e -> e.type() == AsyncEvent.Type.QP_LAST_WQE_REACHED)
                .findFirst().orElseThrow().resource());
        // The other QP still finds WQEs 101 and 102.
        senders[1].postSend(send(2, 0, 10));
        senders[1].postSend(send(3, 0, 10));
        assertEquals(List.of(101L, 102L), p.await(p.cqB, 2).stream().map(WorkCompletion::wrId).toList());
    }

    @Test
    void ucAndUdQpsTakeReceiveWqesFromAnSrqToo() {
        QueuePair ucA = p.pdA.createQp(QpInitAttributes.uc(p.cqA, p.cqA));
        QueuePair ucB = p.pdB.createQp(QpInitAttributes.uc(p.cqB, p.cqB).withSrq(srq));
        Connections.connectPair(ucA, p.mrA, 5, ucB, p.mrB, 6, RcOptions.defaults());
        QueuePair udA = p.pdA.createQp(QpInitAttributes.ud(p.cqA, p.cqA));
        QueuePair udB = p.pdB.createQp(QpInitAttributes.ud(p.cqB, p.cqB).withSrq(srq));
        Connections.readyDatagram(udA, 0x1234, 1);
        Connections.readyDatagram(udB, 0x1234, 2);
        postSrq(1, 0, 256);
        postSrq(2, 256, 256);
        ucA.postSend(send(1, 0, 100));
        var ah = p.pdA.createAddressHandle(io.rnic.verbs.AddressVector.of(p.wireB.localAddress().getAddress()));
        udA.postSend(send(2, 0, 100).ud(ah, udB.qpn(), 0x1234));
        List<WorkCompletion> r = p.await(p.cqB, 2);
        Set<Integer> qps = r.stream().map(WorkCompletion::qpNum).collect(Collectors.toSet());
        assertEquals(Set.of(ucB.qpn(), udB.qpn()), qps);
        assertEquals(QpType.UD, udB.type());
        assertTrue(r.stream().allMatch(w -> w.status() == WcStatus.SUCCESS && w.opcode() == WcOpcode.RECV), r.toString());
    }

    @Test
    void aQpCannotBeCreatedWithAnSrqFromAnotherDevice() {
        SharedReceiveQueue other = p.pdA.createSrq(4, 1, 0);
        assertThrows(IllegalArgumentException.class,
                () -> p.pdB.createQp(QpInitAttributes.rc(p.cqB, p.cqB).withSrq(other).withCaps(QpCaps.defaults())));
        assertEquals(new ArrayList<>(), new ArrayList<>(p.b.unhandledEvents()));
    }

    @Test
    void lastWqeReachedIsRaisedOnceEvenIfWorkIsPostedToTheQpInError() {
        receivers[0].modify(new QpAttributes().state(QpState.ERR));
        for (int i = 0; i < 3; i++) {
            receivers[0].postSend(send(i, 0, 8)); // flushed at once
            p.settle();
        }
        assertEquals(1, events(AsyncEvent.Type.QP_LAST_WQE_REACHED));
        assertEquals(3, p.drain(p.cqB).size());
    }

    @Test
    void aQpThatCannotBeCreatedLeavesTheSrqAndTheDeviceAsTheyWere() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.pdB.createQp(
                QpInitAttributes.rc(p.cqB, p.cqB).withSrq(srq).withCaps(new QpCaps(1, 1, 1, 1, Integer.MAX_VALUE))));
        assertTrue(e.getMessage().contains("max_inline_data"), e.getMessage());
        assertEquals(2, srq.core.attachedQps());
        receivers[0].close();
        receivers[1].close();
        srq.close();
    }

    @Test
    void aUcMessageDroppedForAShortBufferGivesItsSrqWqeBackWithAnError() {
        // Kept by the QP, a shared WQE would be lost to the other QPs (rxe: class E).
        QueuePair ucA = p.pdA.createQp(QpInitAttributes.uc(p.cqA, p.cqA));
        QueuePair ucB = p.pdB.createQp(QpInitAttributes.uc(p.cqB, p.cqB).withSrq(srq));
        Connections.connectPair(ucA, p.mrA, 5, ucB, p.mrB, 6, RcOptions.defaults());
        postSrq(1, 0, 16);
        postSrq(2, 64, 64);
        ucA.postSend(send(10, 0, 32));
        ucA.postSend(send(11, 0, 32));
        List<WorkCompletion> r = p.await(p.cqB, 2);
        assertEquals(WcStatus.LOC_LEN_ERR, r.get(0).status());
        assertEquals(1, r.get(0).wrId());
        assertEquals(WcStatus.SUCCESS, r.get(1).status());
        assertEquals(2, r.get(1).wrId());
        assertEquals(QpState.RTS, ucB.state(), "UC carries on");
    }
}
