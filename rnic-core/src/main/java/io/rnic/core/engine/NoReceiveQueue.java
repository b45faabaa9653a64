package io.rnic.core.engine;

import io.rnic.core.memory.ProtectionDomain;
import io.rnic.core.packet.AethSyndrome;
import io.rnic.verbs.RecvWorkRequest;

/**
 * The receive queue of a QP that has none of its own: an XRC initiator, which receives no
 * requests, and an XRC target, whose messages take their WQEs from the XRC SRQ each one names
 * (the responder's message target holds that queue). Nothing is ever posted or taken here.
 */
final class NoReceiveQueue implements ReceiveQueue {
    static final NoReceiveQueue INSTANCE = new NoReceiveQueue();

    private NoReceiveQueue() {
    }

    @Override
    public CompletionQueue completionQueue(QpContext qp) {
        throw new IllegalStateException(qp + " has no receive queue to complete from");
    }

    @Override
    public ProtectionDomain pd() {
        return null;
    }

    @Override
    public int maxSge() {
        return 0;
    }

    @Override
    public void post(RecvWorkRequest wr) {
        throw new IllegalStateException("this QP has no receive queue");
    }

    @Override
    public RecvWqe take() {
        return null;
    }

    @Override
    public int available() {
        return 0;
    }

    @Override
    public void retire(RecvWqe w) {
        throw new IllegalStateException("no WQE is ever taken from a QP without a receive queue");
    }

    @Override
    public int creditCode() {
        return AethSyndrome.CREDITS_INVALID;
    }

    @Override
    public void qpFailed(QpContext qp, RecvWqe held) {
        // No WQEs to flush: a WQE an XRC message held is flushed to the SRQ it came from.
    }

    @Override
    public void flushPosted(QpContext qp) {
    }

    @Override
    public boolean keepsWqeOfDroppedMessage() {
        return false;
    }

    @Override
    public void qpReset(RecvWqe held) {
    }
}
