package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.DecodeResult;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketDecoder;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.wire.WireTap;
import io.rnic.transport.fault.FaultModel;
import io.rnic.transport.fault.Faults;
import io.rnic.transport.fault.PacketMatch;
import io.rnic.transport.sim.LinkDirection;
import io.rnic.transport.sim.SimWire;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Reliable datagram service (IBA 9.7.8) between two nodes on the simulated network, in
 * virtual time: one test per normative rule the seed states for a channel adapter (o9-100 to
 * o9-114.a4), the seed's outbound and inbound examples, and the recovery of 9.7.8.5 (abandon,
 * suspend, RESYNC, the MSN rule of 9.7.8.6.1 and the "r3" ghost). RC's PSN, retry and duplicate
 * rules, which RD keeps per EE context, run on an RD pair in {@link RdReliabilityTest}.
 */
class RdTest {
    /** A decoded packet as a wire sent it, with the virtual time it left. */
    record Sent(PacketFields f, long at) {
        String opcode() {
            return f.opcode().name();
        }

        boolean request() {
            return !f.opcode().isResponse();
        }

        @Override
        public String toString() {
            return opcode() + "@" + f.psn;
        }
    }

    /** Every packet {@code wire} sends, decoded. */
    static List<Sent> sent(SimWire wire) {
        List<Sent> out = new ArrayList<>();
        PacketDecoder decoder = new PacketDecoder();
        wire.addTap((dir, ts, p, s, d) -> {
            if (dir == WireTap.Direction.SENT) {
                RocePacket r = new RocePacket();
                if (decoder.decode(p, p.readerIndex(), p.readableBytes(), r) == DecodeResult.OK) {
                    out.add(new Sent(PacketFields.readFrom(r), ts));
                }
            }
        });
        return out;
    }

