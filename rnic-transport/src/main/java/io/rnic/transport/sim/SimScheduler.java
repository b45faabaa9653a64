package io.rnic.transport.sim;

import io.netty.buffer.ByteBuf;
import io.rnic.core.time.Scheduler;
import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A discrete-event scheduler in virtual time, single-threaded. Events run in order of time, and
 * events at the same time in the order they were scheduled, so a run is a pure function of its
 * inputs. Packet deliveries use pooled events and allocate nothing; timers allocate one event.
 *
 * <p>Not thread-safe: everything on a simulated network, the protocol included, runs on the
 * thread that calls the {@code run} methods.
 */
public final class SimScheduler implements Scheduler {
    @Override
    public boolean virtualTime() {
        return true;
    }

    private static final Logger LOG = LoggerFactory.getLogger(SimScheduler.class);

    /** A scheduled event: a task, the arrival of a packet on a link direction, or an {@link Activation}. */
    static class Event implements Timer {
        long time;
        long seq;
        Runnable task;
        LinkDirection link;
        ByteBuf packet;
        InetSocketAddress source;
        /** The packet was sent unsealed and nothing has touched it (ICRC offload). */
        boolean intact;
        /** The packet's IP TOS byte. */
        int tos;
        boolean cancelled;
        boolean pooled;
        Event nextFree;

        /**
         * Fills this pooled event with a packet's arrival. The event comes round lap after lap for
         * the same link and source, and a reference store into it costs G1's post-write barrier (a
         * fence) even when it stores the value already there: an unchanged link or source is not
         * stored again.
         */
        final void arrival(LinkDirection link, ByteBuf packet, InetSocketAddress source, boolean intact, int tos,
                           long time, long seq) {
            if (this.link != link) {
                this.link = link;
            }
            if (this.source != source) {
                this.source = source;
            }
            this.packet = packet;
            this.intact = intact;
            this.tos = tos;
            this.time = time;
            this.seq = seq;
        }

        @Override
        public boolean cancel() {
            if (cancelled || task == null) {
                return false;
            }
            cancelled = true;
            task = null; // let go of what the task holds now, not when its time comes round
            return true;
        }
    }

    /**
     * An event its owner keeps and schedules again and again without allocating: a frame on its
     * way to the next hop of a fabric, a port's end of transmission, a timer that is re-armed
     * rather than re-created. An activation is scheduled at most once at a time
     * ({@link SimScheduler#activate}); it is not cancelled, but checks its owner's state when it
     * fires.
     */
    public abstract static class Activation extends Event {
        private boolean queued;

        /** An activation, not yet scheduled. */
        protected Activation() {
        }

        /** Runs at the scheduled time, on the simulator's thread. Exceptions are logged and counted. */
        protected abstract void fire();

        /**
         * Called instead of {@link #fire} when the network drains its events on close: release
         * what the activation holds (a frame's buffer). Does nothing by default.
         */
        protected void discard() {
        }

        /** True while scheduled and not yet fired. */
        public final boolean isQueued() {
            return queued;
        }

        /** Activations are not cancelled: they check their owner's state when they fire. Returns false. */
        @Override
        public final boolean cancel() {
            return false;
        }
    }

    private long now;
    private long seq;
    private Event[] heap = new Event[256];
    /** Events in the heap. */
    private int heapSize;
    /**
     * Lanes of events in (time, sequence) order, oldest first: most pushes (a link direction's
     * deliveries, each later than the one before) append to a lane in O(1) instead of sifting
     * through the heap. A push takes the first lane whose last event is not later; two directions
     * of a link interleave in time, so each keeps a lane of its own. The next event is the
     * earliest of the lanes' heads and the heap's top, so the order is the same (time, sequence)
     * order as with one queue.
     */
    private static final int LANES = 4;
    private final Event[][] lanes = new Event[LANES][256];
    private final int[] laneHead = new int[LANES];
    private final int[] laneCount = new int[LANES];
    /** Events waiting, in both structures. */
    private int size;
    /** Whether the last {@link #pop} took a lane's head (else the heap's top). */
    private boolean poppedFromLane;
    /** The lane {@link #nextLane} chose last (-1: none, or the heap), and the earliest event outside it then. */
    private int chosenLane = -1;
    private long runnerUpTime;
    private long runnerUpSeq;
    private Event free;
    private long arrivalEvents;
    private long executed;
    private long errors;
    private RuntimeException lastError;

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public Timer schedule(long delayNanos, Runnable task) {
        if (delayNanos < 0) {
            throw new IllegalArgumentException("delay " + delayNanos + " ns is negative");
        }
        Event e = new Event();
        e.task = java.util.Objects.requireNonNull(task, "task");
        push(e, now + delayNanos);
        return e;
    }

    /**
     * Schedules {@code a} to fire at virtual time {@code atNanos} (now, if that has passed),
     * allocation-free.
     *
     * @throws IllegalStateException if {@code a} is already scheduled
     */
    public void activate(Activation a, long atNanos) {
        if (a.queued) {
            throw new IllegalStateException(a + " is already scheduled");
        }
        a.queued = true;
        push(a, Math.max(atNanos, now));
    }

