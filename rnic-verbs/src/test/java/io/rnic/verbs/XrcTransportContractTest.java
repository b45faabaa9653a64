package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The transport contract on XRC: A's initiator sends, B's target QP delivers to an XRC SRQ of its
 * domain whose completions go to B's CQ. Two tests differ by the transport's nature: a target
 * QP takes its WQEs from the SRQ each message names (it cannot be created "with" an SRQ), and a
 * target QP entering ERR flushes none of the SRQ's WQEs, which belong to the domain's other
 * target QPs too.
 */
class XrcTransportContractTest extends TransportContractTest {
    private SharedReceiveQueue srq;

    @Override
    QpType type() {
        return QpType.XRC_SEND;
    }

    @Override
    Set<WrOpcode> carries() {
        return RcTransportContractTest.OPCODES; // XRC's opcodes mirror RC's
    }

    @Override
    void setUp(QpInitAttributes a, QpInitAttributes b) {
        XrcDomain xrcd = p.b.openXrcd("contract");
        srq = p.pdB.createXrcSrq(xrcd, p.cqB, 64, 1, 0);
        qpA = p.pdA.createQp(a);
        qpB = xrcd.createTargetQp();
        Connections.connectPair(qpA, p.mrA, 0x10, qpB, null, 0x20, RcOptions.defaults());
    }

    @Override
    SendWorkRequest addressed(SendWorkRequest wr) {
        return wr.xrc(srq.srqn());
    }

    @Override
    void recvB(long wrId, int offset, int length) {
        srq.postRecv(p.recvB(wrId, offset, length));
    }

    @Override
    @Test
    void messagesTakeReceiveWqesFromAnSrq() {
        open(); // every XRC message does: the one its XRCETH names
        srq.postRecv(new RecvWorkRequest().wrId(5).sge(p.mrB.address(), 256, p.mrB.lkey()));
        qpA.postSend(addressed(p.sendA(10, 0, 8)));
        WorkCompletion r = p.await(p.cqB);
        assertEquals(5, r.wrId());
        assertEquals(qpB.qpn(), r.qpNum());
    }

    @Override
    @Test
    void movingToErrorFlushesPostedReceivesAndSendsInOrder() {
        open();
        recvB(1, 0, 64);
        recvB(2, 64, 64);
        qpB.modify(new QpAttributes().state(QpState.ERR));
        assertEquals(List.of(), p.drain(p.cqB), "the SRQ's WQEs stay for the domain's other target QPs");
        assertEquals(2, srq.core.available());
        qpA.postSend(addressed(p.sendA(10, 0, 8)));
        qpA.postSend(addressed(p.sendA(11, 0, 8)));
        qpA.modify(new QpAttributes().state(QpState.ERR)); // before the doorbell runs
        List<WorkCompletion> s = p.drain(p.cqA);
        assertEquals(List.of(10L, 11L), s.stream().map(WorkCompletion::wrId).toList());
        assertTrue(s.stream().allMatch(w -> w.status() == WcStatus.WR_FLUSH_ERR), s.toString());
    }
}
