package io.rnic.core.transport;

import java.util.function.Consumer;

/**
 * A completion queue: a fixed ring of {@link WorkCompletion}s filled by the protocol thread and
 * polled by any thread. Overflow is reported once through the overflow handler (the device turns
 * it into an IBV_EVENT_CQ_ERR asynchronous event); completions that do not fit are lost, as on
 * hardware. Request-notify arms a one-shot notification for the next completion, or the next
 * solicited one.
 */
public final class CompletionQueue {
    private final int id;
    private final WorkCompletion[] ring;
    private final Object lock = new Object();
    private long head;
    private long tail;
    private boolean overflowed;
    private int armed; // 0 none, 1 next, 2 solicited only
    private volatile Consumer<CompletionQueue> notifier;
    private volatile Consumer<CompletionQueue> overflowHandler;
    private volatile boolean destroyed;
    private int users;

    public CompletionQueue(int id, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a CQ needs at least 1 entry, asked for " + capacity);
        }
        this.id = id;
        this.ring = new WorkCompletion[capacity];
        for (int i = 0; i < capacity; i++) {
            ring[i] = new WorkCompletion();
        }
    }

    public int id() {
        return id;
    }

    public int capacity() {
        return ring.length;
    }

    /** Sets who is told when an armed notification fires (the completion channel). */
    public void notifier(Consumer<CompletionQueue> notifier) {
        this.notifier = notifier;
    }

    /** Sets who is told, once, when the queue overflows. */
    public void overflowHandler(Consumer<CompletionQueue> handler) {
        this.overflowHandler = handler;
    }

    /**
     * Reserves the next entry for the protocol thread to fill, or returns {@code null} when the
     * queue is full (overflow). Must be followed by {@link #commit}.
     */
    WorkCompletion begin() {
        boolean firstOverflow = false;
        synchronized (lock) {
            if (tail - head < ring.length) {
                WorkCompletion wc = ring[(int) (tail % ring.length)];
                wc.clear();
                return wc;
            }
            if (!overflowed) {
                overflowed = true;
                firstOverflow = true;
            }
        }
        // Outside the lock: the handler reaches application listeners, which may poll this CQ.
        Consumer<CompletionQueue> h = overflowHandler;
        if (firstOverflow && h != null) {
            h.accept(this);
        }
        return null;
    }

    /** Publishes the entry from {@link #begin}; {@code solicited} is the SE bit of the message. */
    void commit(boolean solicited) {
        Consumer<CompletionQueue> fire = null;
        synchronized (lock) {
            tail++;
            if (armed == 1 || (armed == 2 && solicited)) {
                armed = 0;
                fire = notifier;
            }
            lock.notifyAll();
        }
        if (fire != null) {
            fire.accept(this);
        }
    }

    /** Copies up to {@code max} completions into {@code out} (oldest first); returns how many. */
    public int poll(WorkCompletion[] out, int max) {
        int n = Math.min(max, out.length);
        synchronized (lock) {
            int got = 0;
            while (got < n && head < tail) {
                out[got++].set(ring[(int) (head % ring.length)]);
                head++;
            }
            return got;
        }
    }

    /** Polls one completion into {@code out}; returns false if the queue is empty. */
    public boolean poll(WorkCompletion out) {
        synchronized (lock) {
            if (head == tail) {
                return false;
            }
            out.set(ring[(int) (head % ring.length)]);
            head++;
            return true;
        }
    }

    /** Completions waiting to be polled. */
    public int size() {
        synchronized (lock) {
            return (int) (tail - head);
        }
    }

    /**
     * Blocks until a completion is waiting or {@code timeoutNanos} passes; returns whether one is
     * waiting. For real wires only: on the simulated network nothing happens while a thread waits.
     */
    public boolean await(long timeoutNanos) throws InterruptedException {
        long start = System.nanoTime();
        synchronized (lock) {
            while (head == tail) {
                long left = timeoutNanos - (System.nanoTime() - start); // no overflow for huge timeouts
                if (left <= 0 || destroyed) {
                    return head != tail;
                }
                lock.wait(left / 1_000_000, (int) (left % 1_000_000));
            }
            return true;
        }
    }

    /** Arms a one-shot notification for the next completion, or the next solicited one. */
    public void requestNotify(boolean solicitedOnly) {
        synchronized (lock) {
            armed = solicitedOnly ? 2 : 1;
        }
    }

    /** True once the queue has lost a completion for lack of room. */
    public boolean hasOverflowed() {
        synchronized (lock) {
            return overflowed;
        }
    }

    /** Counts a QP using this CQ, so that destroying the CQ can be refused while in use. */
    public synchronized void attach() {
        users++;
    }

    public synchronized void detach() {
        users--;
    }

    public synchronized boolean isInUse() {
        return users > 0;
    }

    /** Marks the queue destroyed and wakes waiters. */
    public void destroy() {
        destroyed = true;
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    @Override
    public String toString() {
        return "CQ#" + id + "(" + size() + "/" + ring.length + ")";
    }
}
