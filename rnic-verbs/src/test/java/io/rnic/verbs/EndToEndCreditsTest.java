package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.psn.Psn;
import io.rnic.transport.fault.Faults;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * End-to-end credits (reference §3.1): an RC responder advertises its free receive WQEs in every
 * AETH and the requester honours them. Only RC's own receive queue does this: an SRQ, and so an
 * XRC target, advertises "invalid" (o9-114.a10, XrcReliabilityTest#xrcAcksCarryTheInvalidCreditCode),
 * which is why these are not part of the reliability contract that XRC runs too.
 */
class EndToEndCreditsTest {
    static final int PSN_A = RcReliabilityTest.PSN_A;

    private static RcFixture fixture(long seed) {
        return new RcFixture(seed, RcOptions.defaults(), PSN_A, RcReliabilityTest.PSN_B);
    }

    private static String n(String rcName) {
        return rcName;
    }

    private static io.rnic.transport.sim.LinkDirection ba(RcFixture f) {
        return f.net.direction(f.wireB, f.wireA);
    }

    private static SendWorkRequest send(RcFixture f, long id, int len) {
        return new SendWorkRequest().wrId(id).opcode(WrOpcode.SEND).signaled(true).sge(f.mrA.address(), len, f.mrA.lkey());
    }

    private static void recv(RcFixture f, long id) {
        f.postRecvB(new RecvWorkRequest().wrId(id).sge(f.mrB.address() + 500_000 + 16384 * (id % 16), 16384, f.mrB.lkey()));
    }

    private static List<Integer> psns(List<Wiretap.Seen> seen, String opcodePrefix) {
        return RcReliabilityTest.psns(seen, opcodePrefix);
    }

    @Test
    void responderAdvertisesCreditsFromItsFreeReceiveWqes() {
        try (RcFixture f = fixture(120)) {
            var sentB = Wiretap.sent(f.wireB);
            for (int i = 0; i < 6; i++) {
                recv(f, i);
            }
            f.postA(send(f, 1, 8));
            f.await(f.cqA);
            assertEquals(AethSyndrome.ack(AethSyndrome.creditCodeFor(5)), sentB.get(0).syndrome(), "5 free: code for 4");
        }
    }

    @Test
    void requesterSendsNoMoreSendsThanCreditsAllowExceptOneProbe() {
        try (RcFixture f = fixture(121)) {
            var sentA = Wiretap.sent(f.wireA);
            recv(f, 0);
            for (int i = 1; i <= 4; i++) {
                f.postA(send(f, i, 8));
            }
            f.net.scheduler().runFor(3_000_000);
            // #1 went as a probe; its ACK said 0 credits; #2 went as the next probe and is being RNR NAKed.
            assertEquals(java.util.Set.of(PSN_A, PSN_A + 1), new java.util.HashSet<>(psns(sentA, n("RC_SEND"))));
            for (int i = 1; i <= 3; i++) {
                recv(f, i);
            }
            List<WorkCompletion> wcs = f.await(f.cqA, 4);
            wcs.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status()));
        }
    }

    @Test
    void withoutCreditsAnRxeCompatibleRequesterSendsEverythingAtOnce() {
        try (RcFixture f = fixture(122)) {
            QueuePair qa = f.pdA.createQp(QpInitAttributes.rc(f.cqA, f.cqA).withEndToEndCredits(false));
            QueuePair qb = f.pdB.createQp(QpInitAttributes.rc(f.cqB, f.cqB).withEndToEndCredits(false));
            Connections.connectPair(qa, f.mrA, 1, qb, f.mrB, 2, RcOptions.defaults());
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            qb.postRecv(new RecvWorkRequest().wrId(0).sge(f.mrB.address(), 64, f.mrB.lkey()));
            for (int i = 1; i <= 4; i++) {
                qa.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(f.mrA.address(), 8, f.mrA.lkey()));
            }
            f.net.scheduler().runFor(100_000);
            assertEquals(4, Wiretap.count(sentA, n("RC_SEND_ONLY")));
            assertEquals(0x1F, sentB.get(0).syndrome(), "rxe's 'invalid' credit code");
            for (int i = 1; i <= 3; i++) {
                qb.postRecv(new RecvWorkRequest().wrId(i).sge(f.mrB.address(), 64, f.mrB.lkey()));
            }
            f.await(f.cqA, 4).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status()));
        }
    }

    @Test
    void creditsInADuplicateAckAreHonoured() {
        try (RcFixture f = fixture(123)) {
            var sentA = Wiretap.sent(f.wireA);
            ba(f).fault(Faults.dropNthAck(1));
            recv(f, 0);
            recv(f, 1);
            f.postA(send(f, 1, 8));
            f.postA(send(f, 2, 8));
            f.net.scheduler().runFor(1_000_000);
            assertEquals(1, Wiretap.count(sentA, n("RC_SEND_ONLY")), "#2 waits: #1 is the outstanding probe");
            PacketFields dupAck = f.packet(n("RC_ACKNOWLEDGE"));
            dupAck.destQp = f.qpA.qpn();
            dupAck.psn = Psn.add(PSN_A, -1);   // duplicate region: dropped, but its credits count
            dupAck.aethSyndrome = AethSyndrome.ack(AethSyndrome.creditCodeFor(2));
            dupAck.aethMsn = 0;
            Wiretap.inject(f.wireB, f.qpB.sourcePort(), f.wireA, dupAck);
            f.net.scheduler().runFor(1_000_000);
            assertEquals(2, Wiretap.count(sentA, n("RC_SEND_ONLY")), "#2 went on the duplicate ACK's credits");
            f.await(f.cqA, 2).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status()));
        }
    }

    /**
     * IBA 9.7, ghost ACKs (ghost ACKs): an ACK whose PSN is beyond the last PSN sent (the invalid
     * region) is dropped, and completes nothing, but the credits in its AETH are still taken, as
     * a duplicate-region ACK's are (§2.6.2). Before, a ghost ACK's credits were dropped with it.
     */
    @Test
    void aGhostAckIsDroppedButTheCreditsItCarriesCount() {
        try (RcFixture f = fixture(124)) {
            var sentA = Wiretap.sent(f.wireA);
            ba(f).fault(Faults.dropNthAck(1));
            recv(f, 0);
            recv(f, 1);
            f.postA(send(f, 1, 8));
            f.postA(send(f, 2, 8));
            f.net.scheduler().runFor(1_000_000);
            assertEquals(1, Wiretap.count(sentA, n("RC_SEND_ONLY")), "#2 waits: #1 is the outstanding probe");
            long ghostsBefore = f.a.counters().get(Counter.GHOST_RESPONSE);
            PacketFields ghostAck = f.packet(n("RC_ACKNOWLEDGE"));
            ghostAck.destQp = f.qpA.qpn();
            ghostAck.psn = Psn.add(PSN_A, 1000); // beyond the last PSN sent (PSN_A): the invalid region
            ghostAck.aethSyndrome = AethSyndrome.ack(AethSyndrome.creditCodeFor(2));
            ghostAck.aethMsn = 0;
            Wiretap.inject(f.wireB, f.qpB.sourcePort(), f.wireA, ghostAck);
            f.net.scheduler().runUntil(() -> f.a.counters().get(Counter.GHOST_RESPONSE) > ghostsBefore, 1_000_000);
            assertFalse(f.cqA.poll(new WorkCompletion()), "the ghost ACK completed nothing");
            assertEquals(2, Wiretap.count(sentA, n("RC_SEND_ONLY")), "#2 went on the ghost ACK's credits");
            f.await(f.cqA, 2).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status()));
        }
    }
}
