package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.psn.Psn;
import io.rnic.transport.fault.Faults;
import io.rnic.transport.fault.PacketMatch;
import io.rnic.transport.sim.LinkDirection;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The PSN, retry, duplicate and credit rules of IBA 9.7 and reference §3 and §5, one named
 * test each, on the simulated network with scripted faults, in virtual time. It is the
 * reliability contract of every RC-like transport: {@link XrcReliabilityTest} runs the same
 * tests on an XRC initiator and target pair.
 */
class RcReliabilityTest {
    static final int PSN_A = 0x1000;
    static final int PSN_B = 0x2000;
    static final int MTU = 1024;

    /** Whether the fixtures are XRC initiator/target pairs instead of RC pairs. */
    boolean xrc() {
        return false;
    }

    RcFixture fixture(long seed) {
        return fixture(seed, RcOptions.defaults(), PSN_A, PSN_B);
    }

    /** Whether the fixtures are RD QP pairs, each side's messages through one EE context. */
    boolean rd() {
        return false;
    }

    RcFixture fixture(long seed, RcOptions options, int psnA, int psnB) {
        return new RcFixture(seed, DeviceConfig.defaults(), options, psnA, psnB, QpCaps.defaults(), xrc(), rd());
    }

    /**
     * The name of an RC opcode's twin in the fixture's transport ({@code XRC_...} is {@code X} +
     * {@code RC_...}; {@code RD_...} replaces {@code RC_}).
     */
    String n(String rcName) {
        return xrc() ? "X" + rcName : rd() ? "RD" + rcName.substring(2) : rcName;
    }

    private static LinkDirection ab(RcFixture f) {
        return f.net.direction(f.wireA, f.wireB);
    }

    private static LinkDirection ba(RcFixture f) {
        return f.net.direction(f.wireB, f.wireA);
    }

    SendWorkRequest write(RcFixture f, int len) {
        return new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(f.mrA.address(), len, f.mrA.lkey()).rdma(f.mrB.address(), f.mrB.rkey());
    }

    SendWorkRequest send(RcFixture f, long id, int len) {
        return new SendWorkRequest().wrId(id).opcode(WrOpcode.SEND).signaled(true).sge(f.mrA.address(), len, f.mrA.lkey());
    }

    SendWorkRequest read(RcFixture f, long id, int len) {
        return new SendWorkRequest().wrId(id).opcode(WrOpcode.RDMA_READ).signaled(true)
                .sge(f.mrA.address() + 100_000, len, f.mrA.lkey()).rdma(f.mrB.address() + 200_000, f.mrB.rkey());
    }

    void recv(RcFixture f, long id) {
        f.postRecvB(new RecvWorkRequest().wrId(id).sge(f.mrB.address() + 500_000 + 16384 * (id % 16), 16384, f.mrB.lkey()));
    }

    static List<Integer> psns(List<Wiretap.Seen> seen, String opcodePrefix) {
        return seen.stream().filter(s -> s.opcode().startsWith(opcodePrefix)).map(Wiretap.Seen::psn).collect(Collectors.toList());
    }

    private static List<Integer> range(int from, int n) {
        return java.util.stream.IntStream.range(0, n).map(i -> Psn.add(from, i)).boxed().collect(Collectors.toList());
    }

    // ------------------------------------------------------------------ requester

