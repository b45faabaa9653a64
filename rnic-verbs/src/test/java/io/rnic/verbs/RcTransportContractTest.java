package io.rnic.verbs;

import java.util.EnumSet;
import java.util.Set;

/** The transport contract on RC. */
class RcTransportContractTest extends TransportContractTest {
    @Override
    QpType type() {
        return QpType.RC;
    }

    /** What RC carries: every operation, and the local ones; XRC carries the same. */
    static final Set<WrOpcode> OPCODES = EnumSet.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.SEND_WITH_INV,
            WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP,
            WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.ATOMIC_WRITE, WrOpcode.FLUSH, WrOpcode.BIND_MW, WrOpcode.LOCAL_INV,
            WrOpcode.REG_MR);

    @Override
    Set<WrOpcode> carries() {
        return OPCODES;
    }
}
