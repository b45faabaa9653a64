package io.rnic.core.engine;

import io.rnic.core.packet.Operation;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.Counter;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;

/**
 * Writes one QP's completions: send WQEs as they complete or are flushed, receive WQEs as their
 * messages complete or are flushed. A WQE's slot is freed before its completion is published:
 * an application that polls the completion may post again at once and must find room.
 */
class CompletionWriter {
    final QpContext qp;

    CompletionWriter(QpContext qp) {
        this.qp = qp;
    }

    /**
     * Completes the oldest send WQE and retires it. Successful unsignaled WQEs produce no
     * completion; errors always do.
     */
    void completeSend(SendWqe w, WcStatus status) {
        completeSend(w, status, 0);
    }

    /**
     * As {@link #completeSend(SendWqe, WcStatus)}, with the additional information of an error
     * completion ({@code vendor_err}: what a RESYNC found of an abandoned RD message).
     */
    void completeSend(SendWqe w, WcStatus status, int vendorErr) {
        long wrId = w.wrId;
        WcOpcode opcode = w.kind == null ? WcOpcode.SEND : w.kind.completion();
        int byteLen = status == WcStatus.SUCCESS ? (int) w.length() : 0;
        boolean report = status != WcStatus.SUCCESS || w.signaled();
        if (w.kind != null && w.kind.operation() == Operation.SEND) {
            qp.hca.counters().inc(Counter.RDMA_SENDS);
        }
        w.state(SendWqe.State.DONE);
        w.sgl.release();
        w.ah = null; // the handle may be destroyed now; the WQE no longer needs it
        qp.sq.retire();
        if (report) {
            WorkCompletion wc = qp.sendCq.begin();
            if (wc != null) {
                wc.fill(wrId, status, opcode, qp.qpn).details(byteLen, 0, 0, 0, 0);
                if (vendorErr != 0) {
                    wc.vendorErr(vendorErr);
                }
                qp.sendCq.commit(false);
            } else {
                cqOverflow();
            }
        }
    }

    /** Completes every send WQE not yet completed with WR_FLUSH_ERR, oldest first (reference §6.4). */
    void flushSend() {
        while (qp.sq.completed() < qp.sq.posted()) {
            completeSend(qp.sq.at(qp.sq.completed()), WcStatus.WR_FLUSH_ERR);
        }
    }

    /**
     * Writes the completion of a message's receive WQE {@code w}, taken from {@code from}, and
     * frees it there.
     *
     * @param srcQp   the sender's QP number ({@code wc.src_qp})
     * @param flags   {@link WorkCompletion} flags (immediate, invalidate, GRH)
     */
    void completeRecv(RecvWqe w, ReceiveQueue from, WcStatus status, WcOpcode opcode, int byteLen, int flags, int imm,
                      int invRkey, int srcQp, boolean solicited) {
        long wrId = w.wrId;
        w.sgl.release();
        from.retire(w);
        CompletionQueue cq = from.completionQueue(qp);
        WorkCompletion wc = cq.begin();
        if (wc != null) {
            wc.fill(wrId, status, opcode, qp.qpn);
            if (status == WcStatus.SUCCESS) {
                wc.details(byteLen, srcQp, flags, imm, invRkey);
                qp.hca.counters().inc(Counter.RDMA_RECVS);
            } else {
                wc.details(0, srcQp, 0, 0, 0);
            }
            cq.commit(solicited);
        } else {
            cqOverflow();
        }
    }

    /** Completes a receive WQE with WR_FLUSH_ERR (only wr_id, status, opcode and qp_num valid). */
    void flushRecv(RecvWqe w, ReceiveQueue from) {
        completeRecv(w, from, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, 0, false);
    }

    private void cqOverflow() {
        // The CQ reported CQ_ERR itself; the QPs that lost a completion go to ERR (once: a QP
        // already in ERR is flushing into the full queue).
        if (qp.state != io.rnic.verbs.QpState.ERR) {
            qp.hca.scheduler().execute(() -> qp.moveToError(AsyncEvent.Type.QP_FATAL));
        }
    }
}