    /** Runs {@code task} after the current event, at the same virtual time. */
    @Override
    public void execute(Runnable task) {
        schedule(0, task);
    }

    /** Everything on a simulated network runs on the caller's thread. */
    @Override
    public boolean inOwnerThread() {
        return true;
    }

    /**
     * Schedules the arrival of {@code packet} at {@code time}; pooled, allocation-free. On a lane
     * the event is the one its ring slot kept from the last time round, filled again in place
     * ({@link Event#arrival}): every store of an event into the ring or the free list would cost
     * G1's write barrier (a fence) on each packet.
     */
    void scheduleArrival(long time, LinkDirection link, ByteBuf packet, InetSocketAddress source, boolean intact, int tos) {
        long t = Math.max(time, now);
        int l = laneAccepting(t);
        Event e;
        if (l >= 0) {
            Event[] lane = laneWithRoom(l);
            int slot = (laneHead[l] + laneCount[l]) & (lane.length - 1);
            e = lane[slot];
            if (e == null || !e.pooled) {
                e = takeFree();
                lane[slot] = e;
            }
            laneCount[l]++;
        } else {
            e = takeFree();
        }
        e.arrival(link, packet, source, intact, tos, t, seq++);
        size++;
        pushedAt(t);
        if (l < 0) {
            pushHeap(e);
        }
    }

    private Event takeFree() {
        Event e = free;
        if (e != null) {
            free = e.nextFree;
            e.nextFree = null;
        } else {
            e = new Event();
            e.pooled = true;
            arrivalEvents++;
        }
        return e;
    }

    /** Arrival events made so far: it stops growing once the deepest queue has been reached. */
    long arrivalEvents() {
        return arrivalEvents;
    }

    /** Number of events waiting. */
    public int pending() {
        return size;
    }

    /** Events run so far. */
    public long executed() {
        return executed;
    }

    /** Tasks that threw; each was logged and the run went on. */
    public long errors() {
        return errors;
    }

    /** The most recent exception a task threw, or {@code null}. */
    public RuntimeException lastError() {
        return lastError;
    }

    /** Runs the next event, if any; returns false when nothing is pending. */
    public boolean runNext() {
        if (size == 0) {
            return false;
        }
        Event e = pop();
        now = e.time;
        executed++;
        if (e.pooled) {
            try {
                arrive(e);
            } catch (RuntimeException ex) {
                errors++;
                lastError = ex;
                LOG.warn("packet delivery failed at t={} ns", now, ex);
            }
        } else if (e instanceof Activation a) {
            a.queued = false;
            try {
                a.fire();
            } catch (RuntimeException ex) {
                errors++;
                lastError = ex;
                LOG.warn("simulated activation {} failed at t={} ns", a, now, ex);
            }
        } else if (!e.cancelled) {
            e.cancelled = true; // a timer runs once; cancel() after this returns false
            try {
                e.task.run();
            } catch (RuntimeException ex) {
                errors++;
                lastError = ex;
                LOG.warn("simulated task failed at t={} ns", now, ex);
            }
        }
        return true;
    }

    /**
     * Discards every pending event: packets in flight are released without being delivered
     * (and counted as lost by their link); timers are dropped without running.
     */
    public void drain() {
        while (size > 0) {
            Event e = pop();
            if (e.pooled) {
                LinkDirection link = e.link;
                io.netty.buffer.ByteBuf packet = e.packet;
                e.packet = null;
                if (!poppedFromLane) {
                    recycle(e);
                }
                link.discard(packet);
            } else if (e instanceof Activation a) {
                a.queued = false;
                a.discard();
            }
        }
    }

    /** Runs events until none is pending. */
    public void runUntilIdle() {
        while (runNext()) {
            // keep going
        }
    }

    /** Runs every event due at or before {@code timeNanos}, then sets the clock to it. */
    public void runUntil(long timeNanos) {
        while (size > 0 && peek().time <= timeNanos) {
            runNext();
        }
        if (timeNanos > now) {
            now = timeNanos;
        }
    }

    /** Runs for {@code nanos} of virtual time. */
    public void runFor(long nanos) {
        runUntil(now + nanos);
    }

    /**
     * Runs events until {@code done} holds, nothing is pending, or {@code limitNanos} of virtual
     * time has passed; returns whether {@code done} holds.
     */
    public boolean runUntil(BooleanSupplier done, long limitNanos) {
        long deadline = now + limitNanos;
        while (!done.getAsBoolean()) {
            if (size == 0 || peek().time > deadline) {
                return done.getAsBoolean();
            }
            runNext();
        }
        return true;
    }

    /**
     * Delivers an arrival event's packet. An event from the heap goes back to the free list; one
     * from a lane stays in its ring slot ({@link #scheduleArrival}), its link and source kept.
     */
    private void arrive(Event e) {
        LinkDirection link = e.link;
        ByteBuf packet = e.packet;
        InetSocketAddress source = e.source;
        boolean intact = e.intact;
        int tos = e.tos;
        e.packet = null;
        if (!poppedFromLane) {
            recycle(e);
        }
        link.arrive(packet, source, intact, tos);
    }

