package io.rnic.core.transport;

/**
 * The receive queue ring: application threads post, the responder takes entries in order as
 * messages start and retires them in the same order as they complete.
 */
final class RecvQueue {
    private final RecvWqe[] slots;
    private volatile long posted;
    private long taken;
    private volatile long completed;

    RecvQueue(int capacity, int maxSge) {
        slots = new RecvWqe[capacity];
        for (int i = 0; i < capacity; i++) {
            slots[i] = new RecvWqe(maxSge);
        }
    }

    int capacity() {
        return slots.length;
    }

    /** The next free slot or {@code null} if full. Call under the lock. */
    RecvWqe claim() {
        if (posted - completed >= slots.length) {
            return null;
        }
        RecvWqe w = slots[(int) (posted % slots.length)];
        w.sgl.clear();
        return w;
    }

    void publish() {
        posted = posted + 1;
    }

    /** Posted entries not yet taken by a message. */
    int available() {
        return (int) (posted - taken);
    }

    /** Takes the next entry for an incoming message, or {@code null} if none is posted (RNR). */
    RecvWqe take() {
        if (taken == posted) {
            return null;
        }
        return slots[(int) (taken++ % slots.length)];
    }

    /** Retires the oldest taken entry once its completion is written. */
    void retire() {
        completed = completed + 1;
    }

    /** Entries posted but not completed, oldest first, for flushing. */
    long completedIndex() {
        return completed;
    }

    long postedIndex() {
        return posted;
    }

    RecvWqe at(long index) {
        return slots[(int) (index % slots.length)];
    }

    /** Drops everything without completions (modify to RESET). */
    void clear() {
        taken = posted;
        completed = posted;
    }

    /**
     * After a flush has retired every entry it saw: nothing is taken any more. Entries posted
     * while the flush ran stay posted, for the next flush to complete.
     */
    void flushAll() {
        taken = completed;
    }
}
