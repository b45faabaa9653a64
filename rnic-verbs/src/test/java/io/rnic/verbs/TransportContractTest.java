package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every transport the engine runs must do with SEND/RECV, whatever its policy row: one
 * abstract suite, one subclass per transport (RC, UC, UD, and XRC's initiator/target pair). Sizes stay within one path MTU so that UD takes
 * part; the transports' own rules have their own tests (RcReliabilityTest, UcTest, UdTest).
 */
abstract class TransportContractTest {
    static final int QKEY = 0x0BADCAFE;
    final SimPair p = new SimPair(7);
    QueuePair qpA;
    QueuePair qpB;

    abstract QpType type();

    /** The opcodes a work request on this transport may carry (ibv_post_send accepts). */
    abstract Set<WrOpcode> carries();

    /** Bytes a receive buffer holds before the payload (the GRH area of a datagram). */
    int receiveHeader() {
        return 0;
    }

    /** Creates and connects (or readies) a QP pair of this transport. */
    void setUp(QpInitAttributes a, QpInitAttributes b) {
        qpA = p.pdA.createQp(a);
        qpB = p.pdB.createQp(b);
        Connections.connectPair(qpA, p.mrA, 0x10, qpB, p.mrB, 0x20, RcOptions.defaults());
    }

    /** Adds what the transport needs to address a work request to {@link #qpB}. */
    SendWorkRequest addressed(SendWorkRequest wr) {
        return wr;
    }

    private QpInitAttributes init(CompletionQueue cq) {
        return new QpInitAttributes(type(), cq, cq, io.rnic.verbs.QpCaps.defaults(), false, true);
    }

    TransportContractTest() {
    }

    void open() {
        setUp(init(p.cqA), init(p.cqB));
    }

    @AfterEach
    void close() {
        p.close();
    }

    /** Posts a receive where {@link #qpB}'s messages take them. */
    void recvB(long wrId, int offset, int length) {
        qpB.postRecv(p.recvB(wrId, offset, length));
    }

    private SendWorkRequest send(long wrId, int offset, int length) {
        return addressed(p.sendA(wrId, offset, length));
    }

    @Test
    void aSendArrivesWithItsBytesAndBothSidesComplete() {
        open();
        SimPair.fill(p.bufA, 0, 1000, 17);
        recvB(1, 0, 4096);
        qpA.postSend(send(10, 0, 1000));
        WorkCompletion s = p.await(p.cqA);
        assertEquals(10, s.wrId());
        assertEquals(WcStatus.SUCCESS, s.status());
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = p.await(p.cqB);
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(1000 + receiveHeader(), r.byteLen());
        assertTrue(SimPair.same(p.bufA, 0, p.bufB, receiveHeader(), 1000));
    }

    @Test
    void aReceiveCompletionNamesTheQpThatReceivedAndTheSender() {
        open();
        recvB(1, 0, 256);
        qpA.postSend(send(10, 0, 8));
        WorkCompletion r = p.await(p.cqB);
        assertEquals(qpB.qpn(), r.qpNum());
        assertEquals(qpA.qpn(), r.srcQp());
    }

    @Test
    void sendWithImmediateDeliversTheImmediateVerbatim() {
        open();
        recvB(1, 0, 256);
        qpA.postSend(send(10, 0, 4).opcode(WrOpcode.SEND_WITH_IMM).imm(0x01020304));
        WorkCompletion r = p.await(p.cqB);
        assertEquals(0x01020304, r.immData());
        assertEquals(WorkCompletion.WITH_IMM, r.wcFlags() & WorkCompletion.WITH_IMM);
    }

    @Test
    void messagesCompleteInTheOrderTheyWerePosted() {
        open();
        for (int i = 0; i < 20; i++) {
            recvB(i, i * 1024, 1024);
        }
        SimPair.fill(p.bufA, 0, 20_000, 3);
        for (int i = 0; i < 20; i++) {
            qpA.postSend(send(i, i * 1000, 1 + i * 37));
        }
        List<WorkCompletion> s = p.await(p.cqA, 20);
        List<WorkCompletion> r = p.await(p.cqB, 20);
        for (int i = 0; i < 20; i++) {
            assertEquals(i, s.get(i).wrId());
            assertEquals(i, r.get(i).wrId());
            assertEquals(1 + i * 37 + receiveHeader(), r.get(i).byteLen());
            assertTrue(SimPair.same(p.bufA, i * 1000, p.bufB, i * 1024 + receiveHeader(), 1 + i * 37));
        }
    }

    @Test
    void unsignaledSendsCompleteWithoutACompletion() {
        open();
        recvB(1, 0, 64);
        recvB(2, 64, 64);
        qpA.postSend(send(10, 0, 8).signaled(false));
        qpA.postSend(send(11, 0, 8));
        p.await(p.cqB, 2);
        List<WorkCompletion> s = p.drain(p.cqA);
        assertEquals(List.of(11L), s.stream().map(WorkCompletion::wrId).toList());
    }

    @Test
    void opcodesTheTransportDoesNotCarryAreRefusedAtPostAndPostNothing() {
        open();
        for (WrOpcode op : EnumSet.complementOf(EnumSet.copyOf(carries()))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> qpA.postSend(send(1, 0, 8).opcode(op).rdma(p.mrB.address(), p.mrB.rkey())), op.toString());
            assertTrue(e.getMessage().contains("cannot be posted on a " + type()), e.getMessage());
        }
        p.settle();
        assertEquals(0, p.a.counters().get(io.rnic.verbs.Counter.SENT_PKTS));
    }

    @Test
    void messagesTakeReceiveWqesFromAnSrq() {
        SharedReceiveQueue srq = p.pdB.createSrq(8, 1, 0);
        setUp(init(p.cqA), init(p.cqB).withSrq(srq));
        srq.postRecv(new RecvWorkRequest().wrId(5).sge(p.mrB.address(), 256, p.mrB.lkey()));
        qpA.postSend(send(10, 0, 8));
        WorkCompletion r = p.await(p.cqB);
        assertEquals(5, r.wrId());
        assertEquals(qpB.qpn(), r.qpNum());
    }

    @Test
    void movingToErrorFlushesPostedReceivesAndSendsInOrder() {
        open();
        recvB(1, 0, 64);
        recvB(2, 64, 64);
        qpB.modify(new QpAttributes().state(QpState.ERR));
        List<WorkCompletion> r = p.drain(p.cqB);
        assertEquals(List.of(1L, 2L), r.stream().map(WorkCompletion::wrId).toList());
        assertTrue(r.stream().allMatch(w -> w.status() == WcStatus.WR_FLUSH_ERR && w.qpNum() == qpB.qpn()), r.toString());
        qpA.postSend(send(10, 0, 8));
        qpA.postSend(send(11, 0, 8));
        qpA.modify(new QpAttributes().state(QpState.ERR)); // before the doorbell runs
        List<WorkCompletion> s = p.drain(p.cqA);
        assertEquals(List.of(10L, 11L), s.stream().map(WorkCompletion::wrId).toList());
        assertTrue(s.stream().allMatch(w -> w.status() == WcStatus.WR_FLUSH_ERR), s.toString());
    }
}
