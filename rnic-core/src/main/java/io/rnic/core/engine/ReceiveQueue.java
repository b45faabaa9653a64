package io.rnic.core.engine;

import io.rnic.verbs.RecvWorkRequest;

/**
 * Where a QP's responder finds receive WQEs: the QP's own receive queue or a shared receive
 * queue (the receive-source seam). Application threads post; the responder, on the protocol
 * thread, takes a WQE when a message that needs one starts, holds it while the message is in
 * progress and retires it once its completion is written. A queue may be shared by many QPs,
 * so WQEs may be retired in another order than they were taken.
 */
interface ReceiveQueue {
    /** The protection domain the WQEs' buffers are checked against. */
    io.rnic.core.memory.ProtectionDomain pd();

    /**
     * The completion queue the completions of WQEs taken by {@code qp} go to: the QP's receive
     * CQ, or an XRC SRQ's own (o9-114.a9).
     */
    CompletionQueue completionQueue(QpContext qp);

    /** Scatter/gather entries a receive work request may have. */
    int maxSge();

    /**
     * Copies a receive work request into the queue (any thread).
     *
     * @throws IllegalStateException if the queue is full or can no longer take work
     * @throws IllegalArgumentException if the request has more SGEs than the queue allows
     */
    void post(RecvWorkRequest wr);

    /**
     * Takes the oldest posted WQE for a message that is starting, or returns {@code null} if
     * none is posted (the receiver is not ready). Protocol thread.
     */
    RecvWqe take();

    /**
     * The WQE that the message {@code k} messages after the next one to start will take, without
     * taking it; {@code null} if it is not posted yet or the queue cannot say (a shared queue,
     * which other QPs take from too). Lets a request that arrives ahead of its turn be placed on
     * arrival (seed 002's extended protocol). Protocol thread.
     */
    default RecvWqe peek(int k) {
        return null;
    }

    /** Posted WQEs not yet taken by a message. */
    int available();

    /** Frees a WQE from {@link #take} whose completion has been written (any order). */
    void retire(RecvWqe w);

    /**
     * The AETH credit code a responder drawing from this queue advertises (reference §3.1): the
     * largest table entry not above the free WQEs, or "invalid" when the count means nothing to
     * one requester because other QPs draw from the same queue.
     */
    int creditCode();

    /**
     * A QP drawing from this queue moved to ERR. {@code held} is the WQE its message in progress
     * had taken, or {@code null}. The QP's own queue flushes every WQE with WR_FLUSH_ERR; a shared
     * queue flushes only the held one and tells the application it was the last
     * (QP_LAST_WQE_REACHED), because the others belong to the other QPs.
     */
    void qpFailed(QpContext qp, RecvWqe held);

    /**
     * Completes with WR_FLUSH_ERR what a QP in ERR must flush of this queue: every posted WQE of
     * its own queue; nothing of a shared one, whose WQEs belong to the other QPs too.
     */
    void flushPosted(QpContext qp);

    /**
     * Whether a WQE a dropped message had taken stays with the QP for its next message (its own
     * queue, as rxe does for UC), or completes in error so that it goes back (a shared queue,
     * whose other QPs would otherwise lose it).
     */
    boolean keepsWqeOfDroppedMessage();

    /** A QP drawing from this queue was reset or destroyed: its WQEs go without completions. */
    void qpReset(RecvWqe held);

    /**
     * Refuses every later post to a QP's own queue with {@code reason} (its QP destroyed, its
     * device closed): a post either came first, and is flushed or dropped with the queue, or
     * throws. A shared queue outlives its QPs and keeps taking posts.
     */
    default void refusePosts(String reason) {
    }
}
