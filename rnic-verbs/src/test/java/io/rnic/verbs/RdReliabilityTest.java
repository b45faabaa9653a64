package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.packet.OpcodeTable;
import io.rnic.transport.fault.Faults;
import io.rnic.transport.fault.PacketMatch;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Reliability for RD is RC's, kept per EE context (IBA 9.7.8: the service uses "the
 * methods described in 9.7": PSNs, the ACK/NAK protocol, timers, retries, duplicates): every
 * test of {@link RcReliabilityTest} runs here on an RD QP pair whose messages go through one EE
 * context on each side. Where RC's test needs several messages in flight on one connection,
 * which RD never has (o9-102: one message per context at a time), or where RD's rule differs
 * (an RNR NAK suspends the message and the context RESYNCs, 9.7.8.5), the test is replaced by
 * RD's rule for the same situation; the rest of RD is in {@link RdTest}.
 */
class RdReliabilityTest extends RcReliabilityTest {
    @Override
    boolean rd() {
        return true;
    }

    private static io.rnic.transport.sim.LinkDirection ab(RcFixture f) {
        return f.net.direction(f.wireA, f.wireB);
    }

    private static io.rnic.transport.sim.LinkDirection ba(RcFixture f) {
        return f.net.direction(f.wireB, f.wireA);
    }

    /** o9-102: the next message on a context starts only once the one before is acknowledged. */
    @Override
    @Test
    void aCoalescedAckCompletesEveryEarlierWqe() {
        try (RcFixture f = fixture(109)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            f.postA(write(f, 8).wrId(1));
            f.postA(write(f, 8).wrId(2));
            f.postA(write(f, 8).wrId(3));
            List<WorkCompletion> wcs = f.await(f.cqA, 3);
            for (int i = 0; i < 3; i++) {
                assertEquals(i + 1, wcs.get(i).wrId());
                assertEquals(WcStatus.SUCCESS, wcs.get(i).status());
            }
            assertEquals(List.of(PSN_A, PSN_A + 1, PSN_A + 2), psns(sentA, "RD_RDMA_WRITE_ONLY"));
            assertEquals(List.of(PSN_A, PSN_A + 1, PSN_A + 2), psns(sentB, "RD_ACKNOWLEDGE"), "one ACK per message");
            for (int i = 1; i < 3; i++) {
                assertTrue(sentA.get(i).at() > sentB.get(i - 1).at(), "message " + (i + 1) + " waited for the ACK of "
                        + i + ": " + sentA + " / " + sentB);
            }
        }
    }

