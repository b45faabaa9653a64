package io.rnic.core.engine;

import io.rnic.core.packet.AethSyndrome;
import io.rnic.verbs.RecvWorkRequest;

/**
 * A QP's own receive queue: a ring that application threads post into under its lock, and that
 * the responder takes from in order. One responder completes its messages in order; an RD QP's
 * WQEs are taken by several EE contexts, whose messages may complete in another order (o9-112),
 * so a slot is free again only once every WQE taken before it has been retired too.
 */
final class OwnReceiveQueue implements ReceiveQueue {
    /** A power of two long, at least the capacity: a slot is its index masked ({@link SendQueue#ringSize}). */
    private final RecvWqe[] slots;
    private final int capacity;
    private final int mask;
    private final int maxSge;
    private final io.rnic.core.memory.ProtectionDomain pd;
    private volatile long posted;
    private long taken;
    private volatile long completed;
    /** Slots retired while an older WQE was still in progress (RD: o9-112); made on first need. */
    private boolean[] retiredEarly;
    /** Who to wake when a WQE is posted while the QP is in ERR (it is flushed at once). */
    private final Runnable postedInError;
    private final java.util.function.BooleanSupplier inError;
    /** Why posts are refused from now on, or null (under the queue's lock). */
    private String refused;

    OwnReceiveQueue(int capacity, int maxSge, io.rnic.core.memory.ProtectionDomain pd,
                    java.util.function.BooleanSupplier inError, Runnable postedInError) {
        this.pd = pd;
        this.capacity = capacity;
        slots = new RecvWqe[SendQueue.ringSize(capacity)]; // each made at its first post: an idle QP holds the array only
        mask = slots.length - 1;
        this.maxSge = maxSge;
        this.inError = inError;
        this.postedInError = postedInError;
    }

    @Override
    public CompletionQueue completionQueue(QpContext qp) {
        return qp.recvCq;
    }

    @Override
    public io.rnic.core.memory.ProtectionDomain pd() {
        return pd;
    }

    @Override
    public int maxSge() {
        return maxSge;
    }

    int capacity() {
        return capacity;
    }

    @Override
    public void post(RecvWorkRequest wr) {
        if (wr.numSge() > maxSge) {
            throw new IllegalArgumentException(wr.numSge() + " SGEs exceed max_recv_sge " + maxSge);
        }
        synchronized (this) {
            if (refused != null) {
                throw new IllegalStateException(refused);
            }
            if (posted - completed >= capacity) {
                throw new IllegalStateException("receive queue is full (max_recv_wr " + capacity + ")");
            }
            int i = (int) posted & mask;
            RecvWqe w = slots[i];
            if (w == null) {
                w = new RecvWqe(maxSge, i); // published with the entry by the volatile store of posted
                slots[i] = w;
            }
            w.sgl.clear();
            w.wrId = wr.wrId();
            w.sgl.addAll(wr);
            posted = posted + 1;
        }
        if (inError.getAsBoolean()) {
            postedInError.run();
        }
    }

    /** Receive WQEs posted and not yet completed: the queue's use, against its capacity. */
    int inUse() {
        return (int) (posted - completed);
    }

    @Override
    public int available() {
        return (int) (posted - taken);
    }

    @Override
    public RecvWqe take() {
        if (taken == posted) {
            return null;
        }
        return slots[(int) (taken++) & mask];
    }

    @Override
    public RecvWqe peek(int k) {
        return k >= 0 && k < posted - taken ? slots[(int) (taken + k) & mask] : null;
    }

    @Override
    public void retire(RecvWqe w) {
        int oldest = (int) completed & mask;
        if (w.slot != oldest) {
            if (retiredEarly == null) {
                retiredEarly = new boolean[slots.length];
            }
            retiredEarly[w.slot] = true; // its slot frees with the older ones still in progress
            return;
        }
        long c = completed + 1;
        while (retiredEarly != null && c < taken && retiredEarly[(int) c & mask]) {
            retiredEarly[(int) c & mask] = false;
            c++;
        }
        completed = c;
    }

    @Override
    public int creditCode() {
        return AethSyndrome.creditCodeFor(available());
    }

    @Override
    public void qpFailed(QpContext qp, RecvWqe held) {
        flushPosted(qp); // the held WQE is one of them
    }

    @Override
    public boolean keepsWqeOfDroppedMessage() {
        return true;
    }

    /** Completes every posted WQE, oldest first, with WR_FLUSH_ERR (reference §6.4). */
    @Override
    public void flushPosted(QpContext qp) {
        while (completed < posted) {
            int i = (int) completed & mask;
            if (retiredEarly != null && retiredEarly[i]) { // already completed, out of order
                retiredEarly[i] = false;
                completed = completed + 1;
                continue;
            }
            qp.completions.flushRecv(slots[i], this);
        }
        // Entries posted while the flush ran stay posted for the next flush.
        taken = completed;
    }

    @Override
    public synchronized void refusePosts(String reason) {
        refused = reason;
    }

    @Override
    public void qpReset(RecvWqe held) {
        synchronized (this) {
            for (long i = completed; i < posted; i++) {
                slots[(int) i & mask].sgl.release();
            }
            taken = posted;
            completed = posted;
            if (retiredEarly != null) {
                java.util.Arrays.fill(retiredEarly, false);
            }
        }
    }
}
