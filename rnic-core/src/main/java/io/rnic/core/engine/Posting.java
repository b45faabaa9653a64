package io.rnic.core.engine;

import io.rnic.core.memory.AccessResult;
import io.rnic.core.memory.MemoryAccess;
import io.rnic.core.memory.MemoryRegion;
import io.rnic.verbs.QpState;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * post_send and post_recv for one QP, callable from any thread: every check a work request
 * must pass before it is accepted (so that a refused request posts nothing), the copy into the
 * queue, and the doorbell that hands the send queue to the protocol thread once per batch.
 */
final class Posting {
    private final QpContext qp;
    private final AtomicBoolean doorbellRung = new AtomicBoolean();
    private final Runnable doorbell = this::onDoorbell;

    Posting(QpContext qp) {
        this.qp = qp;
    }

    void postSend(SendWorkRequest wr) {
        if (!qp.policy.sides().sends()) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qp.qpn) + " is an " + qp.type
                    + " QP: it has no send queue");
        }
        QpState s = qp.state;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
            throw new IllegalStateException("post_send on QP 0x" + Integer.toHexString(qp.qpn) + " in state " + s
                    + ": sends need RTS (or SQD, SQE, ERR)");
        }
        RequestKind kind = RequestKind.of(wr.opcode());
        if (kind == null || !kind.transports().contains(qp.policy.transport())) {
            throw new IllegalArgumentException("opcode " + wr.opcode() + " cannot be posted on a " + qp.type + " QP");
        }
        if (wr.numSge() > qp.caps.maxSendSge()) {
            throw new IllegalArgumentException(wr.numSge() + " SGEs exceed max_send_sge " + qp.caps.maxSendSge());
        }
        long total = wr.totalLength();
        boolean inline = (wr.flags() & SendWqe.INLINE) != 0;
        if (inline && total > qp.caps.maxInlineData()) {
            throw new IllegalArgumentException("inline data of " + total + " bytes exceeds max_inline_data "
                    + qp.caps.maxInlineData());
        }
        if (inline && kind.writesLocal()) {
            throw new IllegalArgumentException(wr.opcode() + " cannot be sent inline: its data comes back from the responder");
        }
        if (inline && kind.operation() == io.rnic.core.packet.Operation.FLUSH) {
            throw new IllegalArgumentException("FLUSH cannot be sent inline: it carries no data");
        }
        if (total > qp.hca.limits().maxMessageSize()) {
            throw new IllegalArgumentException("message of " + total + " bytes exceeds the maximum message size "
                    + qp.hca.limits().maxMessageSize());
        }
        if (kind.operation() == io.rnic.core.packet.Operation.FLUSH) {
            checkFlush(wr);
        }
        if (kind.isLocal() && (wr.numSge() != 0 || inline)) {
            throw new IllegalArgumentException(wr.opcode() + " is a local operation: it takes no SGEs or inline data");
        }
        if (wr.opcode() == io.rnic.verbs.WrOpcode.BIND_MW && wr.bindMwKey() == 0) {
            throw new IllegalArgumentException("a BIND_MW names its memory window: set it with bindMw");
        }
        if (wr.opcode() == io.rnic.verbs.WrOpcode.REG_MR && wr.bindMrKey() == 0) {
            throw new IllegalArgumentException("a REG_MR names its region: set it with regMr");
        }
        if (kind.isAtomic() || kind.operation() == io.rnic.core.packet.Operation.ATOMIC_WRITE) {
            if (total != 8) {
                throw new IllegalArgumentException(wr.opcode() + " needs exactly 8 bytes of local buffer, got " + total);
            }
            if (wr.numSge() != 1) {
                // The original value comes back as one 8-byte word: split over SGEs it would have to
                // be scattered, and writing it whole at the first SGE would run past that SGE.
                throw new IllegalArgumentException(wr.opcode() + " needs its 8-byte local buffer in one SGE, got "
                        + wr.numSge() + " SGEs");
            }
            if ((wr.remoteAddr() & 7) != 0) {
                throw new IllegalArgumentException(String.format("%s remote address 0x%x is not 8-byte aligned",
                        wr.opcode(), wr.remoteAddr()));
            }
        }
        if (qp.policy.headers().namesTargetSrq() && !kind.isLocal() && (wr.remoteSrqn() & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("a work request on " + qp.type + " QP 0x" + Integer.toHexString(qp.qpn)
                    + " must name the remote XRC SRQ (xrc(srqn), 24 bits), got " + wr.remoteSrqn());
        }
        qp.addressing.checkPost(wr);
        SendQueue sq = qp.sq;
        synchronized (sq) {
            if (qp.postsRefused != null) { // under the lock: the refusal and a post never overlap
                throw new IllegalStateException(qp.postsRefused);
            }
            SendWqe w = sq.claim();
            if (w == null) {
                throw new IllegalStateException("send queue of QP 0x" + Integer.toHexString(qp.qpn)
                        + " is full (max_send_wr " + qp.caps.maxSendWr() + ")");
            }
            w.copyFrom(wr, kind, qp.signalAll ? SendWqe.SIGNALED : 0, qp);
            if (kind.carriesOperands()) {
                w.operands().copyFrom(wr);
            }
            if (inline) {
                copyInline(wr, w);
            } else {
                w.sgl.addAll(wr);
            }
            sq.publish();
        }
        ring();
    }

    /** FLUSH's own fields: no local data, a FETH it can encode, a RETH length it can carry. */
    private static void checkFlush(SendWorkRequest wr) {
        if (wr.numSge() != 0) {
            throw new IllegalArgumentException("FLUSH takes no SGEs: it moves no data, got " + wr.numSge());
        }
        int plt = wr.flushPlacement();
        if (plt < 1 || plt > (SendWorkRequest.FLUSH_GLOBAL | SendWorkRequest.FLUSH_PERSISTENT)) {
            throw new IllegalArgumentException("FLUSH placement type " + plt + " is not FLUSH_GLOBAL (1), "
                    + "FLUSH_PERSISTENT (2) or both (3)");
        }
        int sel = wr.flushSelectivity();
        if (sel != SendWorkRequest.FLUSH_RANGE && sel != SendWorkRequest.FLUSH_MR) {
            throw new IllegalArgumentException("FLUSH selectivity " + sel + " is not FLUSH_RANGE (0) or FLUSH_MR (1)");
        }
        if (wr.flushLength() < 0 || wr.flushLength() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("FLUSH length " + wr.flushLength() + " is not in 0..2^31-1");
        }
    }

    private void copyInline(SendWorkRequest wr, SendWqe w) {
        int at = 0;
        for (int i = 0, n = wr.numSge(); i < n; i++) {
            int len = wr.sgeLength(i);
            long addr = wr.sgeAddress(i);
            int lkey = wr.sgeLkey(i);
            if (len == 0) {
                continue;
            }
            MemoryRegion mr = qp.hca.keys().lookup(lkey);
            AccessResult r = MemoryAccess.check(mr, qp.pd, addr, len, 0, 1);
            if (r == AccessResult.OK && !mr.pin()) {
                r = AccessResult.INVALID_KEY; // deregistered between lookup and copy
            }
            if (r != AccessResult.OK) {
                throw new IllegalArgumentException(String.format("inline SGE %d (lkey 0x%08x, addr 0x%x, length %d): %s",
                        i, lkey, addr, len, r));
            }
            try {
                mr.read(addr, w.inlineArea(), at, len);
            } finally {
                mr.unpin(); // held for the copy only, like every access
            }
            at += len;
        }
        w.inlineLength = at;
    }

    void postRecv(RecvWorkRequest wr) {
        if (qp.policy.receiveSource() != TransportPolicy.ReceiveSource.QP_RQ_OR_SRQ) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qp.qpn) + " is an " + qp.type
                    + " QP: it has no receive queue" + (qp.policy.sides().responds()
                    ? " (post receives to the XRC SRQs of its domain)" : ""));
        }
        if (qp.srq != null) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qp.qpn) + " takes its receive WQEs from SRQ "
                    + qp.srq.srqn() + ": post receives to the SRQ");
        }
        if (qp.state == QpState.RESET) {
            throw new IllegalStateException("post_recv on QP 0x" + Integer.toHexString(qp.qpn)
                    + " in RESET: receives need INIT or later");
        }
        qp.rq.post(wr);
    }

    /** Hands the queues to the protocol thread, once per batch of posts. */
    void ring() {
        // A plain read first: within a batch of posts the doorbell is rung already, and a failed
        // compare-and-set costs a locked instruction all the same. No wake-up is lost: the post
        // (SendQueue's volatile posted) comes before this read, and onDoorbell clears the flag
        // before it reads the queue, all volatile, so either this read sees the flag cleared and
        // rings again, or the doorbell's run sees the post.
        if (!doorbellRung.get() && doorbellRung.compareAndSet(false, true)) {
            qp.hca.scheduler().execute(doorbell);
        }
    }

    private void onDoorbell() {
        doorbellRung.set(false);
        if (qp.destroyed) {
            return;
        }
        if (qp.state == QpState.ERR) {
            qp.completions.flushSend();
            qp.rq.flushPosted(qp);
            return;
        }
        qp.sendDriver.run();
    }
}
