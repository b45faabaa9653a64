package io.rnic.verbs;

import io.rnic.core.transport.WorkCompletion;

/**
 * A completion queue ({@code ibv_cq}). Poll from any thread; polling copies into the caller's
 * {@link WorkCompletion} objects and does not allocate. If it overflows, the device raises an
 * IBV_EVENT_CQ_ERR asynchronous event and the QPs that lost completions move to ERR.
 */
public final class CompletionQueue implements AutoCloseable {
    private final RdmaDevice device;
    final io.rnic.core.transport.CompletionQueue core;
    private final CompletionChannel channel;
    /** A blocking duty cycle wakes at least this often to look at the clock. */
    private static final long MAX_DRIVE_WAIT_NANOS = 1_000_000;
    private final boolean callerDriven;
    private final boolean virtualTime;
    private volatile boolean closed;

    CompletionQueue(RdmaDevice device, io.rnic.core.transport.CompletionQueue core, CompletionChannel channel) {
        this.device = device;
        this.core = core;
        this.channel = channel;
        this.callerDriven = device.isCallerDriven();
        this.virtualTime = device.wire().virtualTime();
        if (channel != null) {
            channel.register(this);
        }
    }

    /**
     * Copies up to {@code out.length} completions into {@code out}; returns how many. On a
     * device driven by its application's thread, an empty poll first runs one duty cycle.
     */
    public int poll(WorkCompletion[] out) {
        checkOpen();
        int n = core.poll(out, out.length);
        if (n == 0 && callerDriven && device.progress(-1) > 0) {
            n = core.poll(out, out.length);
        }
        return n;
    }

    /** Polls one completion; returns false if none is waiting. Drives the device as {@link #poll(WorkCompletion[])} does. */
    public boolean poll(WorkCompletion out) {
        checkOpen();
        return core.poll(out) || (callerDriven && device.progress(-1) > 0 && core.poll(out));
    }

    /**
     * Waits up to {@code timeoutNanos} until a completion is waiting; returns whether one is. A
     * device driven by its application's thread runs its duty cycles meanwhile, idling between
     * them as its agent's idle strategy says. On the simulated network the wait runs the
     * network's virtual time instead (up to {@code timeoutNanos} of it, or until nothing is left
     * to happen), so the same call serves a test on either wire.
     */
    public boolean await(long timeoutNanos) throws InterruptedException {
        checkOpen();
        if (virtualTime) {
            return device.wire().runUntil(() -> core.size() > 0, timeoutNanos);
        }
        if (!callerDriven) {
            return core.await(timeoutNanos);
        }
        long deadline = System.nanoTime() + timeoutNanos;
        while (core.size() == 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            device.progress(Math.min(left, MAX_DRIVE_WAIT_NANOS));
        }
        return true;
    }

    /** Arms one notification to the completion channel: for the next completion, or the next solicited one. */
    public void requestNotify(boolean solicitedOnly) {
        checkOpen();
        if (channel == null) {
            throw new IllegalStateException("CQ " + core.id() + " has no completion channel to notify");
        }
        core.requestNotify(solicitedOnly);
    }

    /** Completions waiting to be polled. */
    public int size() {
        return core.size();
    }

    public int capacity() {
        return core.capacity();
    }

    public RdmaDevice device() {
        return device;
    }

    /** Destroys the CQ; refused while QPs use it. Later use of it throws {@link IllegalStateException}. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        device.forget(this);
        if (core.isInUse()) {
            throw new IllegalStateException("completion queue " + core.id() + " is in use by a QP");
        }
        closed = true;
        core.destroy();
    }

    /** True once {@link #close} has destroyed it. */
    public boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("completion queue " + core.id() + " is closed");
        }
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
