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

    CompletionQueue(RdmaDevice device, io.rnic.core.transport.CompletionQueue core, CompletionChannel channel) {
        this.device = device;
        this.core = core;
        this.channel = channel;
        if (channel != null) {
            channel.register(this);
        }
    }

    /** Copies up to {@code out.length} completions into {@code out}; returns how many. */
    public int poll(WorkCompletion[] out) {
        return core.poll(out, out.length);
    }

    /** Polls one completion; returns false if none is waiting. */
    public boolean poll(WorkCompletion out) {
        return core.poll(out);
    }

    /** Blocks up to {@code timeoutNanos} until a completion is waiting (real wires only). */
    public boolean await(long timeoutNanos) throws InterruptedException {
        return core.await(timeoutNanos);
    }

    /** Arms one notification to the completion channel: for the next completion, or the next solicited one. */
    public void requestNotify(boolean solicitedOnly) {
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

    /** Destroys the CQ; refused while QPs use it. */
    @Override
    public void close() {
        if (core.isInUse()) {
            throw new IllegalStateException("completion queue " + core.id() + " is in use by a QP");
        }
        core.destroy();
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
