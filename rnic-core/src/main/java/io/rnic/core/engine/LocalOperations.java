package io.rnic.core.engine;

import io.rnic.core.memory.FastRegion;
import io.rnic.core.memory.KeyTable;
import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.memory.MemoryWindow;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;

/**
 * The work requests a requester executes on this HCA's key table instead of sending: BIND_MW
 * (a memory window bound to a region), LOCAL_INV (a key invalidated) and REG_MR (a
 * fast-registration region registered), each checked as the verbs define them.
 */
final class LocalOperations {
    private LocalOperations() {
    }

    /**
     * Executes local operation {@code w} of {@code qp}; true if it succeeded. A failure completes
     * it with MW_BIND_ERR (a bind) or LOC_QP_OP_ERR and moves the QP to ERR (reference §7.1).
     */
    static boolean execute(QpContext qp, SendWqe w) {
        String failure = failure(qp, w);
        if (failure == null) {
            return true;
        }
        WcStatus status = w.kind.completion() == WcOpcode.BIND_MW ? WcStatus.MW_BIND_ERR : WcStatus.LOC_QP_OP_ERR;
        qp.hca.raise(new AsyncEvent(AsyncEvent.Type.QP_REQ_ERR, qp.qpn, w.opcode + " failed: " + failure));
        qp.failWith(null, () -> qp.completions.completeSend(w, status));
        return false;
    }

    /** Executes local operation {@code w} of {@code qp}; returns why it failed, or null. */
    private static String failure(QpContext qp, SendWqe w) {
        KeyTable keys = qp.hca.keys();
        SendWqe.Operands o = w.operands();
        if (w.kind.completion() == WcOpcode.REG_MR) {
            FastRegion fr = keys.fastRegion(o.bindMrKey >>> 8);
            return fr == null || fr.key() != o.bindMrKey ? "no fast-registration region has key 0x"
                    + Integer.toHexString(o.bindMrKey) : keys.fastRegister(fr, w.rkey, w.remoteAddr, o.bindAccess, qp.pd);
        }
        if (w.kind.completion() == WcOpcode.BIND_MW) {
            MemoryWindow mw = keys.lookupWindow(o.bindMwKey);
            if (mw == null) {
                return "no memory window has key 0x" + Integer.toHexString(o.bindMwKey);
            }
            if (mw.type() == 2 && qp.policy.headers().namesTargetSrq()) {
                return "XRC has no type 2 memory windows (seed 001 §9.7.9.1)";
            }
            MemoryRegion mr = o.bindMrKey == 0 ? null : keys.lookup(o.bindMrKey);
            return o.bindMrKey != 0 && mr == null ? "no memory region has key 0x" + Integer.toHexString(o.bindMrKey)
                    : keys.bindWindow(mw, o.bindMwKey, mr, w.remoteAddr, o.bindLength, o.bindAccess, w.rkey, qp.qpn, qp.pd);
        }
        return keys.invalidateLocal(w.invalidateRkey, qp.pd);
    }
}
