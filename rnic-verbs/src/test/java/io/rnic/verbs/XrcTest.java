package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.wire.WireTap;
import io.rnic.transport.sim.SimWire;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * XRC's own rules (IBA 9.7.9, o9-114.a5–a10) and objects on the simulated network: node A
 * has an initiator QP, node B a target QP in XRC domain "d" through which the initiator reaches
 * two XRC SRQs of "d", standing for two processes of B, each with its own PD and CQ. The rules
 * XRC shares with RC run in {@link XrcReliabilityTest}.
 */
class XrcTest {
    static final int MTU = 1024;
    final SimPair p = new SimPair(61);
    final XrcDomain xrcd = p.b.openXrcd("d");
    /** Process 1 of B: B's usual PD and memory. */
    final CompletionQueue cq1 = p.b.createCq(256);
    final SharedReceiveQueue srq1 = p.pdB.createXrcSrq(xrcd, cq1, 64, 1, 0);
    /** Process 2 of B: its own PD, memory and CQ. */
    final ProtectionDomain pd2 = p.b.allocPd();
    final ByteBuffer buf2 = ByteBuffer.allocateDirect(64 << 10);
    final MemoryRegion mr2 = pd2.registerMemory(buf2, SimPair.ALL_ACCESS);
    final CompletionQueue cq2 = p.b.createCq(256);
    final SharedReceiveQueue srq2 = pd2.createXrcSrq(xrcd, cq2, 64, 1, 0);
    final QueuePair ini = p.pdA.createQp(QpInitAttributes.xrcSend(p.cqA));
    final QueuePair tgt = xrcd.createTargetQp();

    XrcTest() {
        Connections.connectPair(ini, p.mrA, 0x100, tgt, null, 0x900, RcOptions.defaults());
    }

    @AfterEach
    void close() {
        p.close();
    }

    private SendWorkRequest send(long id, int srqn, int offset, int length) {
        return p.sendA(id, offset, length).xrc(srqn);
    }

    private static List<int[]> xrcEths(SimWire wire) {
        // {opcode, psn, XRCETH SRQ number} of every packet sent that has an XRCETH
        List<int[]> seen = new ArrayList<>();
        wire.addTap((dir, ts, pkt, s, d) -> {
            int r = pkt.readerIndex();
            Opcode op = OpcodeTable.lookup(pkt.getUnsignedByte(r));
            if (dir == WireTap.Direction.SENT && op != null && op.has(Header.XRCETH)) {
                seen.add(new int[] {op.code(), pkt.getUnsignedMedium(r + 9),
                        pkt.getUnsignedMedium(r + op.offsetOf(Header.XRCETH) + 1)});
            }
        });
        return seen;
    }

    @Test
    void everyPacketOfAnXrcMessageCarriesTheSameXrcEthNamingTheRemoteSrq() { // o9-114.a5
        List<int[]> sent = xrcEths(p.wireA);
        srq2.postRecv(new RecvWorkRequest().wrId(7).sge(mr2.address(), 8 * MTU, mr2.lkey()));
        SimPair.fill(p.bufA, 0, 5 * MTU, 3);
        ini.postSend(send(1, srq2.srqn(), 0, 5 * MTU));
        assertEquals(WcStatus.SUCCESS, p.await(p.cqA).status());
        assertEquals(5, sent.size());
        assertEquals(List.of(0xA0, 0xA1, 0xA1, 0xA1, 0xA2), sent.stream().map(x -> x[0]).toList(), "XRC SEND opcodes");
        sent.forEach(x -> assertEquals(srq2.srqn(), x[2], "the same XRCETH on every packet"));
        assertTrue(SimPair.same(p.bufA, 0, buf2, 0, 5 * MTU));
    }

