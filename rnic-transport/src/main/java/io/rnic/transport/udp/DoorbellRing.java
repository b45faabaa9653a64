package io.rnic.transport.udp;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The doorbells an agent's duty cycle drains: a bounded ring that any thread offers work to
 * (a QP's doorbell, once per batch of posts, or a verb's task) and the agent's thread alone
 * takes from. Offering is a compare-and-set on the tail and a store; taking is a load and a
 * store; nothing allocates. When the ring is full the caller falls back to the event loop's own
 * queue, so nothing is lost.
 */
final class DoorbellRing {
    private final AtomicReferenceArray<Runnable> slots;
    private final int mask;
    private final AtomicLong tail = new AtomicLong();
    /** Written by the consumer only; read by producers to see the room left. */
    private volatile long head;

    DoorbellRing(int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("doorbell ring capacity " + capacity + " must be a power of two");
        }
        this.slots = new AtomicReferenceArray<>(capacity);
        this.mask = capacity - 1;
    }

    int capacity() {
        return mask + 1;
    }

    /** Adds {@code task}; false if the ring is full. Any thread. */
    boolean offer(Runnable task) {
        for (;;) {
            long t = tail.get();
            if (t - head > mask) {
                return false;
            }
            if (tail.compareAndSet(t, t + 1)) {
                slots.lazySet((int) t & mask, task); // seen by the consumer once set; it waits for it
                return true;
            }
        }
    }

    /** True if nothing is waiting (a hint: a producer may be between its claim and its store). */
    boolean isEmpty() {
        return tail.get() == head;
    }

    /**
     * Runs what is waiting, oldest first, up to what was there when it started (work offered
     * by the tasks themselves waits for the next cycle); returns how many ran. Agent thread only.
     * A task that throws is counted as run and the rest still run.
     */
    int drain(java.util.function.Consumer<RuntimeException> onError) {
        long h = head;
        long end = tail.get();
        int ran = 0;
        while (h < end) {
            int i = (int) h & mask;
            Runnable r = slots.get(i);
            if (r == null) {
                break; // claimed but not yet stored: the next cycle takes it
            }
            slots.lazySet(i, null);
            head = ++h;
            ran++;
            try {
                r.run();
            } catch (RuntimeException e) {
                onError.accept(e);
            }
        }
        return ran;
    }
}
