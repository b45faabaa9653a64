package io.rnic.core.transport;

/**
 * The send queue ring (its slots made on first use). Application threads claim and publish slots under the queue's lock; the
 * protocol thread reads published entries and retires completed ones. Indices are ever-growing
 * longs taken modulo the capacity.
 */
class SendQueue {
    private final SendWqe[] slots;
    private final int maxSge;
    private final int maxInline;
    private volatile long posted;
    private volatile long completed;

    /**
     * A queue of {@code capacity} slots, each made the first time it is claimed and reused
     * after: an idle QP holds only the slot array, a busy one stops allocating once its
     * deepest use has been reached.
     */
    SendQueue(int capacity, int maxSge, int maxInline) {
        slots = new SendWqe[capacity];
        this.maxSge = maxSge;
        this.maxInline = maxInline;
    }

    int capacity() {
        return slots.length;
    }

    /** The next free slot, reset, or {@code null} if the queue is full. Call under the lock. */
    SendWqe claim() {
        if (posted - completed >= slots.length) {
            return null;
        }
        int i = (int) (posted % slots.length);
        SendWqe w = slots[i];
        if (w == null) {
            // Published to the protocol thread by publish()'s volatile store, like the entry's fields.
            w = new SendWqe(maxSge, maxInline);
            slots[i] = w;
        }
        w.reset();
        return w;
    }

    /** Makes the claimed slot visible to the protocol thread. Call under the lock. */
    void publish() {
        posted = posted + 1;
    }

    long posted() {
        return posted;
    }

    long completed() {
        return completed;
    }

    SendWqe at(long index) {
        return slots[(int) (index % slots.length)];
    }

    /** Retires the oldest entry (protocol thread). */
    void retire() {
        completed = completed + 1;
    }

    /** Empties the queue without completions (modify to RESET), releasing the entries' buffers. */
    void clear() {
        for (long i = completed; i < posted; i++) {
            at(i).sgl.release();
        }
        completed = posted;
    }
}