    /** A view of {@code b} in the byte order atomics use (the host's, little-endian here). */
    static java.nio.ByteBuffer le(java.nio.ByteBuffer b) {
        return b.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    static List<Sent> named(List<Sent> all, String prefix) {
        return all.stream().filter(s -> s.opcode().startsWith(prefix)).toList();
    }

    private static LinkDirection ab(SimPair f) {
        return f.net.direction(f.wireA, f.wireB);
    }

    private static LinkDirection ba(SimPair f) {
        return f.net.direction(f.wireB, f.wireA);
    }

    /** A second pair of EE contexts between the fixture's nodes, in its domains. */
    private static EeContext[] secondContexts(RdFixture f) {
        EeContext a = f.rddA.createEeContext();
        EeContext b = f.rddB.createEeContext();
        Connections.connectEeContexts(a, 0x300, b, 0x400, RcOptions.defaults());
        return new EeContext[] {a, b};
    }

    // ------------------------------------------------------------------ o9-100, o9-101

    /** o9-100: consecutive messages of RD QPs go to different QPs of another node, all through one context. */
    @Test
    void o9_100_twoQpsSendThroughOneEeContextToTwoQpsOfAnotherNode() {
        try (RdFixture f = new RdFixture(1)) {
            SimPair.fill(f.bufA, 0, 8192, 7);
            f.b1.postRecv(f.recvB(11, 0, 4096));
            f.b2.postRecv(f.recvB(12, 4096, 4096));
            f.a1.postSend(f.sendTo(f.b1, 1, 0, 3000));
            f.a2.postSend(f.sendTo(f.b2, 2, 4096, 3000));
            for (WorkCompletion wc : f.await(f.cqA, 2)) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            }
            List<WorkCompletion> got = f.await(f.cqB, 2);
            for (WorkCompletion wc : got) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                assertEquals(3000, wc.byteLen());
            }
            assertEquals(f.a1.qpn(), got.get(0).srcQp(), "the receive completion names the sending RD QP");
            assertEquals(f.a2.qpn(), got.get(1).srcQp());
            assertEquals(f.b1.qpn(), got.get(0).qpNum());
            assertEquals(f.b2.qpn(), got.get(1).qpNum());
            assertTrue(SimPair.same(f.bufA, 0, f.bufB, 0, 3000));
            assertTrue(SimPair.same(f.bufA, 4096, f.bufB, 4096, 3000));
        }
    }

    /**
     * o9-101 and the seed's step 9: one QP sends its messages through whichever context each
     * names, in turn, and a QP receives from several contexts of its domain.
     */
    @Test
    void o9_101_oneQpUsesTwoContextsInTurnAndAQpReceivesFromBoth() {
        try (RdFixture f = new RdFixture(2)) {
            EeContext[] second = secondContexts(f);
            var sentA = sent(f.wireA);
            SimPair.fill(f.bufA, 0, 4096, 3);
            f.b1.postRecv(f.recvB(11, 0, 1024));
            f.b1.postRecv(f.recvB(12, 1024, 1024));
            f.a1.postSend(f.sendA(1, 0, 1000).rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            f.a1.postSend(f.sendA(2, 1024, 1000).rd(second[0].eecn(), f.b1.qpn(), RdFixture.QKEY));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(List.of(1L, 2L), List.of(wcs.get(0).wrId(), wcs.get(1).wrId()));
            assertEquals(2, f.await(f.cqB, 2).size());
            List<Sent> sends = named(sentA, "RD_SEND");
            assertEquals(f.eecB.eecn(), sends.get(0).f().rdethEec);
            assertEquals(second[1].eecn(), sends.get(1).f().rdethEec);
            assertEquals(0x100, sends.get(0).f().psn, "each context numbers its packets itself");
            assertEquals(0x300, sends.get(1).f().psn);
            assertTrue(SimPair.same(f.bufA, 0, f.bufB, 0, 1000));
            assertTrue(SimPair.same(f.bufA, 1024, f.bufB, 1024, 1000));
        }
    }

    // ------------------------------------------------------------------ o9-102, o9-103, outbound example

    /**
     * o9-102, o9-103 and the outbound example (9.7.8.2.1 steps 2, 9, 10): one message at a time
     * on the context and per QP; a QP whose message completed rejoins the context's list at its
     * tail, so two QPs sharing a context take turns.
     */
    @Test
    void o9_102_o9_103_oneMessageAtATimeAndQpsTakeTurnsOnTheContext() {
        try (RdFixture f = new RdFixture(3)) {
            var sentA = sent(f.wireA);
            var sentB = sent(f.wireB);
            for (int i = 0; i < 3; i++) {
                f.b1.postRecv(f.recvB(10 + i, i * 4096, 4096));
                f.b2.postRecv(f.recvB(20 + i, 16384 + i * 4096, 4096));
            }
            f.a1.postSend(f.sendTo(f.b1, 1, 0, 3000));
            f.a1.postSend(f.sendTo(f.b1, 2, 0, 3000));
            f.a2.postSend(f.sendTo(f.b2, 3, 0, 3000));
            f.a2.postSend(f.sendTo(f.b2, 4, 0, 3000));
            f.await(f.cqA, 4);
            List<Sent> firsts = named(sentA, "RD_SEND_FIRST");
            List<Integer> senders = firsts.stream().map(s -> s.f().dethSrcQp).toList();
            assertEquals(List.of(f.a1.qpn(), f.a2.qpn(), f.a1.qpn(), f.a2.qpn()), senders, "QPs alternate");
            List<Sent> acks = named(sentB, "RD_ACKNOWLEDGE");
            assertEquals(4, acks.size(), "one coalesced ACK per three-packet message: " + acks);
            for (int m = 1; m < 4; m++) {
                long start = firsts.get(m).at();
                int lastPsnBefore = firsts.get(m).f().psn - 1;
                assertTrue(acks.stream().anyMatch(a -> a.f().psn == lastPsnBefore && a.at() < start),
                        "message " + m + " started only after the ACK of the one before: " + sentA + " " + sentB);
            }
        }
    }

    // ------------------------------------------------------------------ o9-104

    /** o9-104: requests carry BTH, RDETH (the responder's context), DETH (Q_Key, source QP); responses RDETH. */
    @Test
    void o9_104_requestsCarryRdethAndDethAndResponsesRdeth() {
        try (RdFixture f = new RdFixture(4)) {
            var sentA = sent(f.wireA);
            var sentB = sent(f.wireB);
            f.b2.postRecv(f.recvB(1, 0, 64));
            f.a1.postSend(f.sendTo(f.b2, 1, 0, 32));
            f.await(f.cqA);
            Sent req = sentA.get(0);
            assertEquals("RD_SEND_ONLY", req.opcode());
            assertTrue(req.f().opcode().has(Header.RDETH) && req.f().opcode().has(Header.DETH));
            assertEquals(f.b2.qpn(), req.f().destQp, "the BTH names the destination RD QP");
            assertEquals(f.eecB.eecn(), req.f().rdethEec, "the RDETH names the responder's context");
            assertEquals(RdFixture.QKEY, req.f().dethQkey);
            assertEquals(f.a1.qpn(), req.f().dethSrcQp);
            Sent ack = sentB.get(0);
            assertEquals("RD_ACKNOWLEDGE", ack.opcode());
            assertTrue(ack.f().opcode().has(Header.RDETH) && !ack.f().opcode().has(Header.DETH));
            assertEquals(f.eecA.eecn(), ack.f().rdethEec, "the RDETH names the requester's context");
            assertEquals(f.a1.qpn(), ack.f().destQp, "the BTH names the QP that sent the request");
        }
    }

    // ------------------------------------------------------------------ o9-107 and the QP-error choices

    /**
     * 9.7.8.1 and o9-107: a Q_Key violation is NAKed Invalid RD Request; the sending QP's message
     * is abandoned (REM_INV_RD_REQ_ERR, its send queue to SQE), the context RESYNCs and carries
     * the other QP's message; moved back to RTS, the QP sends again.
     */
    @Test
    void o9_107_qkeyViolationIsNakedInvalidRdRequestAndTheContextCarriesOn() {
        try (RdFixture f = new RdFixture(5)) {
            var sentA = sent(f.wireA);
            var sentB = sent(f.wireB);
            f.b1.postRecv(f.recvB(11, 0, 64));
            f.b2.postRecv(f.recvB(12, 64, 64));
            f.a1.postSend(f.sendA(1, 0, 32).rd(f.eecA.eecn(), f.b1.qpn(), 0x0BAD0000));
            f.a2.postSend(f.sendTo(f.b2, 2, 0, 32));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.REM_INV_RD_REQ_ERR, wcs.get(0).status());
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
            assertEquals(AethSyndrome.nak(AethSyndrome.NAK_INVALID_RD_REQUEST), named(sentB, "RD_ACKNOWLEDGE").get(0).f().aethSyndrome);
            assertEquals(List.of("RD_SEND_ONLY", "RD_RESYNC", "RD_SEND_ONLY"), sentA.stream().map(Sent::opcode).toList());
            assertEquals(QpState.SQE, f.a1.state(), "the sending QP's send queue is in error");
            assertEquals(QpState.RTS, f.eecA.state());
            assertEquals(QpState.RTS, f.eecB.state());
            assertEquals(QpState.RTS, f.b1.state(), "the QP the request was for carries on");
            assertEquals(1, f.b.counters().get(Counter.QKEY_VIOL_CNTR));
            assertEquals(1, f.cqB.size());
            f.a1.modify(new QpAttributes().state(QpState.RTS));
            f.a1.postSend(f.sendTo(f.b1, 3, 0, 32));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
        }
    }

    /** o9-107: an R_Key violation abandons the WRITE; neither context nor the target QP stops. */
    @Test
    void o9_107_rkeyViolationAbandonsTheMessageNotTheContext() {
        try (RdFixture f = new RdFixture(6)) {
            f.a1.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(f.mrA.address(), 64, f.mrA.lkey()).rdma(f.mrB.address(), f.mrB.rkey() ^ 0x100)
                    .rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            f.a2.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(f.mrA.address(), 64, f.mrA.lkey()).rdma(f.mrB.address() + 4096, f.mrB.rkey())
                    .rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.REM_ACCESS_ERR, wcs.get(0).status());
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
            assertEquals(QpState.RTS, f.b1.state());
            assertEquals(QpState.RTS, f.eecB.state());
            assertEquals(1, f.a.counters().get(Counter.RD_MESSAGES_ABANDONED));
            assertEquals(1, f.a.counters().get(Counter.RD_RESYNCS_COMPLETED));
        }
    }

    /** 9.7.8.1: a request for a QP not configured for RD is answered NAK Invalid RD Request. */
    @Test
    void requestForAQpNotConfiguredForRdIsNakedInvalidRdRequest() {
        try (RdFixture f = new RdFixture(7)) {
            QueuePair ud = f.pdB.createQp(QpInitAttributes.ud(f.cqB, f.cqB));
            Connections.readyDatagram(ud, RdFixture.QKEY, 0);
            ud.postRecv(f.recvB(1, 0, 128));
            f.a1.postSend(f.sendA(1, 0, 32).rd(f.eecA.eecn(), ud.qpn(), RdFixture.QKEY));
            assertEquals(WcStatus.REM_INV_RD_REQ_ERR, f.await(f.cqA).status());
            assertEquals(1, f.b.counters().get(Counter.RD_INVALID_REQUESTS));
            assertEquals(0, f.cqB.size(), "nothing was delivered to the UD QP");
        }
    }

    /** IBA 10.2.8: a request whose target QP is in another RDD than the context is NAKed Invalid RD Request. */
    @Test
    void requestForAQpOfAnotherRddIsNakedInvalidRdRequest() {
        try (RdFixture f = new RdFixture(8)) {
            ReliableDatagramDomain other = f.b.allocRdd();
            QueuePair stranger = RdFixture.rdQp(f.pdB, f.cqB, other);
            stranger.postRecv(f.recvB(1, 0, 128));
            f.a1.postSend(f.sendA(1, 0, 32).rd(f.eecA.eecn(), stranger.qpn(), RdFixture.QKEY));
            assertEquals(WcStatus.REM_INV_RD_REQ_ERR, f.await(f.cqA).status());
            assertEquals(1, f.b.counters().get(Counter.RD_RDD_VIOLATIONS));
            assertEquals(0, f.cqB.size());
        }
    }

    /** A work request is refused at post when it names no context, or one of another RDD. */
    @Test
    void workRequestMustNameAContextOfTheQpsDomain() {
        try (RdFixture f = new RdFixture(9)) {
            ReliableDatagramDomain other = f.a.allocRdd();
            EeContext foreign = other.createEeContext();
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                    () -> f.a1.postSend(f.sendA(1, 0, 8).rd(foreign.eecn(), f.b1.qpn(), RdFixture.QKEY)));
            assertTrue(x.getMessage().contains("reliable datagram domain"), x.getMessage());
            x = assertThrows(IllegalArgumentException.class, () -> f.a1.postSend(f.sendA(1, 0, 8)));
            assertTrue(x.getMessage().contains("EE context"), x.getMessage());
            x = assertThrows(IllegalArgumentException.class, () -> f.pdA.createQp(QpInitAttributes.rd(f.cqA, f.cqA)));
            assertTrue(x.getMessage().contains("createRdQp"), x.getMessage());
            IllegalStateException busy = assertThrows(IllegalStateException.class, other::close);
            assertTrue(busy.getMessage().contains("still has 1"), busy.getMessage());
            foreign.close();
            other.close();
        }
    }

    /**
     * 9.7.8.1, implementation note: an RD packet whose RDETH names a context that is not in EE
     * mode (here an RD QP's number) is dropped silently.
     */
    @Test
    void rdPacketForAContextNotInEeModeIsDroppedSilently() {
        try (RdFixture f = new RdFixture(10)) {
            var sentB = sent(f.wireB);
            PacketFields p = new PacketFields().opcode(OpcodeTable.byName("RD_SEND_ONLY"));
            p.destQp = f.b1.qpn();
            p.rdethEec = f.b2.qpn();
            p.dethQkey = RdFixture.QKEY;
            p.dethSrcQp = f.a1.qpn();
            p.psn = 0x100;
            p.ackReq = true;
            f.b1.postRecv(f.recvB(1, 0, 64));
            Wiretap.inject(f.wireA, f.eecA.sourcePort(), f.wireB, p);
            f.settle();
            assertEquals(1, f.b.counters().get(Counter.RCVD_WRONG_QP_STATE_OR_TYPE));
            assertTrue(sentB.isEmpty(), "no answer: " + sentB);
            assertEquals(0, f.cqB.size());
        }
    }

    // ------------------------------------------------------------------ o9-108

    /** o9-108: SEND with immediate, RDMA WRITE with and without immediate, RDMA READ and both atomics. */
    @Test
    void o9_108_sendWriteReadAndAtomicsThroughAContext() {
        try (RdFixture f = new RdFixture(11)) {
            SimPair.fill(f.bufA, 0, 6000, 1);
            SimPair.fill(f.bufB, 100_000, 6000, 2);
            le(f.bufB).putLong(200_000, 40);
            f.b1.postRecv(f.recvB(1, 0, 8192));
            f.b1.postRecv(f.recvB(2, 0, 0));
            QueuePair q = f.a1;
            q.postSend(f.sendTo(f.b1, 1, 0, 5000).opcode(WrOpcode.SEND_WITH_IMM).imm(0x1234));
            q.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(f.mrA.address(), 6000, f.mrA.lkey()).rdma(f.mrB.address() + 20_000, f.mrB.rkey())
                    .rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            q.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).imm(7).signaled(true)
                    .rdma(f.mrB.address() + 40_000, f.mrB.rkey()).rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            q.postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address() + 50_000, 6000, f.mrA.lkey()).rdma(f.mrB.address() + 100_000, f.mrB.rkey())
                    .rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            q.postSend(new SendWorkRequest().wrId(5).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(f.mrA.address() + 60_000, 8, f.mrA.lkey()).atomic(f.mrB.address() + 200_000, f.mrB.rkey(), 2, 0)
                    .rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            q.postSend(new SendWorkRequest().wrId(6).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                    .sge(f.mrA.address() + 60_008, 8, f.mrA.lkey()).atomic(f.mrB.address() + 200_000, f.mrB.rkey(), 42, 9)
                    .rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            List<WorkCompletion> wcs = f.await(f.cqA, 6);
            for (int i = 0; i < 6; i++) {
                assertEquals(i + 1, wcs.get(i).wrId());
                assertEquals(WcStatus.SUCCESS, wcs.get(i).status(), wcs.get(i).toString());
            }
            List<WorkCompletion> recvs = f.await(f.cqB, 2);
            assertEquals(0x1234, recvs.get(0).immData());
            assertEquals(5000, recvs.get(0).byteLen());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, recvs.get(1).opcode());
            assertEquals(7, recvs.get(1).immData());
            assertTrue(SimPair.same(f.bufA, 0, f.bufB, 0, 5000));
            assertTrue(SimPair.same(f.bufA, 0, f.bufB, 20_000, 6000));
            assertTrue(SimPair.same(f.bufB, 100_000, f.bufA, 50_000, 6000));
            assertEquals(40, le(f.bufA).getLong(60_000));
            assertEquals(42, le(f.bufA).getLong(60_008));
            assertEquals(9, le(f.bufB).getLong(200_000));
        }
    }

    // ------------------------------------------------------------------ o9-111: RNR

    /**
     * o9-111 and 9.7.8.5: an RD receive queue's overflow is answered with an RNR NAK; the message
     * is suspended while the other QP's message goes through the same context (o9-107: the RNR
     * does not hold the context), and restarts as a new message once the timer has passed.
     */
    /**
     * 9.7.8.3.2 and 9.7.8.3.3: unlike RC's, "the number of outstanding RDMA READ request messages
     * in a single QP or EEC shall be limited to 1", and so shall atomic requests. Two QPs share a
     * context whose max_rd_atomic is 16 (RC's default): the second QP's atomic leaves only once
     * the first QP's READ is answered in full, and the first QP's next READ only once the
     * atomic's answer has come.
     */
    @Test
    void oneReadOrAtomicOutstandingPerContextWhateverMaxRdAtomicAllows() {
        try (RdFixture f = new RdFixture(34)) {
            assertEquals(16, f.eecA.query().maxRdAtomic(), "RC's default would allow 16");
            var sentA = sent(f.wireA);
            var sentB = sent(f.wireB);
            le(f.bufB).putLong(200_000, 5);
            SendWorkRequest read = new SendWorkRequest().opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address() + 8192, 3000, f.mrA.lkey()).rdma(f.mrB.address(), f.mrB.rkey())
                    .rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY);
            f.a1.postSend(read.wrId(1));
            f.a2.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(f.mrA.address() + 16384, 8, f.mrA.lkey()).atomic(f.mrB.address() + 200_000, f.mrB.rkey(), 1, 0)
                    .rd(f.eecA.eecn(), f.b2.qpn(), RdFixture.QKEY));
            f.a1.postSend(read.wrId(3));
            f.await(f.cqA, 3).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString()));
            List<Sent> requests = sentA.stream().filter(Sent::request).toList();
            assertEquals(List.of("RD_RDMA_READ_REQUEST", "RD_FETCH_ADD", "RD_RDMA_READ_REQUEST"),
                    requests.stream().map(Sent::opcode).toList());
            long readAnswered = named(sentB, "RD_RDMA_READ_RESPONSE_LAST").get(0).at();
            long atomicAnswered = named(sentB, "RD_ATOMIC_ACKNOWLEDGE").get(0).at();
            assertTrue(requests.get(1).at() > readAnswered, "the atomic waited for the READ's last response");
            assertTrue(requests.get(2).at() > atomicAnswered, "the next READ waited for the atomic's answer");
        }
    }

    @Test
    void o9_111_rnrNakSuspendsTheMessageWhileAnotherQpsGoesThrough() {
        try (RdFixture f = new RdFixture(12)) {
            var sentA = sent(f.wireA);
            f.b2.postRecv(f.recvB(2, 4096, 64));
            f.a1.postSend(f.sendTo(f.b1, 1, 0, 32));
            f.a2.postSend(f.sendTo(f.b2, 2, 0, 32));
            WorkCompletion first = f.await(f.cqA);
            assertEquals(2, first.wrId(), "the second QP's message went first");
            assertEquals(1, f.a.counters().get(Counter.RD_MESSAGES_SUSPENDED));
            assertEquals(1, f.b.counters().get(Counter.SEND_RNR_ERR));
            f.b1.postRecv(f.recvB(1, 0, 64));
            WorkCompletion second = f.await(f.cqA);
            assertEquals(1, second.wrId());
            assertEquals(WcStatus.SUCCESS, second.status());
            List<Integer> psns = named(sentA, "RD_SEND_ONLY").stream().filter(s -> s.f().dethSrcQp == f.a1.qpn())
                    .map(s -> s.f().psn).toList();
            assertTrue(psns.size() >= 2 && psns.stream().distinct().count() == psns.size(),
                    "each restart is a new message at a new PSN: " + psns);
            assertEquals(2, f.await(f.cqB, 2).size());
        }
    }

    // ------------------------------------------------------------------ o9-112, o9-113

    /**
     * o9-112 and the inbound example (9.7.8.2.2 step 4): a QP's receive WQEs are taken in order
     * but complete in the order their messages do, which on two contexts may differ; the queue's
     * slots come back all the same.
     */
    @Test
    void o9_112_receiveWqesCompleteOutOfOrderAcrossContexts() {
        try (RdFixture f = new RdFixture(13)) {
            EeContext[] second = secondContexts(f);
            SimPair.fill(f.bufA, 0, 8192, 5);
            // The first message's last packet is lost once: it completes after the second.
            ab(f).fault(Faults.dropNth(PacketMatch.opcode(OpcodeTable.byName("RD_SEND_LAST").code()), 1));
            f.b1.postRecv(f.recvB(101, 0, 4096));
            f.b1.postRecv(f.recvB(102, 4096, 4096));
            f.a1.postSend(f.sendA(1, 0, 3000).rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            f.a2.postSend(f.sendA(2, 4096, 100).rd(second[0].eecn(), f.b1.qpn(), RdFixture.QKEY));
            List<WorkCompletion> recvs = f.await(f.cqB, 2);
            assertEquals(List.of(102L, 101L), List.of(recvs.get(0).wrId(), recvs.get(1).wrId()),
                    "the receive WQE taken second completed first");
            assertTrue(SimPair.same(f.bufA, 0, f.bufB, 0, 3000));
            assertTrue(SimPair.same(f.bufA, 4096, f.bufB, 4096, 100));
            f.await(f.cqA, 2);
            for (int round = 0; round < 3; round++) { // the ring keeps working past the reordering
                f.b1.postRecv(f.recvB(200 + round, 8192, 64));
                f.a1.postSend(f.sendTo(f.b1, 10 + round, 0, 64));
                assertEquals(200 + round, f.await(f.cqB).wrId());
                f.await(f.cqA);
            }
        }
    }

    /** o9-113: a QP's send WQEs complete in the order posted even when they use different contexts. */
    @Test
    void o9_113_sendWqesCompleteInOrderAcrossContexts() {
        try (RdFixture f = new RdFixture(14)) {
            EeContext[] second = secondContexts(f);
            ab(f).fault(Faults.dropNth(PacketMatch.any(), 1)); // the first message is slow
            f.b1.postRecv(f.recvB(1, 0, 64));
            f.b1.postRecv(f.recvB(2, 64, 64));
            f.a1.postSend(f.sendA(1, 0, 32).rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            f.a1.postSend(f.sendA(2, 0, 32).rd(second[0].eecn(), f.b1.qpn(), RdFixture.QKEY));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(List.of(1L, 2L), List.of(wcs.get(0).wrId(), wcs.get(1).wrId()));
            assertEquals(1, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
        }
    }

    // ------------------------------------------------------------------ MSN: o9-114.a3, a4

    /**
     * o9-114.a3/a4: every response's AETH carries the context's MSN, which starts at 0 and counts
     * each new message once — never a duplicate — and a READ's or atomic's last or only response
     * carries the incremented value.
     */
    @Test
    void o9_114_a3_a4_msnCountsNewMessagesOnceAndRidesEveryResponse() {
        try (RdFixture f = new RdFixture(15)) {
            var sentB = sent(f.wireB);
            ba(f).fault(Faults.dropNthAck(2)); // the second message's ACK: it is retried, a duplicate
            f.b1.postRecv(f.recvB(1, 0, 64));
            f.b2.postRecv(f.recvB(2, 64, 64));
            f.a1.postSend(f.sendTo(f.b1, 1, 0, 32));
            f.a2.postSend(f.sendTo(f.b2, 2, 0, 32));
            f.a1.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address() + 8192, 3000, f.mrA.lkey()).rdma(f.mrB.address(), f.mrB.rkey())
                    .rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            f.a2.postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(f.mrA.address() + 16384, 8, f.mrA.lkey()).atomic(f.mrB.address() + 65536, f.mrB.rkey(), 1, 0)
                    .rd(f.eecA.eecn(), f.b2.qpn(), RdFixture.QKEY));
            f.await(f.cqA, 4);
            List<String> seen = new ArrayList<>();
            for (Sent s : sentB) {
                if (s.f().opcode().has(Header.AETH)) {
                    seen.add(s.opcode().substring(3) + " " + s.f().aethMsn);
                }
            }
            assertEquals(List.of("ACKNOWLEDGE 1", "ACKNOWLEDGE 2", "ACKNOWLEDGE 2",
                    "RDMA_READ_RESPONSE_FIRST 3", "RDMA_READ_RESPONSE_LAST 3", "ATOMIC_ACKNOWLEDGE 4"), seen);
            assertEquals(1, f.b.counters().get(Counter.DUPLICATE_REQUEST));
        }
    }

    // ------------------------------------------------------------------ RESYNC: o9-114.a1, a2, 9.7.8.6.1

    /**
     * o9-114.a2: after abandoning a message the requester sends a RESYNC with AckReq and waits for
     * the ACK at the RESYNC's PSN, accepting no other response and starting no other message; a
     * lost RESYNC is retried on the timer at the same PSN.
     */
    @Test
    void o9_114_a2_resyncWaitsForItsAckAndIsRetriedWhenLost() {
        try (RdFixture f = new RdFixture(16)) {
            var sentA = sent(f.wireA);
            ab(f).fault(Faults.dropNth(PacketMatch.opcode(OpcodeTable.byName("RD_RESYNC").code()), 1));
            f.b2.postRecv(f.recvB(2, 0, 64));
            f.a1.postSend(f.sendA(1, 0, 32).rd(f.eecA.eecn(), f.b1.qpn(), 0x0BAD0000));
            f.a2.postSend(f.sendTo(f.b2, 2, 0, 32));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.REM_INV_RD_REQ_ERR, wcs.get(0).status());
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
            assertEquals(List.of("RD_SEND_ONLY@256", "RD_RESYNC@257", "RD_RESYNC@257", "RD_SEND_ONLY@258"),
                    sentA.stream().map(Sent::toString).toList());
            assertTrue(sentA.get(1).f().ackReq && sentA.get(2).f().ackReq);
            assertEquals(1, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
        }
    }

    /**
     * 9.7.8.6.1: an RNR NAK that arrives late, after a retry of the same SEND got through, still
     * suspends the message; the RESYNC's ACK then carries an MSN two above the NAK's, which tells
     * the requester the responder did complete it: it completes successfully and is not sent again.
     */
    @Test
    void resyncMsnTwoAboveTheNaksCompletesTheSuspendedSendWithoutResendingIt() {
        RcOptions o = RcOptions.defaults().withRetry(8, 7, 7); // ACK timeout 1 ms
        try (RdFixture f = new RdFixture(17, o)) {
            var sentA = sent(f.wireA);
            var sentB = sent(f.wireB);
            long[] rnrDue = {0};
            FaultModel delayRnrDropAcks = fate -> {
                if (!fate.isAck()) {
                    return;
                }
                long now = f.net.scheduler().nanoTime();
                if (rnrDue[0] == 0) {
                    rnrDue[0] = now + 3_000_000;
                    fate.delay(3_000_000); // the RNR NAK arrives 3 ms late
                } else if (now < rnrDue[0]) {
                    fate.drop(); // the ACKs of the retries are lost until then
                }
            };
            ba(f).fault(delayRnrDropAcks);
            f.a1.postSend(f.sendTo(f.b1, 1, 0, 32));
            f.net.scheduler().runUntil(() -> !sentB.isEmpty(), 1_000_000_000L);
            assertEquals(0x20, sentB.get(0).f().aethSyndrome & 0x60, "an RNR NAK went back");
            f.b1.postRecv(f.recvB(1, 0, 64)); // the retry that the timer sends will find it
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(1, f.await(f.cqB).wrId());
            assertEquals(1, f.a.counters().get(Counter.RD_SUSPENDED_FOUND_COMPLETE));
            int resync = -1;
            for (int i = 0; i < sentA.size(); i++) {
                if (sentA.get(i).opcode().equals("RD_RESYNC")) {
                    resync = i;
                }
            }
            assertTrue(resync > 0, "a RESYNC was sent: " + sentA);
            assertTrue(named(sentA.subList(resync, sentA.size()), "RD_SEND").isEmpty(),
                    "the SEND was not sent again after the RESYNC: " + sentA);
            f.settle();
            assertEquals(0, f.cqB.size(), "delivered once");
        }
    }

    /**
     * 9.7.8.6.1, the abandoned message and an MSN one above: the RESYNC's own increment, so the
     * responder never completed the message; it completes in error with the additional
     * information "known incomplete at the responder" ({@code vendor_err}).
     */
    @Test
    void resyncMsnOneAboveCompletesTheAbandonedMessageInErrorKnownIncompleteAtTheResponder() {
        try (RdFixture f = new RdFixture(30)) {
            f.b2.postRecv(f.recvB(2, 0, 64));
            f.a1.postSend(f.sendA(1, 0, 32).rd(f.eecA.eecn(), f.b1.qpn(), 0x0BAD0000)); // a Q_Key violation
            f.a2.postSend(f.sendTo(f.b2, 2, 0, 32));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.REM_INV_RD_REQ_ERR, wcs.get(0).status());
            assertEquals(WorkCompletion.VENDOR_ERR_RD_KNOWN_INCOMPLETE, wcs.get(0).vendorErr(), wcs.get(0).toString());
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
            assertEquals(0, wcs.get(1).vendorErr());
            assertEquals(QpState.SQE, f.a1.state());
            assertEquals(QpState.RTS, f.eecA.state());
        }
    }

    /**
     * 9.7.8.6.1, an abandoned atomic and an MSN two above: the responder did execute it (its
     * answer came, and the requester could not place it: the result buffer was deregistered
     * meanwhile). It "must be completed in error", with the additional information "known
     * complete at the responder", which tells the application not to simply post it again.
     */
    @Test
    void resyncMsnTwoAboveCompletesAnAbandonedAtomicInErrorKnownCompleteAtTheResponder() {
        try (RdFixture f = new RdFixture(31)) {
            le(f.bufB).putLong(200_000, 5);
            MemoryRegion result = f.pdA.registerMemory(java.nio.ByteBuffer.allocateDirect(64), AccessFlags.LOCAL_WRITE);
            f.a1.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(result.address(), 8, result.lkey()).atomic(f.mrB.address() + 200_000, f.mrB.rkey(), 1, 0)
                    .rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            f.net.scheduler().runUntil(() -> f.a.counters().get(Counter.SENT_PKTS) == 1, 1_000_000_000L);
            result.close(); // sent, and deregistered before its answer comes back: the original value cannot be placed
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
            assertEquals(WorkCompletion.VENDOR_ERR_RD_KNOWN_COMPLETE, wc.vendorErr(), wc.toString());
            assertEquals(6, le(f.bufB).getLong(200_000), "executed once, at the responder");
            assertEquals(1, f.a.counters().get(Counter.RD_MESSAGES_ABANDONED));
            assertEquals(QpState.RTS, f.eecA.state());
        }
    }

    /**
     * 9.7.8.6.1, an abandoned SEND and an MSN two above: an earlier try got through (its ACK was
     * lost), and the retry could not be read (its buffer was deregistered meanwhile), so the
     * context abandoned it; the RESYNC shows the responder completed it, and it "should complete
     * normally (meaning it was not ultimately abandoned)": successfully, its QP still ready.
     */
    @Test
    void resyncMsnTwoAboveCompletesAnAbandonedSendNormally() {
        RcOptions o = RcOptions.defaults().withRetry(8, 7, 7); // ACK timeout 1 ms
        try (RdFixture f = new RdFixture(32, o)) {
            ba(f).fault(Faults.dropNthAck(1));
            MemoryRegion source = f.pdA.registerMemory(java.nio.ByteBuffer.allocateDirect(64), AccessFlags.LOCAL_WRITE);
            f.b1.postRecv(f.recvB(1, 0, 64));
            f.a1.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).signaled(true)
                    .sge(source.address(), 32, source.lkey()).rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqB).status(), "the first try got through");
            source.close(); // the retry the ACK timeout sends cannot be read
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(1, f.a.counters().get(Counter.RD_MESSAGES_ABANDONED));
            assertEquals(1, f.a.counters().get(Counter.RD_ABANDONED_FOUND_COMPLETE));
            assertEquals(QpState.RTS, f.a1.state(), "not abandoned after all: the send queue is not in error");
            f.settle();
            assertEquals(0, f.cqB.size(), "delivered once");
        }
    }

    /**
     * 9.7.8.6.1: "If the MSN is any other value, the response is corrupt and the EEC should be
     * placed in the error state." The RESYNC's real ACK is lost and a forged one at the RESYNC's
     * PSN carries MSN 5 (the responder's was 0 before the abandoned message): the context goes to
     * ERR, counted, instead of completing the RESYNC and staying ready to send.
     */
    @Test
    void resyncAckWhoseMsnIsNeitherOneNorTwoAboveIsCorruptAndMovesTheContextToError() {
        try (RdFixture f = new RdFixture(33)) {
            var sentA = sent(f.wireA);
            int ack = OpcodeTable.byName("RD_ACKNOWLEDGE").code();
            ba(f).fault(Faults.dropNth(PacketMatch.opcode(ack), 2)); // the RESYNC's ACK (the first is the NAK)
            f.a1.postSend(f.sendA(1, 0, 32).rd(f.eecA.eecn(), f.b1.qpn(), 0x0BAD0000)); // abandoned: a Q_Key violation
            f.net.scheduler().runUntil(() -> f.b.counters().get(Counter.RD_RESYNCS_RECEIVED) == 1, 1_000_000_000L);
            f.net.scheduler().runFor(50_000); // B's ACK leaves and is lost
            Sent resync = named(sentA, "RD_RESYNC").get(0);
            PacketFields forged = new PacketFields().opcode(OpcodeTable.byName("RD_ACKNOWLEDGE"));
            forged.destQp = f.a1.qpn();
            forged.rdethEec = f.eecA.eecn();
            forged.psn = resync.f().psn;
            forged.aethSyndrome = AethSyndrome.ack(AethSyndrome.CREDITS_INVALID);
            forged.aethMsn = 5;
            Wiretap.inject(f.wireB, f.eecB.sourcePort(), f.wireA, forged);
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(WcStatus.REM_INV_RD_REQ_ERR, wc.status());
            assertEquals(0, wc.vendorErr(), "what the responder did is unknown");
            assertEquals(QpState.ERR, f.eecA.state(), "a corrupt RESYNC response puts the context in error");
            assertEquals(1, f.a.counters().get(Counter.RD_RESYNC_CORRUPT_MSN));
            assertEquals(0, f.a.counters().get(Counter.RD_RESYNCS_COMPLETED));
            f.a2.postSend(f.sendTo(f.b2, 2, 0, 32));
            assertEquals(WcStatus.INV_EEC_STATE_ERR, f.await(f.cqA).status(), "the context carries nothing more");
        }
    }

    /**
     * A fault that keeps the first packet with PSN {@code psn} out of the fabric and sends it again
     * (the "r3" of the seed's figure, intact, as its requester built it) just after the first
     * packet of the next RDMA WRITE; that WRITE's later packets are held back a little, so the
     * ghost arrives in the middle of the WRITE.
     */
    private static FaultModel ghostDuringNextWrite(RdFixture f, EeContext from, int psn, boolean[] released) {
        ByteBuf[] ghost = {null};
        int writeFirst = OpcodeTable.byName("RD_RDMA_WRITE_FIRST").code();
        int writeMiddle = OpcodeTable.byName("RD_RDMA_WRITE_MIDDLE").code();
        int writeLast = OpcodeTable.byName("RD_RDMA_WRITE_LAST").code();
        return fate -> {
            if (ghost[0] == null && fate.psn() == psn) {
                ghost[0] = fate.packet().copy();
                fate.drop();
            } else if (ghost[0] != null && !released[0] && fate.opcode() == writeFirst) {
                released[0] = true;
                ByteBuf g = ghost[0];
                int port = from.sourcePort();
                f.net.scheduler().schedule(1, () -> f.wireA.send(g, port, f.wireB.localAddress()));
            } else if (released[0] && (fate.opcode() == writeMiddle || fate.opcode() == writeLast)) {
                fate.delay(5_000);
            }
        };
    }

    /**
     * The next message of {@code f.a1}: a three-packet WRITE through {@code eec}, during which
     * the held ghost arrives; it completes, the ghost is one more duplicate at B, and B's memory
     * holds the WRITE's bytes, not the ghost's.
     */
    private static void writeDuringGhostIsIntact(RdFixture f, EeContext eec, boolean[] released) {
        int len = 3 * 1024;
        SimPair.fill(f.bufA, 100_000, len, 77);
        long duplicates = f.b.counters().get(Counter.DUPLICATE_REQUEST);
        f.a1.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(f.mrA.address() + 100_000, len, f.mrA.lkey()).rdma(f.mrB.address() + 300_000, f.mrB.rkey())
                .rd(eec.eecn(), f.b1.qpn(), RdFixture.QKEY));
        assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
        f.settle();
        assertTrue(released[0], "r3 reached the responder during the WRITE");
        assertEquals(duplicates + 1, f.b.counters().get(Counter.DUPLICATE_REQUEST), "r3 was a duplicate");
        assertTrue(SimPair.same(f.bufA, 100_000, f.bufB, 300_000, len), "no corruption");
        assertEquals(0, f.cqB.size(), "r3 completed nothing");
    }

    /**
     * The seed's figure 111 and "r3" ghost (9.7.8.5), with RESYNC (o9-114.a1, choice 2): a
     * three-packet SEND is NAKed at its second packet while its third ("r3") is held up in the
     * fabric; the requester abandons the message and RESYNCs past every PSN it used, so the same
     * QP's next message — a three-packet WRITE — starts beyond r3's PSN. r3 arrives in the middle
     * of that WRITE, is a duplicate, and is ignored: the WRITE's data is intact. (Had the WRITE
     * started at the abandoned message's PSN, as it would without the RESYNC, r3 would have been
     * in the WRITE's sequence.)
     */
    @Test
    void r3GhostOfAnAbandonedSendIsADuplicateDuringTheNextMessageAfterResync() {
        try (RdFixture f = new RdFixture(18)) {
            var sentA = sent(f.wireA);
            int mtu = 1024;
            SimPair.fill(f.bufA, 0, 3 * mtu, 9);
            int r3 = 0x100 + 2;
            boolean[] released = {false};
            ab(f).fault(ghostDuringNextWrite(f, f.eecA, r3, released));
            f.b1.postRecv(f.recvB(1, 0, 1000)); // too short for the 3 KiB SEND: NAKed at its second packet
            f.a1.postSend(f.sendTo(f.b1, 1, 0, 3 * mtu));
            assertEquals(WcStatus.REM_INV_REQ_ERR, f.await(f.cqA).status());
            assertEquals(WcStatus.LOC_LEN_ERR, f.await(f.cqB).status());
            assertEquals(QpState.SQE, f.a1.state());
            assertEquals(QpState.RTS, f.eecA.state(), "the context carries on");
            f.a1.modify(new QpAttributes().state(QpState.RTS));
            writeDuringGhostIsIntact(f, f.eecA, released);
            Sent resync = named(sentA, "RD_RESYNC").get(0);
            assertEquals(r3 + 1, resync.f().psn, "the RESYNC goes past every PSN the abandoned message used");
            assertEquals(r3 + 2, named(sentA, "RD_RDMA_WRITE_FIRST").get(0).f().psn, "the WRITE starts beyond r3");
        }
    }

    /**
     * The same figure without RESYNC (o9-114.a1, choice 1): the QP and the context move to ERR
     * with the message's error; the application re-establishes both contexts with new PSNs, which
     * is what synchronises them now. r3, arriving in the middle of the next WRITE, is far from the
     * new PSNs and is ignored as a duplicate: no corruption either.
     */
    @Test
    void r3GhostWithoutResyncTheQpAndContextFailAndTheReestablishedContextIgnoresIt() {
        try (RdFixture f = new RdFixture(23)) {
            EeContext failing = f.rddA.createEeContext(RdQpErrorRecovery.FAIL_CONTEXT);
            EeContext peer = f.rddB.createEeContext();
            Connections.connectEeContexts(failing, 0x100, peer, 0x200, RcOptions.defaults());
            var sentA = sent(f.wireA);
            int mtu = 1024;
            int r3 = 0x100 + 2;
            boolean[] released = {false};
            ab(f).fault(ghostDuringNextWrite(f, failing, r3, released));
            f.b1.postRecv(f.recvB(1, 0, 1000));
            f.a1.postSend(f.sendA(1, 0, 3 * mtu).rd(failing.eecn(), f.b1.qpn(), RdFixture.QKEY));
            assertEquals(WcStatus.REM_INV_REQ_ERR, f.await(f.cqA).status());
            assertEquals(QpState.ERR, f.a1.state(), "choice 1: the QP goes to ERR");
            assertEquals(QpState.ERR, failing.state(), "and so does the context");
            assertTrue(named(sentA, "RD_RESYNC").isEmpty(), "no RESYNC");
            f.drain(f.cqB);
            // Re-establish: both contexts and the QP from RESET, with new PSNs.
            failing.modify(new QpAttributes().state(QpState.RESET));
            peer.modify(new QpAttributes().state(QpState.RESET));
            Connections.connectEeContexts(failing, 0x5000, peer, 0x6000, RcOptions.defaults());
            f.a1.modify(new QpAttributes().state(QpState.RESET));
            Connections.readyRd(f.a1, RdFixture.QKEY, SimPair.ALL_ACCESS);
            writeDuringGhostIsIntact(f, failing, released);
            assertEquals(0x5000, named(sentA, "RD_RDMA_WRITE_FIRST").get(0).f().psn);
        }
    }

    /**
     * The "r3" ghost for an atomic (9.7.8.5): a late duplicate of an executed atomic, arriving
     * during a later message of the same QP, is answered from the saved result, not executed
     * again; the requester discards that answer as a duplicate response.
     */
    @Test
    void r3GhostOfAnAtomicIsAnsweredFromItsResultAndDiscarded() {
        try (RdFixture f = new RdFixture(19)) {
            le(f.bufB).putLong(200_000, 5);
            f.a1.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(f.mrA.address(), 8, f.mrA.lkey()).atomic(f.mrB.address() + 200_000, f.mrB.rkey(), 1, 0)
                    .rd(f.eecA.eecn(), f.b1.qpn(), RdFixture.QKEY));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            PacketFields ghost = new PacketFields().opcode(OpcodeTable.byName("RD_FETCH_ADD"));
            ghost.destQp = f.b1.qpn();
            ghost.rdethEec = f.eecB.eecn();
            ghost.dethQkey = RdFixture.QKEY;
            ghost.dethSrcQp = f.a1.qpn();
            ghost.psn = 0x100;
            ghost.atomicVa = f.mrB.address() + 200_000;
            ghost.atomicRkey = f.mrB.rkey();
            ghost.atomicSwapAdd = 1;
            f.b1.postRecv(f.recvB(2, 0, 64));
            f.a1.postSend(f.sendTo(f.b1, 2, 0, 32));
            Wiretap.inject(f.wireA, f.eecA.sourcePort(), f.wireB, ghost);
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            f.settle();
            assertEquals(6, le(f.bufB).getLong(200_000), "executed once");
            assertEquals(1, f.b.counters().get(Counter.DUPLICATE_REQUEST));
            assertEquals(1, f.a.counters().get(Counter.DUPLICATE_RESPONSE), "the ghost answer was discarded");
        }
    }

    static java.util.stream.LongStream faultSeeds() {
        return java.util.stream.LongStream.range(24, 24 + Long.getLong("rnic.rd.faultSeeds", 5));
    }

    /**
     * The outbound scheduling under faults (9.7.8.2.1, o9-102, o9-103, o9-111, o9-113): four RD
     * QPs share one context to four QPs of the other node, through 5 % loss, reordering and
     * duplication each way; one receiving QP has no receives for the first 200 ms, so messages
     * for it are suspended by RNR NAKs and RESYNCed over and over while the others go on. Every
     * message arrives exactly once, intact, each QP's completions in order (so no RESYNC answer
     * was taken for a corrupt one, 9.7.8.6.1). Five seeds in CI; {@code -Drnic.rd.faultSeeds=N}
     * runs N.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.MethodSource("faultSeeds")
    void fourQpsShareOneContextThroughFaultsAndRnrSuspensionsAndEveryMessageArrivesOnce(long seed) {
        try (RdFixture f = new RdFixture(seed, RcOptions.defaults().withRetry(10, 7, 7))) {
            for (var d : new LinkDirection[] {ab(f), ba(f)}) {
                d.fault(Faults.drop(0.05)).fault(Faults.reorder(0.05, 20_000)).fault(Faults.duplicate(0.02));
            }
            QueuePair[] from = {f.a1, f.a2, RdFixture.rdQp(f.pdA, f.cqA, f.rddA), RdFixture.rdQp(f.pdA, f.cqA, f.rddA)};
            QueuePair[] to = {f.b1, f.b2, RdFixture.rdQp(f.pdB, f.cqB, f.rddB), RdFixture.rdQp(f.pdB, f.cqB, f.rddB)};
            for (QueuePair q : to) {
                q.modify(new QpAttributes().minRnrTimer(8)); // 0.12 ms
            }
            int perQp = 60;
            for (int k = 0; k < 3; k++) { // the fourth QP gets its receives late
                for (int i = 0; i < 4 * perQp / 4 + 8; i++) {
                    to[k].postRecv(f.recvB(k * 1000 + i, 0, 64));
                }
            }
            SimPair.fill(f.bufA, 0, 64, 5);
            for (int i = 0; i < perQp; i++) {
                for (int q = 0; q < 4; q++) {
                    QueuePair dest = to[(q + i) % 4];
                    from[q].postSend(f.sendA(q * 1000L + i, 0, 48).opcode(WrOpcode.SEND_WITH_IMM)
                            .imm(q << 16 | i).rd(f.eecA.eecn(), dest.qpn(), RdFixture.QKEY));
                }
            }
            f.net.scheduler().runFor(200_000_000);
            for (int i = 0; i < perQp + 8; i++) {
                to[3].postRecv(f.recvB(3000 + i, 0, 64));
            }
            List<WorkCompletion> sends = f.await(f.cqA, 4 * perQp);
            long[] next = {0, 1000, 2000, 3000};
            for (WorkCompletion wc : sends) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                int q = (int) (wc.wrId() / 1000);
                assertEquals(next[q]++, wc.wrId(), "QP " + q + "'s completions in order");
            }
            List<WorkCompletion> recvs = f.await(f.cqB, 4 * perQp);
            java.util.Set<Integer> seen = new java.util.HashSet<>();
            for (WorkCompletion wc : recvs) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                int q = wc.immData() >>> 16;
                int i = wc.immData() & 0xFFFF;
                assertEquals(from[q].qpn(), wc.srcQp());
                assertEquals(to[(q + i) % 4].qpn(), wc.qpNum(), "delivered to the QP its work request named");
                assertTrue(seen.add(wc.immData()), "delivered once: " + wc);
            }
            f.settle();
            assertEquals(0, f.cqB.size(), "nothing delivered twice");
            assertTrue(f.a.counters().get(Counter.RD_MESSAGES_SUSPENDED) > 0, f.a.counters().toString());
            assertTrue(f.a.counters().get(Counter.RETRANSMITTED_PKTS) > 0, f.a.counters().toString());
            assertEquals(0, f.a.counters().get(Counter.RD_RESYNC_CORRUPT_MSN), "every RESYNC answer one or two above");
        }
    }

    // ------------------------------------------------------------------ the context's own errors and life

    /**
     * o9-105 and 9.7.8.1: an error of the context itself (retries exhausted) is reported in the
     * WR's completion and stops the context; the messages waiting for it complete with
     * INV_EEC_STATE_ERR, as do later ones that name it.
     */
    @Test
    void retriesExhaustedFailTheContextAndTheMessagesWaitingForIt() {
        try (RdFixture f = new RdFixture(20, RcOptions.defaults().withRetry(8, 2, 7))) {
            ab(f).fault(Faults.drop(1.0));
            f.a1.postSend(f.sendTo(f.b1, 1, 0, 32));
            f.a2.postSend(f.sendTo(f.b2, 2, 0, 32));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.RETRY_EXC_ERR, wcs.get(0).status());
            assertEquals(WcStatus.INV_EEC_STATE_ERR, wcs.get(1).status());
            assertEquals(QpState.ERR, f.eecA.state());
            assertEquals(QpState.SQE, f.a1.state());
            assertEquals(QpState.SQE, f.a2.state());
            f.a1.modify(new QpAttributes().state(QpState.RTS));
            f.a1.postSend(f.sendTo(f.b1, 3, 0, 32));
            assertEquals(WcStatus.INV_EEC_STATE_ERR, f.await(f.cqA).status());
        }
    }

    /** IBA 11.2.9: destroying a context completes what it carries and what waits for it. */
    @Test
    void destroyingAContextCompletesItsMessagesWithInvalidEecState() {
        try (RdFixture f = new RdFixture(21)) {
            ab(f).fault(Faults.drop(1.0));
            f.a1.postSend(f.sendTo(f.b1, 1, 0, 32));
            f.a2.postSend(f.sendTo(f.b2, 2, 0, 32));
            f.net.scheduler().runFor(1_000);
            f.eecA.close();
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.INV_EEC_STATE_ERR, wcs.get(0).status());
            assertEquals(WcStatus.INV_EEC_STATE_ERR, wcs.get(1).status());
            assertThrows(IllegalStateException.class, () -> f.eecA.modify(new QpAttributes().state(QpState.RESET)));
        }
    }

    /**
     * Reference §6.2 for an RD QP: SQD lets the message on the context finish, starts none of the
     * QP's others, and raises SQ_DRAINED once nothing of the QP is on a context; back in RTS the
     * rest go.
     */
    @Test
    void sqdFinishesTheMessageOnTheContextThenRaisesSqDrained() {
        try (RdFixture f = new RdFixture(25)) {
            List<AsyncEvent> events = new ArrayList<>();
            f.a.addAsyncEventListener(events::add);
            for (int i = 0; i < 3; i++) {
                f.b1.postRecv(f.recvB(i, i * 4096, 4096));
            }
            f.a1.postSend(f.sendTo(f.b1, 1, 0, 3000));
            f.a1.postSend(f.sendTo(f.b1, 2, 0, 3000));
            f.net.scheduler().runFor(1); // the first message is on the context, its packets in flight
            f.a1.modify(new QpAttributes().state(QpState.SQD).enSqdAsyncNotify(true));
            assertEquals(1, f.await(f.cqA).wrId(), "the message on the context finished");
            f.settle();
            assertEquals(0, f.cqA.size(), "the second did not start in SQD");
            assertEquals(1, events.stream().filter(e -> e.type() == AsyncEvent.Type.SQ_DRAINED
                    && e.resource() == f.a1.qpn()).count(), events.toString());
            f.a1.modify(new QpAttributes().state(QpState.RTS));
            assertEquals(2, f.await(f.cqA).wrId());
            assertEquals(2, f.await(f.cqB, 2).size());
        }
    }

    /** IBA 11.2.9: a context is brought up with RC's attributes; a missing one is named. */
    @Test
    void aContextTakesRcsAttributesAndNamesAMissingOne() {
        try (RdFixture f = new RdFixture(22)) {
            EeContext e = f.rddA.createEeContext();
            assertEquals(QpState.RESET, e.state());
            e.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1));
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                    () -> e.modify(new QpAttributes().state(QpState.RTR).pathMtu(PathMtu.MTU_1024).destQpn(5)
                            .rqPsn(0).maxDestRdAtomic(1)));
            assertTrue(x.getMessage().contains("AV"), x.getMessage());
            assertEquals(QpState.INIT, e.query().state());
            assertFalse(e.toString().startsWith("QP"), e.toString());
        }
    }
}
