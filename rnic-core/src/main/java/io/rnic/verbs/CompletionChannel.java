package io.rnic.verbs;

import java.util.ArrayDeque;

/**
 * A completion channel ({@code ibv_comp_channel}): completion queues armed with
 * {@link CompletionQueue#requestNotify} report here, and a thread waits with {@link #getEvent}
 * (which runs the duty cycles of a device its caller drives, rather than sleep while nothing
 * could happen).
 */
public final class CompletionChannel {
    private final ArrayDeque<io.rnic.core.engine.CompletionQueue> events = new ArrayDeque<>();
    private final java.util.Map<io.rnic.core.engine.CompletionQueue, CompletionQueue> owners =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.function.Consumer<CompletionQueue> handler;
    private long delivered;

    /**
     * Creates a channel that belongs to no device: CQs of several devices may report to one
     * channel. {@link RdmaDevice#createCompletionChannel()} is the verbs-style way to get one.
     */
    public CompletionChannel() {
        this.handler = null;
    }

    /**
     * Creates a channel that hands each notification to {@code handler} on the protocol thread
     * of the device whose CQ fired, instead of queueing it for {@link #getEvent}: for agents that
     * live on that thread and must not wait for an application to ask (the connection manager).
     * The handler must not block; it may poll and re-arm the CQ.
     *
     * @param handler what runs for each notification
     * @throws NullPointerException if {@code handler} is null
     */
    public CompletionChannel(java.util.function.Consumer<CompletionQueue> handler) {
        if (handler == null) {
            throw new IllegalArgumentException("a completion channel's handler must not be null");
        }
        this.handler = handler;
    }

    void register(CompletionQueue cq) {
        owners.put(cq.core, cq);
    }

    void deliver(io.rnic.core.engine.CompletionQueue cq) {
        if (handler != null) {
            synchronized (this) {
                delivered++;
            }
            handler.accept(owners.get(cq));
            return;
        }
        queue(cq);
    }

    private synchronized void queue(io.rnic.core.engine.CompletionQueue cq) {
        events.add(cq);
        delivered++;
        notifyAll();
    }

    /**
     * Waits for the next notification ({@code ibv_get_cq_event}). Each notification answers one
     * {@link CompletionQueue#requestNotify}; re-arm the CQ before polling it empty, or a
     * completion that arrives in between raises no event. If a CQ reporting here belongs to a
     * device driven by its application's thread, this thread runs that device's duty cycles
     * while it waits.
     *
     * @param timeoutNanos how long to wait at most, in nanoseconds
     * @return the completion queue the notification is for, or {@code null} if none came in time
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public CompletionQueue getEvent(long timeoutNanos) throws InterruptedException {
        RdmaDevice driven = virtualTime();
        if (driven == null) {
            driven = callerDriven();
        }
        if (driven == null) {
            return waitForEvent(timeoutNanos);
        }
        // This thread is what moves the device (the simulated network, or a caller-driven agent).
        driven.driveUntil(this::hasEvent, timeoutNanos);
        return pollEvent();
    }

    /** The device of a registered CQ on a virtual-time wire (the simulated network), or null. */
    private RdmaDevice virtualTime() {
        for (CompletionQueue cq : owners.values()) {
            if (cq.device().wire().virtualTime()) {
                return cq.device();
            }
        }
        return null;
    }

    private synchronized boolean hasEvent() {
        return !events.isEmpty();
    }

    /** The device of a registered CQ that its application's thread drives, or null. */
    private RdmaDevice callerDriven() {
        for (CompletionQueue cq : owners.values()) {
            if (cq.device().isCallerDriven()) {
                return cq.device();
            }
        }
        return null;
    }

    private synchronized CompletionQueue waitForEvent(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (events.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            wait(left / 1_000_000, (int) (left % 1_000_000));
        }
        return owners.get(events.poll());
    }

    /**
     * Takes the next notification if one is waiting, without blocking and without driving any
     * device.
     *
     * @return the completion queue the notification is for, or {@code null} if none is waiting
     */
    public synchronized CompletionQueue pollEvent() {
        io.rnic.core.engine.CompletionQueue cq = events.poll();
        return cq == null ? null : owners.get(cq);
    }

    /**
     * Counts the notifications delivered to this channel, taken or not, for tests and tools
     * that check a CQ was armed as often as it fired.
     *
     * @return notifications delivered since the channel was created
     */
    public synchronized long eventsDelivered() {
        return delivered;
    }
}
