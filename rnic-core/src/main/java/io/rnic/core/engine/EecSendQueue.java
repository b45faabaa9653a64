package io.rnic.core.engine;

/**
 * An EE context's send queue as its requester and completer see it: at most one message, the
 * one the context is carrying (o9-102), which is an RD QP's send WQE or the context's own
 * RESYNC. The WQE stays in its QP's queue; this queue only lends it to the context's engines,
 * counting messages so their cursors move on as they do over a QP's ring.
 */
final class EecSendQueue extends SendQueue {
    private SendWqe current;
    private long done;

    EecSendQueue() {
        super(1, 0, 0);
    }

    /** Puts {@code w} on the context; it must have none. */
    void carry(SendWqe w) {
        if (current != null) {
            throw new IllegalStateException("an EE context carries one message at a time (o9-102)");
        }
        current = w;
    }

    /** The message on the context, or {@code null}. */
    SendWqe current() {
        return current;
    }

    /** Takes the message off the context without completing it (suspended or abandoned). */
    SendWqe drop() {
        SendWqe w = current;
        if (w != null) {
            current = null;
            done++;
        }
        return w;
    }

    @Override
    SendWqe claim() {
        throw new IllegalStateException("work is posted to RD QPs, not to their EE contexts");
    }

    @Override
    long posted() {
        return done + (current != null ? 1 : 0);
    }

    @Override
    long completed() {
        return done;
    }

    @Override
    SendWqe at(long index) {
        return current;
    }

    @Override
    void retire() {
        drop();
    }

    @Override
    void clear() {
        drop(); // the WQE is its QP's: its buffers stay held there
    }
}