    private void recycle(Event e) {
        e.link = null;
        e.source = null;
        e.nextFree = free;
        free = e;
    }

    private void push(Event e, long time) {
        e.time = time;
        e.seq = seq++;
        e.cancelled = false;
        size++;
        pushedAt(time);
        int l = laneAccepting(time);
        if (l < 0) {
            pushHeap(e);
            return;
        }
        Event[] lane = laneWithRoom(l);
        int slot = (laneHead[l] + laneCount[l]) & (lane.length - 1);
        Event kept = lane[slot];
        if (kept != null && kept.pooled) {
            recycle(kept); // the arrival event this slot kept: the next arrival here takes it back
        }
        lane[slot] = e;
        laneCount[l]++;
    }

    /** The first lane whose last event is not later than {@code time}, or -1 (the heap takes it). */
    private int laneAccepting(long time) {
        for (int l = 0; l < LANES; l++) {
            int count = laneCount[l];
            if (count == 0) {
                return l;
            }
            Event[] lane = lanes[l];
            if (lane[(laneHead[l] + count - 1) & (lane.length - 1)].time <= time) {
                return l;
            }
        }
        return -1;
    }

    /** Lane {@code l}'s ring, doubled first if it is full (its new slots keep no events yet). */
    private Event[] laneWithRoom(int l) {
        Event[] lane = lanes[l];
        int count = laneCount[l];
        if (count == lane.length) {
            Event[] grown = new Event[lane.length * 2];
            for (int k = 0; k < count; k++) {
                grown[k] = lane[(laneHead[l] + k) & (lane.length - 1)];
            }
            lanes[l] = lane = grown;
            laneHead[l] = 0;
        }
        return lane;
    }

    private void pushHeap(Event e) {
        if (heapSize == heap.length) {
            heap = java.util.Arrays.copyOf(heap, heapSize * 2);
        }
        int i = heapSize++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Event p = heap[parent];
            if (!before(e, p)) {
                break;
            }
            heap[i] = p;
            i = parent;
        }
        heap[i] = e;
    }

    /**
     * The lane whose head is the next event, or -1 if it is the heap's top (size > 0). A link
     * direction's deliveries come out of one lane many in a row, so the scan of every lane and
     * the heap is skipped while the lane it chose last still has a head before the earliest
     * event anywhere else (the runner-up it found then; an earlier push forgets the choice).
     */
    private int nextLane() {
        int c = chosenLane;
        if (c >= 0 && laneCount[c] > 0) {
            Event head = lanes[c][laneHead[c]];
            if (head.time < runnerUpTime || (head.time == runnerUpTime && head.seq < runnerUpSeq)) {
                return c;
            }
        }
        int best = -1;
        Event first = heapSize > 0 ? heap[0] : null;
        Event second = null;
        for (int l = 0; l < LANES; l++) {
            if (laneCount[l] > 0) {
                Event head = lanes[l][laneHead[l]];
                if (first == null || before(head, first)) {
                    second = first;
                    first = head;
                    best = l;
                } else if (second == null || before(head, second)) {
                    second = head;
                }
            }
        }
        chosenLane = best;
        runnerUpTime = second == null ? Long.MAX_VALUE : second.time;
        runnerUpSeq = second == null ? Long.MAX_VALUE : second.seq;
        return best;
    }

    /** A push at {@code time} (its sequence the newest) that comes before the runner-up ends {@link #nextLane}'s choice. */
    private void pushedAt(long time) {
        if (time < runnerUpTime) {
            chosenLane = -1;
        }
    }

    /** The next event (size > 0). */
    private Event peek() {
        int l = nextLane();
        return l < 0 ? heap[0] : lanes[l][laneHead[l]];
    }

    /** Takes the next event (size > 0) and says where from in {@link #poppedFromLane}. */
    private Event pop() {
        size--;
        int l = nextLane();
        if (l < 0) {
            poppedFromLane = false;
            return popHeap();
        }
        poppedFromLane = true;
        Event[] lane = lanes[l];
        Event e = lane[laneHead[l]];
        if (!e.pooled) {
            lane[laneHead[l]] = null; // a timer is not kept; an arrival's event stays for the slot's next
        }
        laneHead[l] = (laneHead[l] + 1) & (lane.length - 1);
        laneCount[l]--;
        return e;
    }

    private Event popHeap() {
        Event top = heap[0];
        Event last = heap[--heapSize];
        heap[heapSize] = null;
        if (heapSize > 0) {
            int i = 0;
            int half = heapSize >>> 1;
            while (i < half) {
                int child = 2 * i + 1;
                int right = child + 1;
                if (right < heapSize && before(heap[right], heap[child])) {
                    child = right;
                }
                if (!before(heap[child], last)) {
                    break;
                }
                heap[i] = heap[child];
                i = child;
            }
            heap[i] = last;
        }
        return top;
    }

    private static boolean before(Event a, Event b) {
        return a.time < b.time || (a.time == b.time && a.seq < b.seq);
    }
}
