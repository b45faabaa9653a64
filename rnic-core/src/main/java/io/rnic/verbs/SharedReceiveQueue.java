package io.rnic.verbs;

import io.rnic.core.engine.SrqContext;

/**
 * A shared receive queue ({@code ibv_srq}): receive WQEs that every QP created with it
 * ({@link QpInitAttributes#withSrq}) takes from as messages arrive. Completions go to the
 * receiving QP's receive CQ and name that QP. Post from any thread.
 *
 * <p>Events (through {@link RdmaDevice#addAsyncEventListener}): {@code SRQ_LIMIT_REACHED} once
 * after {@link #modify} armed a limit and the posted WQEs dropped below it, with this queue's
 * number as the resource; {@code QP_LAST_WQE_REACHED} for a QP on it that moved to ERR.
 */
public final class SharedReceiveQueue implements AutoCloseable {
    private final ProtectionDomain pd;
    final SrqContext core;
    private boolean closed;

    SharedReceiveQueue(ProtectionDomain pd, SrqContext core) {
        this.pd = pd;
        this.core = core;
        pd.device().track(this);
    }

    /**
     * The SRQ number ({@code ibv_get_srq_num}), which asynchronous events name.
     *
     * @return the SRQ number
     */
    public int srqn() {
        return core.srqn();
    }

    /**
     * The protection domain the queue was created in; its receive WQEs name regions of it.
     *
     * @return the protection domain
     */
    public ProtectionDomain pd() {
        return pd;
    }

    /**
     * Posts a receive work request ({@code ibv_post_srq_recv}). The request is copied:
     * {@code wr} may be reused at once.
     *
     * @param wr the work request
     * @throws IllegalStateException if the queue is full or destroyed, or its device is closed
     * @throws IllegalArgumentException for a null request or too many SGEs
     */
    public void postRecv(RecvWorkRequest wr) {
        java.util.Objects.requireNonNull(wr, "wr");
        pd.device().checkOpen();
        core.post(wr);
    }

    /**
     * Reads the attributes in force ({@code ibv_query_srq}).
     *
     * @return the queue's size, SGEs per WQE and limit; the limit reads 0 once its event fired
     * @throws IllegalStateException if its device is closed
     */
    public SrqAttributes query() {
        pd.device().checkOpen();
        return new SrqAttributes(core.maxWr(), core.maxSge(), core.limit());
    }

    /**
     * Resizes the queue ({@code IBV_SRQ_MAX_WR}); it keeps every posted WQE.
     *
     * @param maxWr the new number of receive WQEs the queue holds
     * @throws IllegalArgumentException if {@code maxWr} is out of range, below the WQEs posted or
     *     held by messages, or below the armed limit
     * @throws IllegalStateException if its device is closed
     */
    public void resize(int maxWr) {
        checkMaxWr(maxWr);
        core.modify(maxWr, -1);
    }

    /**
     * Arms the limit ({@code IBV_SRQ_LIMIT}): {@code SRQ_LIMIT_REACHED} fires once when the posted
     * WQEs drop below it; 0 disarms.
     *
     * @param limit the number of posted WQEs to fire below, or 0
     * @throws IllegalArgumentException if the limit is negative or exceeds max_wr
     * @throws IllegalStateException if its device is closed
     */
    public void armLimit(int limit) {
        pd.device().checkOpen();
        if (limit < 0) {
            throw new IllegalArgumentException("srq_limit " + limit + " is negative");
        }
        core.modify(-1, limit);
    }

    /**
     * Resizes the queue and arms its limit in one step ({@code ibv_modify_srq} with
     * {@code IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT}).
     *
     * @param maxWr the new number of receive WQEs the queue holds
     * @param limit the number of posted WQEs to fire {@code SRQ_LIMIT_REACHED} below, or 0
     * @throws IllegalArgumentException as {@link #resize} and {@link #armLimit} do
     * @throws IllegalStateException if its device is closed
     */
    public void modify(int maxWr, int limit) {
        checkMaxWr(maxWr);
        if (limit < 0) {
            throw new IllegalArgumentException("srq_limit " + limit + " is negative");
        }
        core.modify(maxWr, limit);
    }

    private void checkMaxWr(int maxWr) {
        pd.device().checkOpen();
        int max = pd.device().queryDevice().maxSrqWr();
        if (maxWr < 1 || maxWr > max) {
            throw new IllegalArgumentException("SRQ max_wr " + maxWr + " is not in 1.." + max + " (the device's max_srq_wr)");
        }
    }

    /**
     * Destroys the queue ({@code ibv_destroy_srq}).
     *
     * Closing it again does nothing.
     *
     * @throws IllegalStateException while a QP created with it exists (as the kernel's EBUSY)
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        core.destroy();
        closed = true;
        pd.device().hca().release(io.rnic.core.hca.DeviceResource.SRQ);
        pd.device().untrack(this);
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
