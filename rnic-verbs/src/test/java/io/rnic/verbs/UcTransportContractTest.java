package io.rnic.verbs;

import java.util.EnumSet;
import java.util.Set;

/** The transport contract on UC. */
class UcTransportContractTest extends TransportContractTest {
    @Override
    QpType type() {
        return QpType.UC;
    }

    @Override
    Set<WrOpcode> carries() {
        return EnumSet.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM,
                WrOpcode.BIND_MW);
    }
}