    @Test
    void anSrqOfAnotherXrcDomainIsRefusedWithAnInvalidRequestNakAndCounted() { // o9-114.a6
        XrcDomain other = p.b.openXrcd("other");
        CompletionQueue cq3 = p.b.createCq(16);
        SharedReceiveQueue foreign = p.pdB.createXrcSrq(other, cq3, 4, 1, 0);
        foreign.postRecv(p.recvB(9, 0, 4096));
        var sentB = Wiretap.sent(p.wireB);
        SimPair.fill(p.bufB, 0, 64, 1);
        ini.postSend(send(1, foreign.srqn(), 0, 64));
        WorkCompletion wc = p.await(p.cqA);
        assertEquals(WcStatus.REM_INV_REQ_ERR, wc.status());
        assertEquals(0x60 | AethSyndrome.NAK_INVALID_REQUEST, sentB.get(0).syndrome(), "NAK Invalid Request");
        assertEquals(1, p.b.counters().get(Counter.XRC_DOMAIN_VIOLATIONS));
        assertEquals(0, cq3.size(), "the foreign SRQ gave no WQE");
        assertEquals(1, foreign.core.available());
        assertEquals((byte) 1, p.bufB.get(0), "nothing was written");
        assertEquals(QpState.ERR, tgt.state(), "an invalid request stops the target QP, as it does an RC responder");
    }

    @Test
    void anSrqNumberThatNamesNoSrqIsADomainViolationToo() { // o9-114.a6
        ini.postSend(send(1, 0xABCDE, 0, 64));
        assertEquals(WcStatus.REM_INV_REQ_ERR, p.await(p.cqA).status());
        assertEquals(1, p.b.counters().get(Counter.XRC_DOMAIN_VIOLATIONS));
    }

