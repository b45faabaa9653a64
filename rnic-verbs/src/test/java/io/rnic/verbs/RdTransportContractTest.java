package io.rnic.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * The transport contract on RD: A's RD QP sends through an EE context connected to one on B, to
 * B's RD QP; both QPs and contexts in their node's reliable datagram domain.
 */
class RdTransportContractTest extends TransportContractTest {
    private EeContext eecA;

    @Override
    QpType type() {
        return QpType.RD;
    }

    @Override
    Set<WrOpcode> carries() {
        return EnumSet.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM,
                WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD);
    }

    @Override
    void setUp(QpInitAttributes a, QpInitAttributes b) {
        ReliableDatagramDomain rddA = p.a.allocRdd();
        ReliableDatagramDomain rddB = p.b.allocRdd();
        eecA = rddA.createEeContext();
        EeContext eecB = rddB.createEeContext();
        Connections.connectEeContexts(eecA, 0x10, eecB, 0x20, RcOptions.defaults());
        qpA = p.pdA.createRdQp(a, rddA);
        qpB = p.pdB.createRdQp(b, rddB);
        Connections.readyRd(qpA, QKEY, SimPair.ALL_ACCESS);
        Connections.readyRd(qpB, QKEY, SimPair.ALL_ACCESS);
    }

    @Override
    SendWorkRequest addressed(SendWorkRequest wr) {
        return wr.rd(eecA.eecn(), qpB.qpn(), QKEY);
    }
}