    @Test
    void nakSequenceErrorRetransmitsGoBackNFromTheNakedPsn() {
        try (RcFixture f = fixture(100)) {
            var sentA = Wiretap.sent(f.wireA);
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A + 3));
            RcFixture.fill(f.bufA, 0, 8 * MTU, 5);
            f.postA(write(f, 8 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            List<Integer> expected = range(PSN_A, 8);
            expected.addAll(range(PSN_A + 3, 5));
            assertEquals(expected, psns(sentA, n("RC_RDMA_WRITE")), "resent from the NAKed PSN, not from the first");
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 8 * MTU));
            assertEquals(1, f.a.counters().get(Counter.RCVD_SEQ_ERR));
        }
    }

    @Test
    void outOfSequenceRequestGetsExactlyOneNakThenSilentDrops() {
        try (RcFixture f = fixture(101)) {
            var sentB = Wiretap.sent(f.wireB);
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A + 3));
            f.postA(write(f, 8 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertEquals(1, f.b.counters().get(Counter.OUT_OF_SEQ_REQUEST));
            assertEquals(1, f.b.counters().get(Counter.NAKS_SENT), "four packets were out of sequence, one NAK went out");
            assertEquals(3, f.b.counters().get(Counter.RCVD_DROPPED));
            Wiretap.Seen nak = sentB.stream().filter(s -> s.syndrome() == 0x60).findFirst().orElseThrow();
            assertEquals(PSN_A + 3, nak.psn(), "the NAK carries the expected PSN");
        }
    }

    @Test
    void localAckTimeoutIs4096NanosecondsTimesTwoToTheTimeoutAndResendsTheOldestUnacked() {
        try (RcFixture f = fixture(102)) {
            var sentA = Wiretap.sent(f.wireA);
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A));
            recv(f, 1);
            f.postA(send(f, 1, 64));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertEquals(2, sentA.size());
            assertEquals(PSN_A, sentA.get(1).psn());
            assertEquals(4096L << 14, sentA.get(1).at() - sentA.get(0).at(), "timeout 14 = 67.1 ms");
            assertEquals(1, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
        }
    }

    /**
     * The local ACK timer measures silence, not age: an ACK that acknowledges packets still in
     * flight (forward progress) restarts it. Here nothing else could: all 128 packets of the
     * WRITE leave at once and take 1.6 T to cross a 10 Mb/s link, and only the ACK asked for by
     * the 64th (0.8 T) comes back before T.
     */
    @Test
    void anAckThatShowsProgressRestartsTheLocalAckTimer() {
        try (RcFixture f = fixture(112)) {
            var sentA = Wiretap.sent(f.wireA);
            ab(f).bitsPerSecond(10_000_000).queueLimitBytes(0);
            RcFixture.fill(f.bufA, 0, 128 * MTU, 9);
            f.postA(write(f, 128 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            long t = 4096L << 14;
            long lastSent = sentA.get(sentA.size() - 1).at();
            assertEquals(128, sentA.size(), "no packet was sent again");
            assertTrue(lastSent < t / 100, "every packet left at once, so none restarted the timer");
            assertTrue(f.net.scheduler().nanoTime() > t, "the WRITE took longer than the timeout: "
                    + f.net.scheduler().nanoTime() + " ns");
            assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 128 * MTU));
        }
    }

    @Test
    void retryCountSevenMeansSevenRetriesThenRetryExceeded() {
        try (RcFixture f = fixture(103)) {
            var sentA = Wiretap.sent(f.wireA);
            ab(f).fault(Faults.drop(1.0));
            f.postA(send(f, 1, 64));
            assertEquals(WcStatus.RETRY_EXC_ERR, f.await(f.cqA).status());
            assertEquals(1 + 7, sentA.size(), "the first transmission and seven retries (the spec, not rxe's 'forever')");
            assertEquals(1, f.a.counters().get(Counter.RETRY_EXCEEDED_ERR));
        }
    }

    @Test
    void rnrNakWaitsTheEncodedTimerBeforeRetrying() {
        try (RcFixture f = fixture(104, RcOptions.defaults().withMinRnrTimer(14), PSN_A, PSN_B)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            f.postA(send(f, 1, 64));
            f.net.scheduler().runUntil(() -> sentA.size() >= 2, 10_000_000_000L);
            Wiretap.Seen nak = sentB.get(0);
            assertEquals(0x20 | 14, nak.syndrome(), "RNR NAK with the responder's min_rnr_timer");
            long waited = sentA.get(1).at() - nak.at();
            assertTrue(waited >= 1_280_000 && waited < 1_300_000, "code 14 is 1.28 ms, waited " + waited);
            recv(f, 1);
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
        }
    }

    @Test
    void rnrRetrySevenRetriesForever() {
        try (RcFixture f = fixture(105, RcOptions.defaults().withMinRnrTimer(1), PSN_A, PSN_B)) {
            f.postA(send(f, 1, 64));
            f.net.scheduler().runFor(5_000_000); // 10 µs RNR timer: hundreds of RNR NAKs
            assertTrue(f.a.counters().get(Counter.RCVD_RNR_ERR) > 100, f.a.counters().toString());
            assertEquals(0, f.cqA.size());
            recv(f, 1);
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
        }
    }

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
            assertEquals(1, f.a.counters().get(Counter.IMPLIED_NAK));
            assertTrue(RcFixture.same(f.bufB, 200_000, f.bufA, 100_000, 500));
            assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS), "recovered by the implied NAK, not a timeout");
        }
    }

    @Test
    void ghostAckBeyondTheLastPsnSentIsDroppedAndChangesNothing() {
        try (RcFixture f = fixture(107)) {
            PacketFields ack = f.packet(n("RC_ACKNOWLEDGE"));
            ack.destQp = f.qpA.qpn();
            ack.psn = PSN_A + 100;
            ack.aethSyndrome = AethSyndrome.ack(AethSyndrome.CREDITS_INVALID);
            Wiretap.inject(f.wireB, f.portB(), f.wireA, ack);
            f.settle();
            assertEquals(1, f.a.counters().get(Counter.GHOST_RESPONSE));
            recv(f, 1);
            f.postA(send(f, 1, 8));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
        }
    }

    @Test
    void staleAckInTheDuplicateRegionIsDroppedSilently() {
        try (RcFixture f = fixture(108)) {
            recv(f, 1);
            f.postA(send(f, 1, 8));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            PacketFields ack = f.packet(n("RC_ACKNOWLEDGE"));
            ack.destQp = f.qpA.qpn();
            ack.psn = PSN_A - 5;
            ack.aethSyndrome = AethSyndrome.nak(AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
            Wiretap.inject(f.wireB, f.portB(), f.wireA, ack);
            f.settle();
            assertEquals(1, f.a.counters().get(Counter.DUPLICATE_RESPONSE));
            assertEquals(io.rnic.verbs.QpState.RTS, f.qpA.state(), "a stale NAK must not error the QP");
        }
    }

    @Test
    void aCoalescedAckCompletesEveryEarlierWqe() {
        try (RcFixture f = fixture(109, RcOptions.defaults(), PSN_A, PSN_B)) {
            for (int i = 0; i < 3; i++) {
                recv(f, i);
            }
            // Lose the ACKs of the first two WRITEs: the third ACK covers them.
            ba(f).fault(Faults.only(PacketMatch.psn(-1, PSN_A), Faults.drop(1.0)))
                    .fault(Faults.only(PacketMatch.psn(-1, PSN_A + 1), Faults.drop(1.0)));
            f.postA(write(f, 8).wrId(1));
            f.postA(write(f, 8).wrId(2));
            f.postA(write(f, 8).wrId(3));
            List<WorkCompletion> wcs = f.await(f.cqA, 3);
            for (int i = 0; i < 3; i++) {
                assertEquals(i + 1, wcs.get(i).wrId());
                assertEquals(WcStatus.SUCCESS, wcs.get(i).status());
            }
            assertEquals(0, f.a.counters().get(Counter.RETRANSMITTED_PKTS));
        }
    }

    /**
     * IBA 9.7, retries: PSNs 1 and 2 are sent, their ACKs are lost, the timer retries PSN 1, and the
     * responder answers the duplicate with its furthest PSN, 2. The requester, which remembers
     * its high-water mark, accepts an ACK beyond the retried PSN.
     */
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
            List<Integer> ackPsns = psns(sentB, n("RC_ACKNOWLEDGE"));
            assertEquals(List.of(PSN_A, PSN_A + 1, PSN_A + 1), ackPsns.subList(0, 3),
                    "the retried PSN 1 is answered with the furthest PSN, 2");
            assertEquals(2, f.b.counters().get(Counter.DUPLICATE_REQUEST));
        }
    }

    // ------------------------------------------------------------------ responder

    @Test
    void duplicateSendIsAckedWithTheLatestPsnAndNeverReExecuted() {
        try (RcFixture f = fixture(111)) {
            ba(f).fault(Faults.dropNthAck(1));
            recv(f, 1);
            recv(f, 2);
            RcFixture.fill(f.bufA, 0, 100, 1);
            f.postA(send(f, 1, 100));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertEquals(1, f.b.counters().get(Counter.DUPLICATE_REQUEST));
            assertEquals(1, f.await(f.cqB).wrId());
            f.settle();
            assertEquals(0, f.cqB.size(), "the duplicate consumed no second receive WQE");
            f.postA(send(f, 2, 100));
            assertEquals(2, f.await(f.cqB).wrId());
        }
    }

    @Test
    void duplicateWriteIsNotReExecuted() {
        try (RcFixture f = fixture(112)) {
            ba(f).fault(Faults.dropNthAck(1));
            RcFixture.fill(f.bufA, 0, 64, 1);
            f.postA(write(f, 64));
            f.net.scheduler().runUntil(() -> f.bufB.get(0) == f.bufA.get(0), 1_000_000_000L);
            f.bufB.put(0, (byte) 0x5A); // the application changes the data after the WRITE landed
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertEquals(1, f.b.counters().get(Counter.DUPLICATE_REQUEST));
            assertEquals(0x5A, f.bufB.get(0), "the retried WRITE was acknowledged, not executed again");
        }
    }

    @Test
    void duplicateReadIsReExecutedFromMemoryWithTheOriginalPsns() {
        try (RcFixture f = fixture(113)) {
            var sentB = Wiretap.sent(f.wireB);
            ba(f).fault(Faults.dropFirst(PacketMatch.opcode(OpcodeTable.byName(n("RC_RDMA_READ_RESPONSE_FIRST")).code()), 1));
            RcFixture.fill(f.bufB, 200_000, 3 * MTU, 1);
            f.postA(read(f, 1, 3 * MTU));
            f.net.scheduler().runUntil(() -> f.b.counters().get(Counter.READ_RESPONSES_SENT) == 3, 1_000_000_000L);
            RcFixture.fill(f.bufB, 200_000, 3 * MTU, 2); // memory changes before the duplicate arrives
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(RcFixture.same(f.bufB, 200_000, f.bufA, 100_000, 3 * MTU), "the duplicate re-read memory");
            List<String> resent = sentB.subList(3, 6).stream().map(Wiretap.Seen::toString).toList();
            assertEquals(List.of(n("RC_RDMA_READ_RESPONSE_FIRST") + "@" + PSN_A, n("RC_RDMA_READ_RESPONSE_MIDDLE") + "@" + (PSN_A + 1),
                    n("RC_RDMA_READ_RESPONSE_LAST") + "@" + (PSN_A + 2)), resent.stream().map(x -> x.replaceAll("/.*", "")).toList());
        }
    }

    /** Sends qpB a READ request from qpA's flow, crafted: a duplicate with the given PSN and range; runs it through. */
    void injectRead(RcFixture f, int psn, long va, int length) {
        PacketFields dup = f.packet(n("RC_RDMA_READ_REQUEST"));
        dup.destQp = f.qpB.qpn();
        dup.psn = psn;
        dup.rethVa = va;
        dup.rethRkey = f.mrB.rkey();
        dup.rethLength = length;
        Wiretap.inject(f.wireA, f.portA(), f.wireB, dup);
        f.settle();
    }

    /**
     * IBA 9.7, duplicate requests: a duplicate READ may ask for any subset of the original's data; it is
     * re-executed from memory with responses from its own PSN (rxe answers a request that does
     * not start at the original's first PSN with MIDDLE ... LAST). Here the middle packet of a
     * three-packet READ is asked for again, and only it is sent (issue 12, defect 8).
     */
    @Test
    void aDuplicateReadOfAMiddleSubsetIsReExecutedFromItsOwnPsn() {
        try (RcFixture f = fixture(121)) {
            var sentB = Wiretap.sent(f.wireB);
            RcFixture.fill(f.bufB, 200_000, 3 * MTU, 3);
            f.postA(read(f, 1, 3 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            long responses = f.b.counters().get(Counter.READ_RESPONSES_SENT);
            injectRead(f, PSN_A + 1, f.mrB.address() + 200_000 + MTU, MTU);
            assertEquals(responses + 1, f.b.counters().get(Counter.READ_RESPONSES_SENT), "one response: the subset's");
            Wiretap.Seen resent = sentB.get(sentB.size() - 1);
            assertEquals(n("RC_RDMA_READ_RESPONSE_LAST"), resent.opcode());
            assertEquals(PSN_A + 1, resent.psn(), "from the duplicate's own PSN");
            assertEquals(0, f.b.counters().get(Counter.RCVD_DROPPED), "a subset is a valid duplicate");
            assertEquals(io.rnic.verbs.QpState.RTS, f.qpA.state(), "the requester ignores the stale response");
        }
    }

    /** A duplicate READ asking for data outside the original's is invalid and dropped silently (§3.3.2.2 rule 5). */
    @Test
    void aDuplicateReadBeyondTheOriginalIsDroppedSilently() {
        try (RcFixture f = fixture(122)) {
            f.postA(read(f, 1, 3 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            long responses = f.b.counters().get(Counter.READ_RESPONSES_SENT);
            injectRead(f, PSN_A + 1, f.mrB.address() + 200_000 + MTU, 3 * MTU); // runs a packet past the original's end
            assertEquals(responses, f.b.counters().get(Counter.READ_RESPONSES_SENT));
            assertEquals(1, f.b.counters().get(Counter.RCVD_DROPPED));
        }
    }

    /** The requester asks for an ACK on a message's last packet and at least every 64 packets (reference §5.2). */
    @Test
    void ackReqIsSetOnTheLastPacketAndOnEverySixtyFourth() {
        try (RcFixture f = fixture(123)) {
            var sentA = Wiretap.sent(f.wireA);
            f.postRecvB(new RecvWorkRequest().wrId(1).sge(f.mrB.address(), 100 * MTU, f.mrB.lkey()));
            f.postA(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                    .sge(f.mrA.address(), 100 * MTU, f.mrA.lkey()));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            List<Integer> withAckReq = new java.util.ArrayList<>();
            for (int i = 0; i < 100; i++) {
                if (sentA.get(i).ackReq()) {
                    withAckReq.add(i);
                }
            }
            assertEquals(List.of(63, 99), withAckReq, "the 64th packet and the last");
        }
    }

    /** MSN: +1 per completed message, returned in every ACK; a duplicate does not move it (reference §5.7). */
    @Test
    void msnCountsEachMessageOnceAndNotItsDuplicates() {
        try (RcFixture f = fixture(124)) {
            var sentB = Wiretap.sent(f.wireB);
            for (int i = 0; i < 3; i++) {
                f.postRecvB(new RecvWorkRequest().wrId(i).sge(f.mrB.address() + 64L * i, 64, f.mrB.lkey()));
                f.postA(new SendWorkRequest().wrId(10 + i).opcode(WrOpcode.SEND).signaled(true)
                        .sge(f.mrA.address(), 64, f.mrA.lkey()));
            }
            f.await(f.cqA, 3);
            assertEquals(List.of(1, 2, 3), sentB.stream().filter(x -> x.opcode().equals(n("RC_ACKNOWLEDGE")))
                    .map(Wiretap.Seen::msn).toList());
            PacketFields dup = f.packet(n("RC_SEND_ONLY"));
            dup.destQp = f.qpB.qpn();
            dup.psn = PSN_A + 1;
            dup.ackReq = true;
            dup.payload(new byte[64]);
            Wiretap.inject(f.wireA, f.portA(), f.wireB, dup);
            f.settle();
            Wiretap.Seen last = sentB.get(sentB.size() - 1);
            assertEquals(n("RC_ACKNOWLEDGE"), last.opcode());
            assertEquals(3, last.msn(), "the duplicate is acknowledged with the MSN unchanged");
            assertEquals(PSN_A + 2, last.psn(), "and the most recent PSN (C9-105)");
            assertEquals(1, f.b.counters().get(Counter.DUPLICATE_REQUEST));
        }
    }

    /**
     * One retry per loss: the responder's sequence NAK arrives twice (duplicated by the network),
     * and the requester goes back once, not twice (reference §5.3, IBA 9.7: the second NAK names
     * a retry already under way).
     */
    @Test
    void aDuplicatedNakCausesOneRetry() {
        try (RcFixture f = fixture(125)) {
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A + 1));
            ba(f).fault(Faults.only(fate -> fate.isAck() && (fate.packet().getUnsignedByte(fate.packet().readerIndex()
                    + OpcodeTable.lookup(fate.opcode()).offsetOf(io.rnic.core.packet.Header.AETH)) & 0x60) == 0x60,
                    Faults.duplicate(1.0)));
            f.postRecvB(new RecvWorkRequest().wrId(1).sge(f.mrB.address(), 4 * MTU, f.mrB.lkey()));
            f.postA(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                    .sge(f.mrA.address(), 4 * MTU, f.mrA.lkey()));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertEquals(WcStatus.SUCCESS, f.await(f.cqB).status());
            assertEquals(1, f.b.counters().get(Counter.NAKS_SENT));
            assertEquals(2, f.a.counters().get(Counter.RCVD_NAKS), "the NAK arrived twice");
            assertEquals(3, f.a.counters().get(Counter.RETRANSMITTED_PKTS), "PSNs +1..+3 went again, once");
        }
    }

    @Test
    void duplicateReadForATailOfTheOriginalIsAnsweredAsAContinuation() {
        try (RcFixture f = fixture(114)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            ba(f).fault(Faults.dropPsnOnce(-1, PSN_A + 2));
            RcFixture.fill(f.bufB, 200_000, 4 * MTU, 7);
            f.postA(read(f, 1, 4 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(RcFixture.same(f.bufB, 200_000, f.bufA, 100_000, 4 * MTU));
            assertEquals(List.of(PSN_A, PSN_A + 2), psns(sentA, n("RC_RDMA_READ_REQUEST")), "the retry asks for the tail only");
            assertEquals(List.of(n("RC_RDMA_READ_RESPONSE_MIDDLE"), n("RC_RDMA_READ_RESPONSE_LAST")),
                    sentB.subList(4, 6).stream().map(Wiretap.Seen::opcode).toList());
        }
    }

    @Test
    void duplicateAtomicIsAnsweredFromTheSavedResultAndNeverReExecuted() {
        try (RcFixture f = fixture(115)) {
            ba(f).fault(Faults.dropNthAck(1));
            ByteBuffer remote = f.bufB.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            remote.putLong(4096, 10);
            f.postA(new SendWorkRequest().wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(f.mrA.address(), 8, f.mrA.lkey()).atomic(f.mrB.address() + 4096, f.mrB.rkey(), 5, 0));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertEquals(15, remote.getLong(4096), "added once");
            assertEquals(10, f.bufA.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(0), "the saved original value");
            assertEquals(1, f.b.counters().get(Counter.ATOMICS_EXECUTED));
            assertEquals(1, f.b.counters().get(Counter.DUPLICATE_REQUEST));
        }
    }

    /**
     * IBA 9.7, duplicate requests (IBA 9.7.5.1, duplicate atomics): "If the PSN of a duplicate atomic
     * request does not match the PSN of any recently executed atomic operation, the request is
     * invalid and silently dropped." A FETCH_ADD arrives at the PSN of a SEND already completed:
     * a duplicate with no saved atomic result there. Nothing answers it, nothing executes it, it
     * is counted, and the QP carries on.
     */
    @Test
    void aDuplicateAtomicAtAPsnOfNoSavedAtomicIsDroppedSilently() {
        try (RcFixture f = fixture(125)) {
            var sentB = Wiretap.sent(f.wireB);
            ByteBuffer remote = f.bufB.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            remote.putLong(4096, 10);
            recv(f, 1);
            f.postA(send(f, 1, 8)); // PSN_A
            f.postA(new SendWorkRequest().wrId(2).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(f.mrA.address(), 8, f.mrA.lkey()).atomic(f.mrB.address() + 4096, f.mrB.rkey(), 5, 0)); // PSN_A + 1
            f.await(f.cqA, 2).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString()));
            f.settle();
            int answered = sentB.size();
            long dropped = f.b.counters().get(Counter.RCVD_DROPPED);
            PacketFields dup = f.packet(n("RC_FETCH_ADD"));
            dup.destQp = f.qpB.qpn();
            dup.psn = PSN_A; // the SEND's: a duplicate, but no atomic executed there
            dup.atomicVa = f.mrB.address() + 4096;
            dup.atomicRkey = f.mrB.rkey();
            dup.atomicSwapAdd = 5;
            Wiretap.inject(f.wireA, f.portA(), f.wireB, dup);
            f.settle();
            assertEquals(answered, sentB.size(), "no answer of any kind: " + sentB.subList(answered, sentB.size()));
            assertEquals(15, remote.getLong(4096), "not executed");
            assertEquals(1, f.b.counters().get(Counter.ATOMICS_EXECUTED));
            assertEquals(1, f.b.counters().get(Counter.DUPLICATE_REQUEST));
            assertEquals(dropped + 1, f.b.counters().get(Counter.RCVD_DROPPED));
            recv(f, 3);
            f.postA(send(f, 3, 8));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status(), "the expected PSN did not move");
        }
    }

    /**
     * IBA 9.7, repeated duplicate requests rule 3: "If, while re-executing a duplicate RDMA READ request, the
     * responder detects an error before returning the first response packet, it silently drops
     * the duplicate request." The READ's region is deregistered after its answer; its duplicate
     * (the original's PSN and range) now fails the access check: no response and no NAK, counted,
     * the expected PSN unchanged and the QP still ready.
     */
    @Test
    void anErrorBeforeADuplicateReadsFirstResponseDropsItSilently() {
        try (RcFixture f = fixture(126)) {
            var sentB = Wiretap.sent(f.wireB);
            MemoryRegion source = f.pdB.registerMemory(ByteBuffer.allocateDirect(4 * MTU),
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
            f.postA(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address() + 100_000, 3 * MTU, f.mrA.lkey()).rdma(source.address(), source.rkey()));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            f.settle();
            int answered = sentB.size();
            long dropped = f.b.counters().get(Counter.RCVD_DROPPED);
            source.close();
            PacketFields dup = f.packet(n("RC_RDMA_READ_REQUEST"));
            dup.destQp = f.qpB.qpn();
            dup.psn = PSN_A;
            dup.rethVa = source.address();
            dup.rethRkey = source.rkey();
            dup.rethLength = 3 * MTU;
            Wiretap.inject(f.wireA, f.portA(), f.wireB, dup);
            f.settle();
            assertEquals(answered, sentB.size(), "no response and no NAK: " + sentB.subList(answered, sentB.size()));
            assertEquals(1, f.b.counters().get(Counter.DUPLICATE_REQUEST));
            assertEquals(dropped + 1, f.b.counters().get(Counter.RCVD_DROPPED));
            assertEquals(QpState.RTS, f.qpB.state());
            recv(f, 2);
            f.postA(send(f, 2, 8));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status(), "the expected PSN did not move");
        }
    }

    @Test
    void severalDuplicatesAreAnsweredInPsnOrder() {
        try (RcFixture f = fixture(116)) {
            var sentB = Wiretap.sent(f.wireB);
            ba(f).fault(Faults.dropFirst(PacketMatch.any(), 4));
            recv(f, 1);
            f.postA(send(f, 1, 8));
            f.postA(read(f, 2, 100));
            f.postA(new SendWorkRequest().wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(f.mrA.address() + 8, 8, f.mrA.lkey()).atomic(f.mrB.address() + 8192, f.mrB.rkey(), 1, 0));
            f.postA(write(f, 8).wrId(4));
            List<WorkCompletion> wcs = f.await(f.cqA, 4);
            for (int i = 0; i < 4; i++) {
                assertEquals(i + 1, wcs.get(i).wrId());
                assertEquals(WcStatus.SUCCESS, wcs.get(i).status(), wcs.get(i).toString());
            }
            List<String> answers = sentB.subList(4, sentB.size()).stream().map(Wiretap.Seen::opcode).toList();
            assertEquals(List.of(n("RC_ACKNOWLEDGE"), n("RC_RDMA_READ_RESPONSE_ONLY"), n("RC_ATOMIC_ACKNOWLEDGE"), n("RC_ACKNOWLEDGE")),
                    answers.subList(0, 4));
            assertEquals(1, f.b.counters().get(Counter.ATOMICS_EXECUTED));
        }
    }

    @Test
    void duplicateReadWithAnEarlierPsnIsServedAfterALaterRead() {
        try (RcFixture f = fixture(117)) {
            ba(f).fault(Faults.dropFirst(PacketMatch.psn(-1, PSN_A), 1));
            RcFixture.fill(f.bufB, 200_000, 200, 4);
            f.postA(read(f, 1, 100));
            f.postA(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address() + 150_000, 100, f.mrA.lkey()).rdma(f.mrB.address() + 200_100, f.mrB.rkey()));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
            assertTrue(RcFixture.same(f.bufB, 200_000, f.bufA, 100_000, 100));
            assertTrue(RcFixture.same(f.bufB, 200_100, f.bufA, 150_000, 100));
        }
    }

    /**
     * IBA 9.7, repeated duplicate requests rules 6 and 7: the responses of a large READ go out paced, so the READ is
     * in progress when the requester, seeing them skip the lost response of an earlier READ
     * (an implied NAK), sends that READ again; the responder stops the READ in progress, answers
     * the earlier one, and does not finish the interrupted stream; the requester's go-back-N
     * retry of the large READ then gets it whole.
     */
    @Test
    void aDuplicateReadWithAnEarlierPsnInterruptsTheReadInProgress() {
        try (RcFixture f = fixture(120)) {
            ba(f).fault(Faults.dropFirst(PacketMatch.psn(-1, PSN_A), 1));
            int big = 64 * MTU;
            RcFixture.fill(f.bufB, 200_000, 100 + big, 6);
            f.postA(read(f, 1, 100));
            f.postA(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address() + 300_000, big, f.mrA.lkey()).rdma(f.mrB.address() + 200_100, f.mrB.rkey()));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
            assertTrue(RcFixture.same(f.bufB, 200_000, f.bufA, 100_000, 100));
            assertTrue(RcFixture.same(f.bufB, 200_100, f.bufA, 300_000, big));
            assertEquals(1, f.b.counters().get(Counter.READ_STREAMS_INTERRUPTED), "the 64-packet READ was cut short");
            long sent = f.b.counters().get(Counter.READ_RESPONSES_SENT);
            assertTrue(sent < 1 + 64 + 1 + 64, "the interrupted stream's rest was never sent: " + sent + " responses");
        }
    }

    @Test
    void responderResourcesAreSizedByMaxDestRdAtomicAndARecycledDuplicateIsDropped() {
        try (RcFixture f = fixture(118, RcOptions.defaults().withRdAtomic(2, 1), PSN_A, PSN_B)) {
            f.postA(read(f, 1, 100));
            f.postA(read(f, 2, 100));
            f.await(f.cqA, 2);
            long responses = f.b.counters().get(Counter.READ_RESPONSES_SENT);
            PacketFields dup = f.packet(n("RC_RDMA_READ_REQUEST"));
            dup.destQp = f.qpB.qpn();
            dup.psn = PSN_A; // the first READ's entry was overwritten by the second
            dup.rethVa = f.mrB.address() + 200_000;
            dup.rethRkey = f.mrB.rkey();
            dup.rethLength = 100;
            Wiretap.inject(f.wireA, f.portA(), f.wireB, dup);
            f.settle();
            assertEquals(responses, f.b.counters().get(Counter.READ_RESPONSES_SENT), "no answer: class D, silently dropped");
            assertEquals(1, f.b.counters().get(Counter.RCVD_DROPPED));
        }
    }

    @Test
    void retransmissionsCrossThePsnWrap() {
        try (RcFixture f = fixture(119, RcOptions.defaults(), 0xFFFFFC, 0xFFFFFE)) {
            ab(f).fault(Faults.dropPsnOnce(-1, 0xFFFFFF)).fault(Faults.dropPsnOnce(-1, 0x000001));
            RcFixture.fill(f.bufA, 0, 8 * MTU, 9);
            f.postA(write(f, 8 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 8 * MTU));
        }
    }

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
            assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS), "the READ response covered the lost ACK");
            assertEquals(0, f.a.counters().get(Counter.RETRANSMITTED_PKTS));
        }
    }
}
