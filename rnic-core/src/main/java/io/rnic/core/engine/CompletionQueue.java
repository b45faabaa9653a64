package io.rnic.core.engine;

import io.rnic.core.time.Clock;
import io.rnic.verbs.WorkCompletion;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * A completion queue: a fixed ring of {@link WorkCompletion}s filled by the protocol thread and
 * polled by any thread. Overflow is reported once through the overflow handler (the device turns
 * it into an IBV_EVENT_CQ_ERR asynchronous event); completions that do not fit are lost, as on
 * hardware. Request-notify arms a one-shot notification for the next completion, or the next
 * solicited one.
 *
 * <p>Lock-free: the one producer publishes an entry by advancing {@code tail}; pollers copy an
 * entry and then claim it by advancing {@code head} with a compare-and-set, discarding the copy
 * if another poller claimed it first (the producer reuses a slot only after its claim). A
 * thread that waits announces itself in {@code waiters} before its last look, and the producer
 * takes the lock to wake it only when someone has announced: a completion costs no lock and no
 * wake-up while nobody waits.
 *
 * <p>Resizing ({@link #resize}) runs on the protocol thread, the one producer, so no completion is
 * written meanwhile: it copies the unpolled entries into a new ring at the same positions and
 * publishes the ring with a volatile store. The old ring is never written again, so a poller still
 * reading it copies the entry it meant to, and its claim on {@code head} decides as before.
 *
 * <p>A queue created with a clock ({@link #timestamps}) stamps each completion with the clock's
 * time as it is published: the wire's clock, virtual nanoseconds on the simulated network.
 */
public final class CompletionQueue {
    private static final VarHandle HEAD;
    private static final VarHandle ARMED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(CompletionQueue.class, "head", long.class);
            ARMED = l.findVarHandle(CompletionQueue.class, "armed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int NOT_ARMED = 0;
    private static final int ARMED_NEXT = 1;
    private static final int ARMED_SOLICITED = 2;

    private final int id;
    /** Written by the protocol thread only (creation, {@link #resize}). */
    private volatile int capacity;
    /** A power of two at least {@link #capacity} long; replaced whole by {@link #resize}. */
    private volatile WorkCompletion[] ring;
    /** Stamps completions when set ({@link #timestamps}); null: no stamp, one check per completion. */
    private Clock clock;
    /** The depths of the queues that complete here (under this object's lock). */
    private long committedDepth;
    private final Object lock = new Object();
    /** Next entry to poll; advanced by pollers with a compare-and-set. */
    private volatile long head;
    /** Next entry to fill; written by the producer only. */
    private volatile long tail;
    private volatile boolean overflowed;
    private volatile int armed;
    /** Threads between announcing a wait and leaving it. */
    private volatile int waiters;
    private volatile Consumer<CompletionQueue> notifier;
    private volatile Consumer<CompletionQueue> overflowHandler;
    private volatile boolean destroyed;
    private int users;

    public CompletionQueue(int id, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a CQ needs at least 1 entry, asked for " + capacity);
        }
        this.id = id;
        this.capacity = capacity;
        this.ring = newRing(capacity);
    }

    /** A ring of pre-allocated entries, its length the power of two at or above {@code capacity}. */
    private static WorkCompletion[] newRing(int capacity) {
        int slots = Integer.highestOneBit(capacity) == capacity ? capacity : Integer.highestOneBit(capacity) << 1;
        WorkCompletion[] r = new WorkCompletion[slots];
        for (int i = 0; i < slots; i++) {
            r[i] = new WorkCompletion();
        }
        return r;
    }

    /**
     * Stamps every later completion with {@code clock}'s time when it is published
     * ({@link WorkCompletion#completionTimestampNanos()}); set before the queue is used.
     */
    public void timestamps(Clock clock) {
        this.clock = clock;
    }

    /**
     * Changes the capacity to {@code capacity} entries, keeping the unpolled completions in their
     * order ({@code ibv_resize_cq}). Must run on the protocol thread (or when none runs), the only
     * thread that adds completions.
     *
     * @throws IllegalArgumentException if {@code capacity} is below 1 or below the completions
     *     waiting to be polled
     */
    public void resize(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a CQ needs at least 1 entry, asked for " + capacity);
        }
        long t = tail;
        long h = head; // pollers may advance it meanwhile: they only make room
        if (t - h > capacity) {
            throw new IllegalArgumentException("cannot resize CQ " + id + " to " + capacity + " entries: "
                    + (t - h) + " completions are waiting to be polled");
        }
        WorkCompletion[] old = ring;
        WorkCompletion[] grown = newRing(capacity);
        int oldMask = old.length - 1;
        int newMask = grown.length - 1;
        for (long i = h; i < t; i++) {
            grown[(int) i & newMask].set(old[(int) i & oldMask]);
        }
        this.capacity = capacity;
        ring = grown; // volatile store: a poller that reads the new ring sees the copied entries
    }

    public int id() {
        return id;
    }

    public int capacity() {
        return capacity;
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
        long t = tail;
        if (t - head < capacity) {
            WorkCompletion[] r = ring;
            WorkCompletion wc = r[(int) t & (r.length - 1)];
            wc.clear();
            return wc;
        }
        if (!overflowed) {
            overflowed = true;
            // The handler reaches application listeners, which may poll this CQ.
            Consumer<CompletionQueue> h = overflowHandler;
            if (h != null) {
                h.accept(this);
            }
        }
        return null;
    }

    /**
     * Error injection (protocol thread): the CQ overflows as it does when a completion finds it
     * full: CQ_ERR through the overflow handler, once, and {@link #hasOverflowed()} from then on.
     */
    public void injectOverflow() {
        if (!overflowed) {
            overflowed = true;
            Consumer<CompletionQueue> h = overflowHandler;
            if (h != null) {
                h.accept(this);
            }
        }
    }

    /** Publishes the entry from {@link #begin}; {@code solicited} is the SE bit of the message. */
    void commit(boolean solicited) {
        Clock c = clock;
        if (c != null) {
            WorkCompletion[] r = ring;
            r[(int) tail & (r.length - 1)].completionTimestampNanos(c.nanoTime());
        }
        tail = tail + 1; // a volatile store: pollers see the entry, and it orders before the read of waiters
        int a = armed;
        if (a != NOT_ARMED && (a == ARMED_NEXT || solicited) && ARMED.compareAndSet(this, a, NOT_ARMED)) {
            Consumer<CompletionQueue> fire = notifier;
            if (fire != null) {
                fire.accept(this);
            }
        }
        if (waiters != 0) {
            synchronized (lock) {
                lock.notifyAll();
            }
        }
    }

    /** Copies up to {@code max} completions into {@code out} (oldest first); returns how many. */
    public int poll(WorkCompletion[] out, int max) {
        int n = Math.min(max, out.length);
        int got = 0;
        while (got < n && poll(out[got])) {
            got++;
        }
        return got;
    }

    /** Polls one completion into {@code out}; returns false if the queue is empty. */
    public boolean poll(WorkCompletion out) {
        for (;;) {
            long h = head;
            if (h == tail) {
                return false;
            }
            WorkCompletion[] r = ring; // read after head: a ring resized since still holds entry h, or h is claimed
            out.set(r[(int) h & (r.length - 1)]);
            if (HEAD.compareAndSet(this, h, h + 1)) {
                return true;
            }
            // Another poller took entry h first (and the producer may be refilling its slot): retry.
        }
    }

    /** Completions waiting to be polled. */
    public int size() {
        long h = head;
        return (int) Math.max(0, tail - h);
    }

    /**
     * Blocks until a completion is waiting or {@code timeoutNanos} passes; returns whether one is
     * waiting. For real wires only: on the simulated network nothing happens while a thread waits.
     */
    public boolean await(long timeoutNanos) throws InterruptedException {
        if (head != tail) {
            return true;
        }
        long start = System.nanoTime();
        synchronized (lock) {
            waiters++;
            try {
                while (head == tail) { // read after the announcement: the producer sees one or the other
                    long left = timeoutNanos - (System.nanoTime() - start); // no overflow for huge timeouts
                    if (left <= 0 || destroyed) {
                        return head != tail;
                    }
                    lock.wait(left / 1_000_000, (int) (left % 1_000_000));
                }
                return true;
            } finally {
                waiters--;
            }
        }
    }

    /** Arms a one-shot notification for the next completion, or the next solicited one. */
    public void requestNotify(boolean solicitedOnly) {
        armed = solicitedOnly ? ARMED_SOLICITED : ARMED_NEXT;
    }

    /** The notification armed now, as a resource view shows it: {@code none}, {@code next} or {@code solicited}. */
    public String notifyState() {
        int a = armed;
        return a == ARMED_NEXT ? "next" : a == ARMED_SOLICITED ? "solicited" : "none";
    }

    /** QPs (and XRC SRQs) completing into this queue. */
    public synchronized int users() {
        return users;
    }

    /** True once the queue has lost a completion for lack of room. */
    public boolean hasOverflowed() {
        return overflowed;
    }

    /**
     * Counts a QP using this CQ, so that destroying the CQ can be refused while in use, with the
     * {@code depth} of its queue that completes here.
     *
     * @return the depths of all the queues completing here, this one included
     */
    public synchronized long attach(int depth) {
        users++;
        committedDepth += depth;
        return committedDepth;
    }

    /** A QP that used this CQ, with {@code depth} entries of its queues, is gone. */
    public synchronized void detach(int depth) {
        users--;
        committedDepth -= depth;
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
        return "CQ#" + id + "(" + size() + "/" + capacity + ")";
    }
}
