package io.rnic.verbs;

import java.util.ArrayDeque;

/**
 * A completion channel ({@code ibv_comp_channel}): completion queues armed with
 * {@link CompletionQueue#requestNotify} report here, and a thread waits with {@link #getEvent}
 * (which runs the duty cycles of a device its caller drives, rather than sleep while nothing
 * could happen).
 */
public final class CompletionChannel {
    private final ArrayDeque<io.rnic.core.transport.CompletionQueue> events = new ArrayDeque<>();
    private final java.util.Map<io.rnic.core.transport.CompletionQueue, CompletionQueue> owners =
            new java.util.concurrent.ConcurrentHashMap<>();
    private long delivered;

    void register(CompletionQueue cq) {
        owners.put(cq.core, cq);
    }

    synchronized void deliver(io.rnic.core.transport.CompletionQueue cq) {
        events.add(cq);
        delivered++;
        notifyAll();
    }

    /**
     * Waits up to {@code timeoutNanos} for a notification and returns the CQ it is for, or
     * {@code null} on timeout ({@code ibv_get_cq_event}).
     */
    public CompletionQueue getEvent(long timeoutNanos) throws InterruptedException {
        RdmaDevice simulated = virtualTime();
        if (simulated != null) {
            // The thread that waits is the one that runs the simulated network: run it.
            simulated.wire().runUntil(this::hasEvent, timeoutNanos);
            return pollEvent();
        }
        RdmaDevice driver = callerDriven();
        if (driver == null) {
            return waitForEvent(timeoutNanos);
        }
        // The device moves only when this thread drives it: run its duty cycles while waiting.
        long deadline = System.nanoTime() + timeoutNanos;
        for (;;) {
            CompletionQueue cq = pollEvent();
            if (cq != null) {
                return cq;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            driver.progress(Math.min(left, 1_000_000));
        }
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

    /** The next notification if one is waiting, without blocking. */
    public synchronized CompletionQueue pollEvent() {
        io.rnic.core.transport.CompletionQueue cq = events.poll();
        return cq == null ? null : owners.get(cq);
    }

    /** Notifications delivered so far. */
    public synchronized long eventsDelivered() {
        return delivered;
    }
}
