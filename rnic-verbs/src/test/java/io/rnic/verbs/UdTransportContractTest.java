package io.rnic.verbs;

import java.util.EnumSet;
import java.util.Set;

/** The transport contract on UD. */
class UdTransportContractTest extends TransportContractTest {
    private AddressHandle ah;

    @Override
    QpType type() {
        return QpType.UD;
    }

    @Override
    Set<WrOpcode> carries() {
        return EnumSet.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM);
    }

    @Override
    int receiveHeader() {
        return 40;
    }

    @Override
    void setUp(QpInitAttributes a, QpInitAttributes b) {
        qpA = p.pdA.createQp(a);
        qpB = p.pdB.createQp(b);
        Connections.readyDatagram(qpA, QKEY, 0x10);
        Connections.readyDatagram(qpB, QKEY, 0x20);
        ah = p.pdA.createAddressHandle(AddressVector.of(p.wireB.localAddress().getAddress()));
    }

    @Override
    SendWorkRequest addressed(SendWorkRequest wr) {
        return wr.ud(ah, qpB.qpn(), QKEY);
    }
}
