package io.rnic.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/** Numeric values of the completion and work-request enums against reference §7.1 and §7.2. */
class TransportEnumsTest {

    @Test
    void wcStatusHasEveryIbvWcStatusInOrder() {
        String[] names = {
            "SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR",
            "MW_BIND_ERR", "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",
            "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR", "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR",
            "INV_EECN_ERR", "INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR", "TM_ERR",
            "TM_RNDV_INCOMPLETE",
        };
        assertEquals(24, WcStatus.values().length);
        for (int v = 0; v < names.length; v++) {
            WcStatus s = WcStatus.valueOf(v);
            assertEquals(names[v], s.name());
            assertEquals(v, s.value());
        }
    }

    @Test
    void wcStatusSpotChecks() {
        assertEquals(4, WcStatus.LOC_PROT_ERR.value());
        assertEquals(5, WcStatus.WR_FLUSH_ERR.value());
        assertEquals(9, WcStatus.REM_INV_REQ_ERR.value());
        assertEquals(10, WcStatus.REM_ACCESS_ERR.value());
        assertEquals(12, WcStatus.RETRY_EXC_ERR.value());
        assertEquals(13, WcStatus.RNR_RETRY_EXC_ERR.value());
        assertEquals(19, WcStatus.FATAL_ERR.value());
        assertNull(WcStatus.valueOf(24));
        assertNull(WcStatus.valueOf(-1));
    }

    @Test
    void wcOpcodeValues() {
        assertEquals(0, WcOpcode.SEND.value());
        assertEquals(1, WcOpcode.RDMA_WRITE.value());
        assertEquals(2, WcOpcode.RDMA_READ.value());
        assertEquals(3, WcOpcode.COMP_SWAP.value());
        assertEquals(4, WcOpcode.FETCH_ADD.value());
        assertEquals(5, WcOpcode.BIND_MW.value());
        assertEquals(6, WcOpcode.LOCAL_INV.value());
        assertEquals(7, WcOpcode.TSO.value());
        assertEquals(8, WcOpcode.FLUSH.value());
        assertEquals(9, WcOpcode.ATOMIC_WRITE.value());
        assertEquals(10, WcOpcode.REG_MR.value(), "the kernel's IB_WC_REG_MR; libibverbs has none");
        assertEquals(128, WcOpcode.RECV.value());
        assertEquals(129, WcOpcode.RECV_RDMA_WITH_IMM.value());
        for (WcOpcode op : WcOpcode.values()) {
            assertEquals(op, WcOpcode.valueOf(op.value()));
        }
        assertNull(WcOpcode.valueOf(11));
        assertNull(WcOpcode.valueOf(130));
    }

    @Test
    void onlyResponderOpcodesHaveTheRecvBit() {
        assertTrue(WcOpcode.RECV.isReceive());
        assertTrue(WcOpcode.RECV_RDMA_WITH_IMM.isReceive());
        assertFalse(WcOpcode.SEND.isReceive());
        assertFalse(WcOpcode.ATOMIC_WRITE.isReceive());
    }

    @Test
    void wrOpcodeValuesIncludingTheGapAt12And13() {
        int[] want = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 15, 0x20};
        String[] names = {
            "RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "SEND", "SEND_WITH_IMM", "RDMA_READ", "ATOMIC_CMP_AND_SWP",
            "ATOMIC_FETCH_AND_ADD", "LOCAL_INV", "BIND_MW", "SEND_WITH_INV", "TSO", "DRIVER1", "FLUSH", "ATOMIC_WRITE",
            "REG_MR", // the kernel's IB_WR_REG_MR
        };
        assertEquals(want.length, WrOpcode.values().length);
        for (int i = 0; i < want.length; i++) {
            WrOpcode op = WrOpcode.valueOf(want[i]);
            assertEquals(names[i], op.name());
            assertEquals(want[i], op.value());
        }
        assertNull(WrOpcode.valueOf(12));
        assertNull(WrOpcode.valueOf(13));
        assertNull(WrOpcode.valueOf(16));
    }

    @Test
    void wcStatusTextIsWhatIbvWcStatusStrSays() {
        assertEquals("success", WcStatus.SUCCESS.text());
        assertEquals("local length error", WcStatus.LOC_LEN_ERR.text());
        assertEquals("Work Request Flushed Error", WcStatus.WR_FLUSH_ERR.text());
        assertEquals("transport retry counter exceeded", WcStatus.RETRY_EXC_ERR.text());
        assertEquals("TM software rendezvous", WcStatus.TM_RNDV_INCOMPLETE.text());
    }

    /** The WQE keeps atomic, FLUSH and local-operation operands apart: exactly those kinds read them. */
    @Test
    void onlyAtomicsFlushAndLocalOperationsCarryOperands() {
        java.util.Set<WrOpcode> carrying = java.util.EnumSet.of(WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD,
                WrOpcode.FLUSH, WrOpcode.BIND_MW, WrOpcode.LOCAL_INV, WrOpcode.REG_MR);
        for (WrOpcode op : WrOpcode.values()) {
            RequestKind k = RequestKind.of(op);
            if (k != null) {
                assertEquals(carrying.contains(op), k.carriesOperands(), op.toString());
            }
        }
    }
}
