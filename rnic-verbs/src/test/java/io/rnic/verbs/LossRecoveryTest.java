package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.hca.HcaLimits;
import io.rnic.core.hca.RecoveryTuning;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.psn.Psn;
import io.rnic.transport.fault.Faults;
import io.rnic.transport.fault.PacketMatch;
import io.rnic.transport.sim.LinkDirection;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The reorder-buffer scheme, "more memory, no wire change" ({@link LossRecovery#REORDER}), one
 * named test per rule, on the simulated network with scripted faults in virtual time: the
 * responder's reorder buffer and hole detection, and the requester's placement of READ responses
 * ahead of the expected one with selective re-reads of the missing pieces.
 */
class LossRecoveryTest {
    static final int PSN_A = 0x1000;
    static final int PSN_B = 0x2000;
    static final int MTU = 1024;

    static RcFixture fixture(long seed, LossRecovery mode) {
        return fixture(seed, mode, RecoveryTuning.defaults());
    }

    static RcFixture fixture(long seed, LossRecovery mode, RecoveryTuning tuning) {
        DeviceConfig config = DeviceConfig.defaults().withLimits(HcaLimits.defaults().withRecovery(tuning));
        return new RcFixture(seed, config, RcOptions.defaults().withLossRecovery(mode), PSN_A, PSN_B,
                QpCaps.defaults(), false);
    }

    static LinkDirection ab(RcFixture f) {
        return f.net.direction(f.wireA, f.wireB);
    }

    static LinkDirection ba(RcFixture f) {
        return f.net.direction(f.wireB, f.wireA);
    }

    static SendWorkRequest write(RcFixture f, long id, int offset, int len) {
        return new SendWorkRequest().wrId(id).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(f.mrA.address() + offset, len, f.mrA.lkey()).rdma(f.mrB.address() + offset, f.mrB.rkey());
    }

    static SendWorkRequest send(RcFixture f, long id, int offset, int len) {
        return new SendWorkRequest().wrId(id).opcode(WrOpcode.SEND).signaled(true)
                .sge(f.mrA.address() + offset, len, f.mrA.lkey());
    }

    static SendWorkRequest read(RcFixture f, long id, int offset, int len) {
        return new SendWorkRequest().wrId(id).opcode(WrOpcode.RDMA_READ).signaled(true)
                .sge(f.mrA.address() + offset, len, f.mrA.lkey()).rdma(f.mrB.address() + offset, f.mrB.rkey());
    }

    static List<Integer> psns(List<Wiretap.Seen> seen, String opcodePrefix) {
        return seen.stream().filter(s -> s.opcode().startsWith(opcodePrefix)).map(Wiretap.Seen::psn)
                .collect(Collectors.toList());
    }

    static PacketMatch opcode(String name) {
        return PacketMatch.opcode(OpcodeTable.byName(name).code());
    }

    // ------------------------------------------------------------------ responder: reorder buffer

    @Test
    void reorderedRequestIsHeldAndHandledInPsnOrderWithoutAnyRetransmission() {
        for (LossRecovery mode : new LossRecovery[] {LossRecovery.GO_BACK_N, LossRecovery.REORDER}) {
            try (RcFixture f = fixture(1, mode)) {
                ab(f).fault(Faults.delayPastNext(PacketMatch.psn(-1, PSN_A + 2)));
                RcFixture.fill(f.bufA, 0, 8 * MTU, 7);
                f.postA(write(f, 1, 0, 8 * MTU));
                assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
                assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 8 * MTU));
                if (mode == LossRecovery.REORDER) {
                    assertEquals(1, f.b.counters().get(Counter.OOO_REQUESTS_HELD));
                    assertEquals(0, f.b.counters().get(Counter.NAKS_SENT), "a late packet is not a lost one");
                    assertEquals(0, f.a.counters().get(Counter.RETRANSMITTED_PKTS));
                } else {
                    assertTrue(f.b.counters().get(Counter.NAKS_SENT) > 0, "go-back-N NAKs the overtaking packet");
                    assertTrue(f.a.counters().get(Counter.RETRANSMITTED_PKTS) > 0);
                }
            }
        }
    }

    @Test
    void heldSendTakesItsReceiveWqeOnlyWhenHandedBackInOrder() {
        try (RcFixture f = fixture(2, LossRecovery.REORDER)) {
            // A first SEND learns the responder's credits, so the next two go back to back.
            f.postRecvB(f.recvB(0, 8192, 4096));
            f.postRecvB(f.recvB(1, 0, 4096));
            f.postRecvB(f.recvB(2, 4096, 4096));
            f.postA(send(f, 0, 0, 8));
            assertEquals(0, f.await(f.cqB).wrId());
            f.await(f.cqA);
            ab(f).fault(Faults.delayPastNext(PacketMatch.psn(-1, PSN_A + 1)));
            RcFixture.fill(f.bufA, 0, 100, 1);
            RcFixture.fill(f.bufA, 100, 200, 2);
            f.postA(send(f, 1, 0, 100));
            f.postA(send(f, 2, 100, 200));
            List<WorkCompletion> wcs = f.await(f.cqB, 2);
            assertEquals(1, wcs.get(0).wrId(), "the first message takes the first receive WQE");
            assertEquals(100, wcs.get(0).byteLen());
            assertEquals(2, wcs.get(1).wrId());
            assertEquals(200, wcs.get(1).byteLen());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 100));
            assertTrue(RcFixture.same(f.bufA, 100, f.bufB, 4096, 200));
            assertEquals(1, f.b.counters().get(Counter.OOO_REQUESTS_HELD));
            assertEquals(0, f.a.counters().get(Counter.RETRANSMITTED_PKTS));
        }
    }

    @Test
    void holeWithHoleRunLaterArrivalsBehindItIsNakedAtOnce() {
        try (RcFixture f = fixture(3, LossRecovery.REORDER)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A + 3));
            RcFixture.fill(f.bufA, 0, 16 * MTU, 3);
            f.postA(write(f, 1, 0, 16 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 16 * MTU));
            assertEquals(1, f.b.counters().get(Counter.HOLE_NAKS_SENT));
            Wiretap.Seen nak = sentB.stream().filter(s -> s.syndrome() == 0x60).findFirst().orElseThrow();
            assertEquals(PSN_A + 3, nak.psn(), "the NAK names the hole");
            assertEquals(12, f.b.counters().get(Counter.OOO_REQUESTS_HELD), "every packet behind the hole was kept");
            long sentHoleRunth = sentA.get(3 + RecoveryTuning.defaults().holeRun()).at();
            assertTrue(nak.at() - sentHoleRunth < 10_000, "NAKed as the hole-run-th packet behind it arrived, not "
                    + "at the hole timeout: " + (nak.at() - sentHoleRunth) + " ns after it was sent");
            assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
        }
    }

    @Test
    void holeUnfilledForTheHoleTimeoutIsNakedLongBeforeTheAckTimeout() {
        try (RcFixture f = fixture(4, LossRecovery.REORDER)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A));
            f.postA(write(f, 1, 0, 3 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            Wiretap.Seen nak = sentB.stream().filter(s -> s.syndrome() == 0x60).findFirst().orElseThrow();
            long lastArrivalSent = sentA.get(2).at();
            long waited = nak.at() - lastArrivalSent;
            long timeout = RecoveryTuning.defaults().holeTimeoutNanos();
            assertTrue(waited >= timeout && waited < timeout + 50_000, "NAKed after the hole timeout, waited " + waited);
            assertEquals(1, f.b.counters().get(Counter.HOLE_NAKS_SENT));
            assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS), "not the 67 ms ACK timeout");
        }
    }

    @Test
    void requestBeyondTheReorderSpanIsHandledAsGoBackNHandlesIt() {
        RecoveryTuning small = new RecoveryTuning(64, 64L << 20, 100_000, 1000);
        try (RcFixture f = fixture(5, LossRecovery.REORDER, small)) {
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A));
            RcFixture.fill(f.bufA, 0, 100 * MTU, 5);
            f.postA(write(f, 1, 0, 100 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 100 * MTU));
            assertEquals(63, f.b.counters().get(Counter.OOO_REQUESTS_HELD), "PSNs 1..63 ahead fit the span of 64");
            assertTrue(f.b.counters().get(Counter.OOO_OVERFLOWS) > 0);
            assertEquals(1, f.b.counters().get(Counter.OUT_OF_SEQ_REQUEST), "the first beyond it drew the NAK");
        }
    }

    @Test
    void theHcaByteBudgetBoundsWhatAllQpsHold() {
        RecoveryTuning tight = new RecoveryTuning(256, 3 * (MTU + 100), 100_000, 1000);
        try (RcFixture f = fixture(6, LossRecovery.REORDER, tight)) {
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A));
            RcFixture.fill(f.bufA, 0, 10 * MTU, 6);
            f.postA(write(f, 1, 0, 10 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 10 * MTU));
            assertEquals(3, f.b.counters().get(Counter.OOO_REQUESTS_HELD), "three packets fit the budget");
            assertEquals(0, io.rnic.core.hca.HcaAccess.of(f.b).reorderBytesHeld(), "everything held was given back");
        }
    }

    @Test
    void heldRequestsAreReleasedWhenTheQpFails() {
        try (RcFixture f = fixture(7, LossRecovery.REORDER)) {
            ab(f).fault(Faults.only(PacketMatch.psn(-1, PSN_A), Faults.drop(1.0)));
            f.postA(write(f, 1, 0, 4 * MTU));
            f.net.scheduler().runFor(10_000);
            assertEquals(3, f.b.counters().get(Counter.OOO_REQUESTS_HELD));
            assertTrue(io.rnic.core.hca.HcaAccess.of(f.b).reorderBytesHeld() > 0);
            f.qpB.modify(new QpAttributes().state(QpState.ERR));
            assertEquals(0, io.rnic.core.hca.HcaAccess.of(f.b).reorderBytesHeld());
        }
    }

    // ------------------------------------------------------------------ requester: READ responses

    /** READ requests A sent, as (PSN, DMA length) pairs. */
    static List<long[]> readRequests(List<Wiretap.Seen> sentA) {
        return sentA.stream().filter(s -> s.opcode().contains("READ_REQUEST")).map(s -> new long[] {s.psn(), s.dmaLength()})
                .collect(Collectors.toList());
    }

    @Test
    void readResponseAheadOfTheExpectedOneIsPlacedAndOnlyTheMissingPieceIsReread() {
        for (LossRecovery mode : new LossRecovery[] {LossRecovery.GO_BACK_N, LossRecovery.REORDER}) {
            try (RcFixture f = fixture(10, mode)) {
                var sentA = Wiretap.sent(f.wireA);
                ba(f).fault(Faults.dropPsnOnce(-1, PSN_A + 2));
                RcFixture.fill(f.bufB, 0, 7 * MTU, 10);
                f.postA(read(f, 1, 0, 7 * MTU));
                assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
                assertTrue(RcFixture.same(f.bufB, 0, f.bufA, 0, 7 * MTU));
                List<long[]> reqs = readRequests(sentA);
                assertEquals(2, reqs.size());
                assertEquals(PSN_A + 2, reqs.get(1)[0], "asked again from the lost response's PSN");
                if (mode == LossRecovery.REORDER) {
                    assertEquals(MTU, reqs.get(1)[1], "for the one missing piece only");
                    assertEquals(4, f.a.counters().get(Counter.OOO_READ_RESPONSES));
                    assertEquals(1, f.a.counters().get(Counter.SELECTIVE_REREADS));
                    assertEquals(0, f.a.counters().get(Counter.IMPLIED_NAK));
                    assertEquals(8, f.b.counters().get(Counter.READ_RESPONSES_SENT));
                } else {
                    assertEquals(5 * MTU, reqs.get(1)[1], "go-back-N asks for everything from the loss on");
                    assertEquals(1, f.a.counters().get(Counter.IMPLIED_NAK));
                    assertEquals(12, f.b.counters().get(Counter.READ_RESPONSES_SENT));
                }
                assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
            }
        }
    }

    @Test
    void holeWithHoleRunResponsesBehindItIsRereadBeforeTheReadEnds() {
        try (RcFixture f = fixture(11, LossRecovery.REORDER)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            ba(f).fault(Faults.dropPsnOnce(-1, PSN_A + 3));
            RcFixture.fill(f.bufB, 0, 32 * MTU, 11);
            f.postA(read(f, 1, 0, 32 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(RcFixture.same(f.bufB, 0, f.bufA, 0, 32 * MTU));
            List<Wiretap.Seen> reqs = sentA.stream().filter(x -> x.opcode().contains("READ_REQUEST")).toList();
            assertEquals(2, reqs.size());
            assertEquals(PSN_A + 3, reqs.get(1).psn());
            long lastResponseArrived = sentB.stream().filter(x -> x.psn() == PSN_A + 31).findFirst().orElseThrow().at();
            assertTrue(reqs.get(1).at() - lastResponseArrived < RecoveryTuning.defaults().holeTimeoutNanos() / 10,
                    "re-read as the responses behind the hole came in, not a hole timeout later");
            assertEquals(1, f.a.counters().get(Counter.SELECTIVE_REREADS));
        }
    }

    /**
     * The quiet that asks a READ's missing pieces again is a retransmission timeout, and it backs
     * off: a responder whose answers after the first come 3 ms late (a JVM stalled mid-READ on a
     * real wire) draws a handful of re-reads, the wait doubling from the second on while none
     * brings an answer, not one every hole timeout (about thirty). Any answer resets the wait.
     */
    @Test
    void quietRereadsBackOffWhileNoAnswerComes() {
        try (RcFixture f = fixture(14, LossRecovery.REORDER)) {
            ba(f).fault(fate -> {
                if (fate.psn() != PSN_A) {
                    fate.delay(3_000_000);
                }
            });
            RcFixture.fill(f.bufB, 0, 4 * MTU, 14);
            f.postA(read(f, 1, 0, 4 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(RcFixture.same(f.bufB, 0, f.bufA, 0, 4 * MTU));
            long rereads = f.a.counters().get(Counter.SELECTIVE_REREADS);
            // After 100 µs of quiet, 100 more, then 200, 400 and 800: five asks before the first
            // answer at 3 ms (the sixth would wait until 3.2 ms).
            assertEquals(5, rereads, "re-reads while nothing came back");
            assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
        }
    }

    @Test
    void ackBeyondAReadMissingAPieceIsAppliedOnceTheReadCompletes() {
        try (RcFixture f = fixture(12, LossRecovery.REORDER)) {
            ba(f).fault(Faults.dropPsnOnce(-1, PSN_A + 1));
            RcFixture.fill(f.bufB, 0, 4 * MTU, 12);
            RcFixture.fill(f.bufA, 100_000, 512, 13);
            f.postA(read(f, 1, 0, 4 * MTU));
            f.postA(write(f, 2, 100_000, 512));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(1, wcs.get(0).wrId());
            assertEquals(2, wcs.get(1).wrId());
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
            assertTrue(RcFixture.same(f.bufB, 0, f.bufA, 0, 4 * MTU));
            assertEquals(0, f.a.counters().get(Counter.IMPLIED_NAK));
            assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
            assertEquals(0, f.b.counters().get(Counter.DUPLICATE_REQUEST) - 1, "only the re-read was a duplicate");
        }
    }

    @Test
    void laterReadResponsesArePlacedWhileAnEarlierReadMissesAPiece() {
        try (RcFixture f = fixture(13, LossRecovery.REORDER)) {
            var sentA = Wiretap.sent(f.wireA);
            ba(f).fault(Faults.dropPsnOnce(-1, PSN_A + 3));
            RcFixture.fill(f.bufB, 0, 8 * MTU, 13);
            f.postA(read(f, 1, 0, 4 * MTU));
            f.postA(read(f, 2, 4 * MTU, 4 * MTU));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(List.of(1L, 2L), wcs.stream().map(WorkCompletion::wrId).toList());
            assertTrue(RcFixture.same(f.bufB, 0, f.bufA, 0, 8 * MTU));
            List<long[]> reqs = readRequests(sentA);
            assertEquals(3, reqs.size(), "A, B, and A's last piece again; B is not asked for twice");
            assertEquals(PSN_A + 3, reqs.get(2)[0]);
            assertEquals(MTU, reqs.get(2)[1]);
            assertEquals(4, f.a.counters().get(Counter.OOO_READ_RESPONSES));
        }
    }

    // ------------------------------------------------------------------ the extended protocol

    @Test
    void selectiveModeSendsManufacturerOpcodesWithAnSrethOnEveryPacket() {
        try (RcFixture f = fixture(20, LossRecovery.SELECTIVE)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            f.postA(write(f, 1, 0, 3 * MTU));
            f.postA(read(f, 2, 8 * MTU, 2 * MTU));
            assertEquals(2, f.await(f.cqA, 2).size());
            assertTrue(sentA.stream().allMatch(x -> x.opcode().startsWith("SR_")), sentA.toString());
            assertTrue(sentB.stream().allMatch(x -> x.opcode().startsWith("SR_")), sentB.toString());
            assertEquals(0xE0 | 0x06, OpcodeTable.byName("SR_RDMA_WRITE_FIRST").code());
        }
    }

    @Test
    void writePacketsAheadOfAHoleArePlacedOnArrivalAndOnlyTheirHeadersKept() {
        try (RcFixture f = fixture(21, LossRecovery.SELECTIVE)) {
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A));
            RcFixture.fill(f.bufA, 0, 4 * MTU, 21);
            f.postA(write(f, 1, 0, 4 * MTU));
            f.net.scheduler().runFor(20_000); // the three after the hole have arrived; no NAK yet
            assertEquals(3, f.b.counters().get(Counter.OOO_REQUESTS_PLACED));
            assertTrue(RcFixture.same(f.bufA, MTU, f.bufB, MTU, 3 * MTU), "placed before the hole filled");
            assertTrue(io.rnic.core.hca.HcaAccess.of(f.b).reorderBytesHeld() <= 3 * 100, "headers only: " + io.rnic.core.hca.HcaAccess.of(f.b).reorderBytesHeld());
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 4 * MTU));
            assertEquals(0, io.rnic.core.hca.HcaAccess.of(f.b).reorderBytesHeld());
        }
    }

    @Test
    void sendPacketsAheadOfAHoleArePlacedInTheReceiveWqeTheirSrethNumbers() {
        try (RcFixture f = fixture(22, LossRecovery.SELECTIVE)) {
            f.postRecvB(f.recvB(0, 100_000, 4096));
            f.postRecvB(f.recvB(1, 0, 8192));
            f.postRecvB(f.recvB(2, 8192, 8192));
            f.postA(send(f, 0, 0, 8));
            f.await(f.cqB);
            f.await(f.cqA);
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A + 1)); // the first packet of message 1
            RcFixture.fill(f.bufA, 0, 3 * MTU, 22);
            RcFixture.fill(f.bufA, 16384, 2 * MTU, 23);
            f.postA(send(f, 1, 0, 3 * MTU));
            f.postA(send(f, 2, 16384, 2 * MTU));
            f.net.scheduler().runFor(20_000);
            assertEquals(4, f.b.counters().get(Counter.OOO_REQUESTS_PLACED), "two of message 1, both of message 2");
            assertTrue(RcFixture.same(f.bufA, MTU, f.bufB, MTU, 2 * MTU), "message 1's tail in receive WQE 1");
            assertTrue(RcFixture.same(f.bufA, 16384, f.bufB, 8192, 2 * MTU), "message 2 in receive WQE 2");
            List<WorkCompletion> wcs = f.await(f.cqB, 2);
            assertEquals(List.of(1L, 2L), wcs.stream().map(WorkCompletion::wrId).toList());
            assertEquals(3 * MTU, wcs.get(0).byteLen());
            assertEquals(2 * MTU, wcs.get(1).byteLen());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 3 * MTU));
        }
    }

    @Test
    void selectiveNakListsExactlyTheMissingPsnsAndOnlyThoseAreSentAgain() {
        try (RcFixture f = fixture(23, LossRecovery.SELECTIVE)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A + 3)).fault(Faults.dropPsnOnce(-1, PSN_A + 7));
            RcFixture.fill(f.bufA, 0, 16 * MTU, 23);
            f.postA(write(f, 1, 0, 16 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 16 * MTU));
            List<Integer> writes = psns(sentA, "SR_RDMA_WRITE");
            assertEquals(18, writes.size(), "16 packets and the 2 lost ones: " + writes);
            assertEquals(List.of(PSN_A + 3, PSN_A + 7), writes.subList(16, 18));
            Wiretap.Seen nak = sentB.stream().filter(x -> x.syndrome() == 0x60).findFirst().orElseThrow();
            assertEquals(PSN_A + 3, nak.psn());
            assertEquals(2, f.a.counters().get(Counter.SELECTIVE_RETRANSMISSIONS));
            assertEquals(2, f.a.counters().get(Counter.RETRANSMITTED_PKTS));
            assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
        }
    }

    /**
     * Selective retransmission: selective retransmission resends only what was lost, tail loss included. A
     * 32-packet WRITE loses packets +1, +2, +10, +20 and +31 (its last, which no later packet
     * reveals): the holes behind later packets are NAKed and resent, the tail after a short
     * retransmission timeout (IRN's RTO_low, few packets being in flight), and the responder
     * acknowledges everything it holds once the last hole fills. At most 1.1 packets resent per
     * packet lost (exactly the five here), where 15 were resent before.
     */
    @Test
    void selectiveRetransmissionResendsOnlyTheLostPacketsTailIncluded() {
        try (RcFixture f = fixture(25, LossRecovery.SELECTIVE)) {
            var sentA = Wiretap.sent(f.wireA);
            int[] lost = {1, 2, 10, 20, 31};
            for (int i : lost) {
                ab(f).fault(Faults.dropPsnOnce(-1, PSN_A + i));
            }
            RcFixture.fill(f.bufA, 0, 32 * MTU, 25);
            long start = f.net.scheduler().nanoTime();
            f.postA(write(f, 1, 0, 32 * MTU));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            long took = f.net.scheduler().nanoTime() - start;
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 32 * MTU));
            assertEquals(1, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS), "the tail's");
            assertTrue(took < 1_000_000, "the tail went again after RTO_low (100 us), not the 67 ms ACK timeout: "
                    + took + " ns");
            long resent = f.a.counters().get(Counter.RETRANSMITTED_PKTS);
            assertTrue(resent <= 1.1 * lost.length, resent + " packets resent for " + lost.length + " lost: "
                    + psns(sentA, "SR_RDMA_WRITE").subList(32, psns(sentA, "SR_RDMA_WRITE").size()));
            List<Integer> again = psns(sentA, "SR_RDMA_WRITE").subList(32, 32 + (int) resent);
            assertEquals(java.util.Arrays.stream(lost).map(i -> PSN_A + i).boxed().collect(Collectors.toSet()),
                    new java.util.HashSet<>(again), "exactly the lost packets went again");
        }
    }

    /**
     * IRN's RTO_low (the selective-retransmission protocol): it applies once per forward progress. A
     * 4-packet WRITE whose last packet is lost twice: the first resend leaves after RTO_low
     * (100 µs in virtual time), and when it is lost too the next waits for the normal ACK
     * timeout (67 ms), so a slow peer cannot make RTO_low spend the retry budget. Set to 0, it is
     * off: the tail waits for the normal timeout at once.
     */
    @Test
    void rtoLowAppliesOncePerProgressAndCanBeTurnedOff() {
        long normal = 4096L << 14;
        for (boolean off : new boolean[] {false, true}) {
            RecoveryTuning tuning = off ? RecoveryTuning.defaults().withRtoLow(0, 3) : RecoveryTuning.defaults();
            try (RcFixture f = fixture(26, LossRecovery.SELECTIVE, tuning)) {
                ab(f).fault(Faults.dropFirst(PacketMatch.psn(-1, PSN_A + 3), off ? 1 : 2));
                long start = f.net.scheduler().nanoTime();
                f.postA(write(f, 1, 0, 4 * MTU));
                assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
                long took = f.net.scheduler().nanoTime() - start;
                if (off) {
                    assertTrue(took > normal && took < normal + 1_000_000, "off: the normal timeout, " + took + " ns");
                    assertEquals(1, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
                } else {
                    assertTrue(took > normal + 100_000 && took < normal + 1_000_000,
                            "RTO_low, then the normal timeout: " + took + " ns");
                    assertEquals(2, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
                }
                assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 4 * MTU));
            }
        }
    }

    @Test
    void aStandardPeerDropsSelectivePacketsAsAnotherTransports() {
        DeviceConfig config = DeviceConfig.defaults();
        try (SimPair f = new SimPair(24, config)) {
            QueuePair qa = f.pdA.createQp(QpInitAttributes.rc(f.cqA, f.cqA));
            QueuePair qb = f.pdB.createQp(QpInitAttributes.rc(f.cqB, f.cqB));
            RcOptions o = RcOptions.defaults().withRetry(14, 1, 7);
            ConnectionInfo ia = Connections.local(qa, PSN_A, f.mrA);
            ConnectionInfo ib = Connections.local(qb, PSN_B, f.mrB);
            Connections.connect(qa, ia, ib, o.withLossRecovery(LossRecovery.SELECTIVE),
                    f.wireB.localAddress().getPort());
            Connections.connect(qb, ib, ia, o, f.wireA.localAddress().getPort());
            qa.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(f.mrA.address(), 64, f.mrA.lkey()).rdma(f.mrB.address(), f.mrB.rkey()));
            assertEquals(WcStatus.RETRY_EXC_ERR, f.await(f.cqA).status());
            assertEquals(2, f.b.counters().get(Counter.RCVD_WRONG_QP_STATE_OR_TYPE));
        }
    }

    @Test
    void underRandomLossAndReorderingEveryMessageCompletesInOrderExactlyOnce() {
        for (LossRecovery mode : new LossRecovery[] {LossRecovery.REORDER, LossRecovery.SELECTIVE}) {
            try (RcFixture f = fixture(8, mode)) {
                ab(f).fault(Faults.drop(0.02)).fault(Faults.reorder(0.05, 3_000));
                ba(f).fault(Faults.drop(0.02)).fault(Faults.reorder(0.05, 3_000));
                int n = 60;
                for (int i = 0; i < n; i++) {
                    f.postRecvB(f.recvB(i, 600_000 + (i % 16) * 4096, 4096));
                }
                RcFixture.fill(f.bufA, 0, 512 * 1024, 11);
                RcFixture.fill(f.bufB, 300_000, 64 * 1024, 12);
                for (int i = 0; i < n; i++) {
                    switch (i % 3) {
                        case 0 -> f.postA(write(f, i, (i % 8) * 16 * MTU, 16 * MTU));
                        case 1 -> f.postA(send(f, i, (i % 8) * 4096, 3000));
                        default -> f.postA(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_READ).signaled(true)
                                .sge(f.mrA.address() + 700_000, 16 * MTU, f.mrA.lkey())
                                .rdma(f.mrB.address() + 300_000, f.mrB.rkey()));
                    }
                }
                List<WorkCompletion> wcs = f.await(f.cqA, n);
                for (int i = 0; i < n; i++) {
                    assertEquals(i, wcs.get(i).wrId(), "completions in posting order");
                    assertEquals(WcStatus.SUCCESS, wcs.get(i).status());
                }
                assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 8 * 16 * MTU));
                assertTrue(RcFixture.same(f.bufB, 300_000, f.bufA, 700_000, 16 * MTU));
                List<WorkCompletion> recvs = f.await(f.cqB, n / 3);
                assertEquals(n / 3, recvs.size());
                f.settle();
                assertEquals(0, f.cqB.size(), "each SEND received exactly once");
            }
        }
    }
}
