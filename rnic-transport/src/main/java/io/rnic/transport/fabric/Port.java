package io.rnic.transport.fabric;

import io.rnic.transport.sim.SimScheduler;

/**
 * One port of a fabric node, as a transmitter: eight priority queues, the scheduler that picks
 * which one sends next, the PAUSE state its link partner imposed (and the watchdog that may
 * override it), and the serializer that puts one frame at a time on the link. Everything per
 * frame is allocation-free; the counters are plain fields read by {@link Fabric#portStats}.
 */
final class Port {
    static final int PRIORITIES = 8;

    final Fabric fabric;
    final Node owner;
    final int index;
    final FabricLink link;
    /** The node at the link's other end, and the port number it sees the link as. */
    Node peer;
    int peerPort;
    /** This port's MAC address, the source of the PFC frames it sends. */
    final long mac;

    private final SimScheduler scheduler;
    @SuppressWarnings("unchecked")
    private final PacketQueue<Frame>[] queues = new PacketQueue[PRIORITIES];
    private final int[] headSize = new int[PRIORITIES];
    private int backlogged;
    private final EgressScheduler egress;
    final PauseState pause;
    private final PfcWatchdog watchdog;
    private boolean busy;
    private final SimScheduler.Activation txDone = new SimScheduler.Activation() {
        @Override
        protected void fire() {
            busy = false;
            startNext();
        }
    };
    private final SimScheduler.Activation wake = new SimScheduler.Activation() {
        @Override
        protected void fire() {
            if (!busy) {
                startNext();
            }
        }
    };
    private long wakeAt = Long.MAX_VALUE;

    // Counters, per priority where a priority is what they depend on.
    long txFrames;
    long txBytes;
    final long[] txFramesByPriority = new long[PRIORITIES];
    final long[] drops = new long[PRIORITIES];
    final long[] ecnMarks = new long[PRIORITIES];
    final long[] pausesSent = new long[PRIORITIES];
    final long[] resumesSent = new long[PRIORITIES];
    final long[] maxQueueBytes = new long[PRIORITIES];
    final long[] watchdogDrops = new long[PRIORITIES];

    Port(Fabric fabric, Node owner, int index, FabricLink link, long mac) {
        this.fabric = fabric;
        this.owner = owner;
        this.index = index;
        this.link = link;
        this.mac = mac;
        this.scheduler = fabric.scheduler();
        FabricConfig c = fabric.config();
        for (int p = 0; p < PRIORITIES; p++) {
            queues[p] = new PacketQueue<>(4);
        }
        this.egress = c.newScheduler();
        this.pause = c.newPauseState();
        this.watchdog = c.pfcWatchdogEnabled() ? c.newWatchdog() : null;
    }

    /** Bytes queued at priority {@code p}. */
    long queueBytes(int p) {
        return queues[p].bytes();
    }

    /** Bytes queued at every priority. */
    long queueBytes() {
        long b = 0;
        for (PacketQueue<Frame> q : queues) {
            b += q.bytes();
        }
        return b;
    }

    /** Frames queued at every priority. */
    int queuedFrames() {
        int n = 0;
        for (PacketQueue<Frame> q : queues) {
            n += q.size();
        }
        return n;
    }

    /** Queues a frame at its priority and starts sending if the port is idle. */
    void enqueue(Frame f) {
        int p = f.priority;
        if (watchdog != null && watchdog.isMitigating(p, scheduler.nanoTime())) {
            watchdog.countDrop(p); // a stormed queue drops what comes while the watchdog holds it
            watchdogDrops[p]++;
            owner.dropQueued(this, f);
            return;
        }
        PacketQueue<Frame> q = queues[p];
        if (q.isEmpty()) {
            headSize[p] = f.frameBytes;
            backlogged |= 1 << p;
        }
        q.offer(f, f.frameBytes);
        long bytes = q.bytes();
        if (bytes > maxQueueBytes[p]) {
            maxQueueBytes[p] = bytes;
        }
        if (!busy) {
            startNext();
        }
    }