    /**
     * IBA 9.7, retries with one message at a time: the lost ACKs are recovered by the local ACK timer,
     * and each retried PSN is answered with the furthest PSN accepted, which is that same one.
     */
    @Override
    @Test
    void highWaterMarkLetsAnAckBeyondTheRetriedPsnCompleteEverything() {
        try (RcFixture f = fixture(110)) {
            var sentB = Wiretap.sent(f.wireB);
            ba(f).fault(Faults.dropFirst(PacketMatch.acks(), 2));
            f.postA(write(f, 8).wrId(1));
            f.postA(write(f, 8).wrId(2));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
            assertEquals(List.of(PSN_A, PSN_A, PSN_A, PSN_A + 1), psns(sentB, n("RC_ACKNOWLEDGE")));
            assertEquals(2, f.b.counters().get(Counter.DUPLICATE_REQUEST));
            assertEquals(2, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
        }
    }

    /** With nothing after the READ on the context (o9-102), its lost response is recovered by the timer. */
    @Override
    @Test
    void impliedNakFromALaterResponseRetriesTheRead() {
        try (RcFixture f = fixture(106)) {
            ba(f).fault(Faults.dropFirst(PacketMatch.opcode(OpcodeTable.byName(n("RC_RDMA_READ_RESPONSE_ONLY")).code()), 1));
            RcFixture.fill(f.bufB, 200_000, 500, 3);
            recv(f, 1);
            f.postA(read(f, 1, 500));
            f.postA(send(f, 2, 8));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(1, wcs.get(0).wrId());
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
            assertEquals(2, wcs.get(1).wrId());
            assertEquals(0, f.a.counters().get(Counter.IMPLIED_NAK), "the SEND was not sent before the READ completed");
            assertEquals(1, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
            assertTrue(RcFixture.same(f.bufB, 200_000, f.bufA, 100_000, 500));
        }
    }

    /** With one message at a time, the SEND's lost ACK is recovered by the timer before the READ starts. */
    @Override
    @Test
    void aReadResponseImplicitlyAcknowledgesAnEarlierSendWhoseAckWasLost() {
        try (RcFixture f = fixture(124)) {
            ba(f).fault(Faults.dropNthAck(1));
            recv(f, 1);
            f.postA(send(f, 1, 8));
            f.postA(read(f, 2, 100));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
            assertEquals(1, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
            assertEquals(1, f.b.counters().get(Counter.DUPLICATE_REQUEST), "the SEND went twice, executed once");
            assertEquals(1, f.cqB.size());
        }
    }

    /**
     * 9.7.8.5: an RNR NAK suspends the message; the context RESYNCs at once and the message is
     * sent again from the start, as a new message at a new PSN, once the responder's encoded
     * timer (code 14, 1.28 ms) has passed.
     */
    @Override
    @Test
    void rnrNakWaitsTheEncodedTimerBeforeRetrying() {
        try (RcFixture f = fixture(104, RcOptions.defaults().withMinRnrTimer(14), PSN_A, PSN_B)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            f.postA(send(f, 1, 64));
            f.net.scheduler().runUntil(() -> sentA.size() >= 3, 10_000_000_000L);
            Wiretap.Seen nak = sentB.get(0);
            assertEquals(0x20 | 14, nak.syndrome(), "RNR NAK with the responder QP's min_rnr_timer");
            assertEquals("RD_RESYNC", sentA.get(1).opcode());
            assertEquals(PSN_A + 1, sentA.get(1).psn());
            assertTrue(sentA.get(1).ackReq(), "a RESYNC asks for its ACK (o9-114.a2)");
            assertEquals("RD_SEND_ONLY", sentA.get(2).opcode());
            assertEquals(PSN_A + 2, sentA.get(2).psn(), "restarted as a new message");
            long waited = sentA.get(2).at() - nak.at();
            assertTrue(waited >= 1_280_000 && waited < 1_300_000, "code 14 is 1.28 ms, waited " + waited);
            recv(f, 1);
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
        }
    }

    /**
     * As RC's test, and the READ that this one cannot interrupt within one context (one READ at a
     * time) is interrupted by a late duplicate of the READ before it: the seed's "r3" ghost for
     * READ (9.7.8.5). The responder stops the READ in progress and answers the duplicate; the
     * requester discards that answer, whose PSN it has already completed, and recovers the
     * interrupted READ by its timer.
     */
    @Override
    @Test
    void aDuplicateReadWithAnEarlierPsnInterruptsTheReadInProgress() {
        try (RcFixture f = fixture(120)) {
            var sentB = Wiretap.sent(f.wireB);
            int big = 64 * MTU;
            RcFixture.fill(f.bufB, 200_000, 100 + big, 6);
            f.postA(read(f, 1, 100));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            f.postA(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address() + 300_000, big, f.mrA.lkey()).rdma(f.mrB.address() + 200_100, f.mrB.rkey()));
            f.net.scheduler().runUntil(() -> sentB.size() >= 4, 1_000_000_000L);
            var ghost = f.packet(n("RC_RDMA_READ_REQUEST"));
            ghost.destQp = f.qpB.qpn();
            ghost.psn = PSN_A;
            ghost.rethVa = f.mrB.address() + 200_000;
            ghost.rethRkey = f.mrB.rkey();
            ghost.rethLength = 100;
            Wiretap.inject(f.wireA, f.portA(), f.wireB, ghost);
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertTrue(RcFixture.same(f.bufB, 200_100, f.bufA, 300_000, big));
            assertEquals(1, f.b.counters().get(Counter.READ_STREAMS_INTERRUPTED), "the 64-packet READ was cut short");
            assertTrue(f.a.counters().get(Counter.DUPLICATE_RESPONSE) >= 1, "the ghost answer was discarded");
            assertEquals(1, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS), "recovered by the timer");
        }
    }
}
