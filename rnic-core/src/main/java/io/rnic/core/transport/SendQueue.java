package io.rnic.core.transport;

/**
 * The send queue ring. Application threads claim and publish slots under the queue's lock; the
 * protocol thread reads published entries and retires completed ones. Indices are ever-growing
 * longs taken modulo the capacity.
 */
final class SendQueue {
    private final SendWqe[] slots;
    private volatile long posted;
    private volatile long completed;

    SendQueue(int capacity, int maxSge, int maxInline) {
        slots = new SendWqe[capacity];
        for (int i = 0; i < capacity; i++) {
            slots[i] = new SendWqe(maxSge, maxInline);
        }
    }

    int capacity() {
        return slots.length;
    }

    /** The next free slot, reset, or {@code null} if the queue is full. Call under the lock. */
    SendWqe claim() {
        if (posted - completed >= slots.length) {
            return null;
        }
        SendWqe w = slots[(int) (posted % slots.length)];
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

    /** Empties the queue without completions (modify to RESET). */
    void clear() {
        completed = posted;
    }
}
