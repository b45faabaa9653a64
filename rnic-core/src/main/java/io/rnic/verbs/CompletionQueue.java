package io.rnic.verbs;

/**
 * A completion queue ({@code ibv_cq}). Poll from any thread; polling copies into the caller's
 * {@link WorkCompletion} objects and does not allocate. If it overflows, the device raises an
 * IBV_EVENT_CQ_ERR asynchronous event and the QPs that lost completions move to ERR. Once its
 * device is closed it can still be polled, for the completions the close flushed, and waiting
 * on it returns at once.
 */
public final class CompletionQueue implements AutoCloseable {
    private final RdmaDevice device;
    final io.rnic.core.engine.CompletionQueue core;
    private final CompletionChannel channel;
    private final boolean callerDriven;
    private final boolean virtualTime;
    private volatile boolean closed;

    CompletionQueue(RdmaDevice device, io.rnic.core.engine.CompletionQueue core, CompletionChannel channel) {
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
     * Copies up to {@code out.length} completions into {@code out}, oldest first
     * ({@code ibv_poll_cq}). On a device driven by its application's thread, a poll that finds
     * nothing runs one duty cycle of the device and looks again, so a polling loop makes progress.
     *
     * @param out work completions to fill, from index 0; reused by the caller, never retained
     * @return how many entries of {@code out} were filled, 0 if no completion is waiting
     * @throws IllegalStateException if the CQ is closed
     */
    public int poll(WorkCompletion[] out) {
        java.util.Objects.requireNonNull(out, "out");
        checkOpen();
        int n = core.poll(out, out.length);
        if (n == 0 && callerDriven && device.progress(-1) > 0) {
            n = core.poll(out, out.length);
        }
        return n;
    }

    /**
     * Polls one completion into {@code out}. Drives the device as {@link #poll(WorkCompletion[])}
     * does.
     *
     * @param out the work completion to fill; reused by the caller, never retained
     * @return true if a completion was copied into {@code out}, false if none is waiting
     * @throws IllegalStateException if the CQ is closed
     */
    public boolean poll(WorkCompletion out) {
        java.util.Objects.requireNonNull(out, "out");
        checkOpen();
        return core.poll(out) || (callerDriven && device.progress(-1) > 0 && core.poll(out));
    }

    /**
     * Waits until a completion is waiting to be polled, without taking it. A device driven by
     * its application's thread runs its duty cycles meanwhile, idling between them as its agent's
     * idle strategy says. On the simulated network the wait runs the network's virtual time
     * instead (up to {@code timeoutNanos} of it, or until nothing is left to happen), so the same
     * call serves a test on either wire.
     *
     * @param timeoutNanos how long to wait at most, in nanoseconds (virtual ones on the simulated network)
     * @return true if a completion is waiting, false if the time ran out first
     * @throws InterruptedException if the thread is interrupted while waiting
     * @throws IllegalStateException if the CQ is closed
     */
    public boolean await(long timeoutNanos) throws InterruptedException {
        checkOpen();
        if (!virtualTime && !callerDriven) {
            return core.await(timeoutNanos);
        }
        return device.driveUntil(() -> core.size() > 0, timeoutNanos);
    }

    /**
     * Arms one notification to the CQ's completion channel ({@code ibv_req_notify_cq}). The
     * arming is used up by the notification it causes; arm again after each event.
     *
     * @param solicitedOnly true to be notified only of the next receive completion of a message
     *     that carried the solicited-event bit; false for the next completion of any kind
     * @throws IllegalStateException if the CQ or its device is closed, or the CQ was created
     *     without a completion channel
     */
    public void requestNotify(boolean solicitedOnly) {
        device.checkOpen(); // nothing will complete on a closed device: there is nothing to wait for
        checkOpen();
        if (channel == null) {
            throw new IllegalStateException("CQ " + core.id() + " has no completion channel to notify");
        }
        core.requestNotify(solicitedOnly);
    }

    /**
     * Counts the completions waiting to be polled, without driving the device.
     *
     * @return completions waiting to be polled
     */
    public int size() {
        return core.size();
    }

    /**
     * The number of completions the CQ holds ({@code cqe} at creation). A CQ that would exceed it
     * overflows: the device raises {@code CQ_ERR} and the QPs that lost completions move to ERR.
     *
     * @return the capacity in completions
     */
    public int capacity() {
        return core.capacity();
    }

    /**
     * The device the CQ was created on; only QPs of that device may use it.
     *
     * @return the owning device
     */
    public RdmaDevice device() {
        return device;
    }

    /**
     * Destroys the CQ ({@code ibv_destroy_cq}). Later use of it throws
     * {@link IllegalStateException}; closing it again does nothing.
     *
     * @throws IllegalStateException if a QP still uses it as send or receive CQ (close the QPs first)
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (core.isInUse()) {
            // Refused: the device keeps it, so closing the device still wakes its waiters.
            throw new IllegalStateException("completion queue " + core.id() + " is in use by a QP or an XRC SRQ");
        }
        device.forget(this);
        closed = true;
        core.destroy();
    }

    /**
     * Tells whether {@link #close} has destroyed the CQ.
     *
     * @return true once the CQ is destroyed
     */
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