    @Test
    void memoryAccessesAreCheckedAgainstTheNamedSrqsProtectionDomain() { // o9-114.a7
        // A WRITE to process 1's memory (B's PD) is allowed through srq1 (same PD) ...
        SimPair.fill(p.bufA, 0, 128, 4);
        ini.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(p.mrA.address(), 128, p.mrA.lkey()).rdma(p.mrB.address(), p.mrB.rkey()).xrc(srq1.srqn()));
        assertEquals(WcStatus.SUCCESS, p.await(p.cqA).status());
        assertTrue(SimPair.same(p.bufA, 0, p.bufB, 0, 128));
        // ... and refused through srq2, whose PD is process 2's: the R_Key belongs to another PD.
        ini.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(p.mrA.address(), 128, p.mrA.lkey()).rdma(p.mrB.address() + 4096, p.mrB.rkey()).xrc(srq2.srqn()));
        assertEquals(WcStatus.REM_ACCESS_ERR, p.await(p.cqA).status());
        assertEquals(0, p.bufB.get(4096), "untouched");
        assertNull(tgt.pd(), "the target QP has no PD of its own");
    }

    @Test
    void receiveWqesComeFromTheNamedSrqAndCompletionsGoToItsCq() { // o9-114.a8, a9
        srq1.postRecv(p.recvB(11, 0, 4096));
        srq2.postRecv(new RecvWorkRequest().wrId(21).sge(mr2.address(), 4096, mr2.lkey()));
        srq1.postRecv(p.recvB(12, 4096, 4096));
        SimPair.fill(p.bufA, 0, 3000, 5);
        ini.postSend(send(1, srq2.srqn(), 0, 1000));
        ini.postSend(send(2, srq1.srqn(), 1000, 1000));
        ini.postSend(send(3, srq1.srqn(), 2000, 1000).opcode(WrOpcode.SEND_WITH_IMM).imm(0x5EED));
        p.await(p.cqA, 3).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status()));
        List<WorkCompletion> one = p.await(cq1, 2);
        WorkCompletion two = p.await(cq2);
        assertEquals(List.of(11L, 12L), one.stream().map(WorkCompletion::wrId).toList());
        assertEquals(21L, two.wrId());
        assertEquals(0x5EED, one.get(1).immData());
        for (WorkCompletion wc : List.of(one.get(0), one.get(1), two)) {
            assertEquals(tgt.qpn(), wc.qpNum(), "completions name the target QP");
            assertEquals(ini.qpn(), wc.srcQp());
            assertEquals(1000, wc.byteLen());
        }
        assertEquals(0, p.cqB.size(), "nothing goes to any other CQ of B");
        assertTrue(SimPair.same(p.bufA, 0, buf2, 0, 1000));
        assertTrue(SimPair.same(p.bufA, 1000, p.bufB, 0, 1000));
        assertTrue(SimPair.same(p.bufA, 2000, p.bufB, 4096, 1000));
    }

    @Test
    void aMiddleOrLastPacketNamingAnotherSrqThanItsFirstIsRejected() { // o9-114.a5, a6's optional check
        srq1.postRecv(p.recvB(11, 0, 4096));
        srq2.postRecv(new RecvWorkRequest().wrId(21).sge(mr2.address(), 4096, mr2.lkey()));
        var sentB = Wiretap.sent(p.wireB);
        PacketFields first = new PacketFields().opcode(OpcodeTable.byName("XRC_SEND_FIRST"));
        first.destQp = tgt.qpn();
        first.psn = 0x100;
        first.xrcSrq = srq1.srqn();
        first.payload(new byte[MTU]);
        Wiretap.inject(p.wireA, ini.sourcePort(), p.wireB, first);
        PacketFields last = new PacketFields().opcode(OpcodeTable.byName("XRC_SEND_LAST"));
        last.destQp = tgt.qpn();
        last.psn = 0x101;
        last.ackReq = true;
        last.xrcSrq = srq2.srqn();
        last.payload(new byte[10]);
        Wiretap.inject(p.wireA, ini.sourcePort(), p.wireB, last);
        p.settle();
        assertEquals(1, p.b.counters().get(Counter.XRC_SRQ_MISMATCHES));
        assertEquals(0x60 | AethSyndrome.NAK_INVALID_REQUEST, sentB.get(sentB.size() - 1).syndrome());
        WorkCompletion held = p.await(cq1);
        assertEquals(11, held.wrId(), "the WQE the first packet took completes, in error, on its SRQ's CQ");
        assertEquals(WcStatus.REM_INV_REQ_ERR, held.status());
        assertEquals(0, cq2.size(), "srq2 lost nothing");
        assertEquals(1, srq2.core.available());
    }

    @Test
    void writeReadAtomicsAndWriteWithImmediateRunThroughXrc() {
        SimPair.fill(p.bufA, 0, 3 * MTU, 6);
        SimPair.fill(p.bufB, 100_000, 2 * MTU + 5, 7);
        ByteBuffer le = p.bufB.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        le.putLong(200_000, 40);
        srq1.postRecv(p.recvB(31, 300_000, 16));
        int s = srq1.srqn();
        ini.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(p.mrA.address(), 3 * MTU, p.mrA.lkey()).rdma(p.mrB.address() + 10_000, p.mrB.rkey()).xrc(s));
        ini.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).signaled(true)
                .sge(p.mrA.address() + 50_000, 2 * MTU + 5, p.mrA.lkey()).rdma(p.mrB.address() + 100_000, p.mrB.rkey())
                .xrc(s));
        ini.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                .sge(p.mrA.address() + 60_000, 8, p.mrA.lkey()).atomic(p.mrB.address() + 200_000, p.mrB.rkey(), 2, 0)
                .xrc(s));
        ini.postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                .sge(p.mrA.address() + 60_008, 8, p.mrA.lkey()).atomic(p.mrB.address() + 200_000, p.mrB.rkey(), 42, 99)
                .xrc(s));
        ini.postSend(new SendWorkRequest().wrId(5).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).signaled(true).imm(77)
                .sge(p.mrA.address(), 8, p.mrA.lkey()).rdma(p.mrB.address() + 20_000, p.mrB.rkey()).xrc(s));
        List<WorkCompletion> wcs = p.await(p.cqA, 5);
        wcs.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString()));
        assertTrue(SimPair.same(p.bufA, 0, p.bufB, 10_000, 3 * MTU), "WRITE");
        assertTrue(SimPair.same(p.bufB, 100_000, p.bufA, 50_000, 2 * MTU + 5), "READ");
        ByteBuffer leA = p.bufA.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(40, leA.getLong(60_000), "FETCH_ADD's original");
        assertEquals(42, leA.getLong(60_008), "CMP_SWP's original");
        assertEquals(99, le.getLong(200_000), "42 + 0 compared equal to 42 and was swapped");
        WorkCompletion imm = p.await(cq1);
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, imm.opcode());
        assertEquals(77, imm.immData());
        assertTrue(SimPair.same(p.bufA, 0, p.bufB, 20_000, 8));
    }

    @Test
    void anInitiatorHasNoReceiveSideAndATargetNoSendQueue() {
        IllegalStateException noRecv = assertThrows(IllegalStateException.class, () -> ini.postRecv(p.recvB(1, 0, 8)));
        assertTrue(noRecv.getMessage().contains("no receive queue"), noRecv.getMessage());
        IllegalStateException noSend = assertThrows(IllegalStateException.class, () -> tgt.postSend(p.sendA(1, 0, 8)));
        assertTrue(noSend.getMessage().contains("no send queue"), noSend.getMessage());
        IllegalStateException tgtRecv = assertThrows(IllegalStateException.class, () -> tgt.postRecv(p.recvB(1, 0, 8)));
        assertTrue(tgtRecv.getMessage().contains("XRC SRQs"), tgtRecv.getMessage());
        assertEquals(QpType.XRC_SEND, ini.type());
        assertEquals(QpType.XRC_RECV, tgt.type());
        assertThrows(IllegalArgumentException.class, () -> new QpInitAttributes(QpType.XRC_SEND, p.cqA, p.cqA,
                QpCaps.defaults(), false, false, p.pdA.createSrq(4, 1, 0)), "an initiator takes no SRQ");
        assertThrows(IllegalArgumentException.class, () -> new QpInitAttributes(QpType.XRC_RECV, p.cqA, p.cqA,
                QpCaps.defaults(), false, false), "a target is made by its XRC domain");
    }

    @Test
    void anInitiatorWorkRequestMustNameTheRemoteSrq() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ini.postSend(p.sendA(1, 0, 8)));
        assertTrue(e.getMessage().contains("remote XRC SRQ"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ini.postSend(p.sendA(1, 0, 8).xrc(1 << 24)));
        p.settle();
        assertEquals(0, p.a.counters().get(Counter.SENT_PKTS), "nothing was posted");
    }

    @Test
    void requestsToAnInitiatorAndResponsesToATargetAreDropped() {
        PacketFields req = new PacketFields().opcode(OpcodeTable.byName("XRC_SEND_ONLY"));
        req.destQp = ini.qpn();
        req.psn = 0x900;
        req.xrcSrq = srq1.srqn();
        req.payload(new byte[8]);
        Wiretap.inject(p.wireB, tgt.sourcePort(), p.wireA, req);
        PacketFields ack = new PacketFields().opcode(OpcodeTable.byName("XRC_ACKNOWLEDGE"));
        ack.destQp = tgt.qpn();
        ack.psn = 0x900;
        ack.aethSyndrome = AethSyndrome.ack(AethSyndrome.CREDITS_INVALID);
        Wiretap.inject(p.wireA, ini.sourcePort(), p.wireB, ack);
        p.settle();
        assertEquals(1, p.a.counters().get(Counter.RCVD_WRONG_QP_STATE_OR_TYPE));
        assertEquals(1, p.b.counters().get(Counter.RCVD_WRONG_QP_STATE_OR_TYPE));
        assertEquals(QpState.RTS, ini.state());
        assertEquals(QpState.RTS, tgt.state());
    }

    @Test
    void closingADomainIsRefusedWhileSrqsOrTargetQpsUseItAndOpenersShareIt() {
        XrcDomain again = p.b.openXrcd("d");
        again.close(); // another opener remains: this close only lets go of the handle
        IllegalStateException e = assertThrows(IllegalStateException.class, xrcd::close);
        assertTrue(e.getMessage().contains("2 XRC SRQ(s) and 1 XRC target QP(s)"), e.getMessage());
        tgt.close();
        srq1.close();
        srq2.close();
        xrcd.close();
        assertThrows(IllegalStateException.class, xrcd::createTargetQp);
        XrcDomain fresh = p.b.openXrcd("d");
        assertTrue(fresh.core != xrcd.core, "the name opens a new domain once the last opener closed the old");
    }

    @Test
    void anXrcSrqKeepsItsCompletionQueueInUse() {
        IllegalStateException e = assertThrows(IllegalStateException.class, cq2::close);
        assertTrue(e.getMessage().contains("in use"), e.getMessage());
        srq2.close();
        cq2.close();
    }

    @Test
    void anXrcSrqNeedsADomainAndACompletionQueueOfItsDevice() {
        assertThrows(NullPointerException.class, () -> p.pdB.createXrcSrq(null, cq1, 4, 1, 0));
        assertThrows(NullPointerException.class, () -> p.pdB.createXrcSrq(xrcd, null, 4, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> p.pdB.createXrcSrq(xrcd, p.cqA, 4, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> p.pdA.createXrcSrq(xrcd, p.cqA, 4, 1, 0));
    }

    /** Reference §6.2's XRC columns on real QPs: each half takes only the attributes of the side it has. */
    @Test
    void eachXrcHalfTakesOnlyTheAttributesOfTheSideItHas() {
        QueuePair i2 = p.pdA.createQp(QpInitAttributes.xrcSend(p.cqA));
        QueuePair t2 = xrcd.createTargetQp();
        for (QueuePair q : List.of(i2, t2)) {
            q.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
        }
        AddressVector av = AddressVector.of(p.wireB.localAddress().getAddress());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> i2.modify(new QpAttributes()
                .state(QpState.RTR).av(av).pathMtu(PathMtu.MTU_1024).destQpn(t2.qpn()).rqPsn(0).maxDestRdAtomic(1)));
        assertTrue(e.getMessage().contains("MAX_DEST_RD_ATOMIC"), "an initiator has no responder: " + e.getMessage());
        assertEquals(QpState.INIT, i2.state(), "a refused modify changes nothing");
        assertThrows(IllegalArgumentException.class, () -> t2.modify(new QpAttributes().state(QpState.RTR).av(av)
                .pathMtu(PathMtu.MTU_1024).destQpn(i2.qpn()).rqPsn(0)), "a target needs the responder's RTR attributes");
        t2.modify(new QpAttributes().state(QpState.RTR).av(av).pathMtu(PathMtu.MTU_1024).destQpn(i2.qpn()).rqPsn(0)
                .maxDestRdAtomic(0).minRnrTimer(12));
        e = assertThrows(IllegalArgumentException.class,
                () -> t2.modify(new QpAttributes().state(QpState.RTS).timeout(14).sqPsn(0).retryCnt(7)));
        assertTrue(e.getMessage().contains("RETRY_CNT"), "a target has no requester: " + e.getMessage());
        t2.modify(new QpAttributes().state(QpState.RTS).timeout(14).sqPsn(0));
        assertEquals(QpState.RTS, t2.state());
    }

    /** An XRC SRQ has its own limit event, raised when the messages that target QPs deliver drop it below the limit. */
    @Test
    void anXrcSrqRaisesItsLimitEventWhenTargetQpsTakeItsWqesBelowTheLimit() {
        List<AsyncEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        p.b.addAsyncEventListener(events::add);
        for (int i = 0; i < 4; i++) {
            srq2.postRecv(new RecvWorkRequest().wrId(i).sge(mr2.address() + 64L * i, 64, mr2.lkey()));
        }
        srq2.armLimit(3);
        ini.postSend(send(1, srq2.srqn(), 0, 8));
        p.await(cq2);
        assertEquals(List.of(), events, "3 left: not below the limit");
        ini.postSend(send(2, srq2.srqn(), 0, 8));
        p.await(cq2);
        assertEquals(1, events.size(), events.toString());
        assertEquals(AsyncEvent.Type.SRQ_LIMIT_REACHED, events.get(0).type());
        assertEquals(srq2.srqn(), events.get(0).resource());
    }
}