    /** Applies a PFC frame its link partner sent: pauses or resumes this port's priorities. */
    void applyPause(Frame f) {
        pause.apply(f.pfcEnable, f.quanta, scheduler.nanoTime(), link.bitsPerSecond);
        if (!busy) {
            startNext();
        }
    }

    /** Sends the next frame the scheduler picks among the queues not paused, if any. */
    private void startNext() {
        long now = scheduler.nanoTime();
        while (backlogged != 0) {
            int paused = pausedMask(now);
            int q = egress.next(backlogged, paused, headSize);
            if (q < 0) {
                armWake(now, paused);
                return;
            }
            Frame f = take(q);
            if (owner.departing(this, f)) {
                transmit(f, now);
                return;
            }
        }
    }

    private Frame take(int p) {
        PacketQueue<Frame> q = queues[p];
        Frame f = q.poll();
        if (q.isEmpty()) {
            backlogged &= ~(1 << p);
            headSize[p] = 0;
        } else {
            headSize[p] = q.peekSize();
        }
        return f;
    }

    /**
     * The priorities that may not send now: paused by the link partner, unless the watchdog
     * has declared a storm on one and ignores its PAUSE for a while (dropping what it holds).
     */
    private int pausedMask(long now) {
        int paused = pause.pausedMask(now);
        if (watchdog == null || paused == 0) {
            return paused;
        }
        for (int p = 0; p < PRIORITIES; p++) {
            if ((paused >>> p & 1) != 0 && watchdog.update(p, pause.pausedSince(p, now), now)) {
                paused &= ~(1 << p);
                dropQueue(p);
            }
        }
        return paused;
    }

    /** The watchdog's mitigation: everything queued at {@code p} is dropped and counted. */
    private void dropQueue(int p) {
        while ((backlogged >>> p & 1) != 0) {
            Frame f = take(p);
            watchdog.countDrop(p);
            watchdogDrops[p]++;
            owner.dropQueued(this, f);
        }
    }

    /** Wakes the port when the earliest pause it waits on expires (or a watchdog deadline comes). */
    private void armWake(long now, int paused) {
        long at = pause.nextExpiry(now);
        if (watchdog != null) {
            for (int p = 0; p < PRIORITIES; p++) {
                if (((paused & backlogged) >>> p & 1) != 0) {
                    at = Math.min(at, watchdog.nextDeadline(p, pause.pausedSince(p, now)));
                }
            }
        }
        if (at == Long.MAX_VALUE) {
            return;
        }
        if (wake.isQueued() && wakeAt <= at) {
            return; // an earlier wake is already set; it will look again then
        }
        if (!wake.isQueued()) {
            wakeAt = at;
            scheduler.activate(wake, at);
        }
    }

    private void transmit(Frame f, long now) {
        busy = true;
        int onWire = f.frameBytes + Frame.LINK_OVERHEAD;
        long serialization = serializationNanos(onWire);
        txFrames++;
        txBytes += f.frameBytes;
        txFramesByPriority[f.priority]++;
        scheduler.activate(txDone, now + serialization);
        fabric.transmitted(this, f, now);
        if (!link.carries()) {
            fabric.free(f);
            return;
        }
        f.at = peer;
        f.inPort = peerPort;
        f.via = link;
        scheduler.activate(f, now + serialization + link.delayNanos);
    }

    private int serializedBytes = -1;
    private long serializedNanos;

    /** The time {@code bytes} take at the link's rate, rounded up; kept per size (a division otherwise). */
    private long serializationNanos(int bytes) {
        if (bytes != serializedBytes) {
            long bits = bytes * 8L * 1_000_000_000L;
            serializedNanos = (bits + link.bitsPerSecond - 1) / link.bitsPerSecond;
            serializedBytes = bytes;
        }
        return serializedNanos;
    }

    /** Releases every queued frame (the network is closing). */
    void clear() {
        for (int p = 0; p < PRIORITIES; p++) {
            while ((backlogged >>> p & 1) != 0) {
                fabric.free(take(p));
            }
        }
    }

    @Override
    public String toString() {
        return "port " + index + " of node " + owner.id();
    }
}
