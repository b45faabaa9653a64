package io.rnic.core.engine;

/**
 * The send queue ring (its slots made on first use). Application threads claim and publish slots under the queue's lock; the
 * protocol thread reads published entries and retires completed ones. Indices are ever-growing
 * longs; the ring is a power of two long, at least the capacity, so a slot is the index masked
 * (a 64-bit division otherwise, several times per packet).
 */
class SendQueue {
    private final SendWqe[] slots;
    private final int capacity;
    private final int mask;
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
        this.capacity = capacity;
        slots = new SendWqe[ringSize(capacity)];
        mask = slots.length - 1;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
    }

    int capacity() {
        return capacity;
    }

    /**
     * The smallest power of two at least {@code capacity}, the length of a queue's ring; 0 for a
     * queue that holds nothing (a QP without a send queue).
     */
    static int ringSize(int capacity) {
        if (capacity < 0 || capacity > 1 << 30) {
            throw new IllegalArgumentException("queue capacity " + capacity + " is not in 0..2^30");
        }
        return capacity <= 1 ? capacity : Integer.highestOneBit(capacity - 1) << 1;
    }

    /** The next free slot, reset, or {@code null} if the queue is full. Call under the lock. */
    SendWqe claim() {
        if (posted - completed >= capacity) {
            return null;
        }
        int i = (int) posted & mask;
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
        return slots[(int) index & mask];
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
