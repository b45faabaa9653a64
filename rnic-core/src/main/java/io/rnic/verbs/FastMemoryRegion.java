package io.rnic.verbs;

import io.rnic.core.memory.FastRegion;
import java.nio.ByteBuffer;

/**
 * A memory region allocated without memory, for fast registration through the send queue (the
 * kernel's {@code ib_alloc_mr(IB_MR_TYPE_MEM_REG)}, {@code ib_map_mr_sg} and {@code IB_WR_REG_MR};
 * libibverbs offers no user-space equivalent). {@link #map} names the memory, a
 * {@link SendWorkRequest#regMr REG_MR} work request registers it under a new key byte, and
 * {@link SendWorkRequest#localInvalidate LOCAL_INV} or a peer's SEND with Invalidate revokes it,
 * after which it may be registered again. Its key is both lkey and rkey.
 */
public final class FastMemoryRegion implements AutoCloseable {
    private final ProtectionDomain pd;
    final FastRegion core;
    private volatile boolean closed;

    FastMemoryRegion(ProtectionDomain pd, FastRegion core) {
        this.pd = pd;
        this.core = core;
        pd.device().track(this);
    }

    /**
     * Names the memory the next REG_MR registers ({@code ib_map_mr_sg}): {@code buffer[offset,
     * offset + length)}, absolute indices.
     *
     * @param buffer the memory
     * @param offset index of the first byte
     * @param length bytes, at most the length the region was allocated for
     * @throws IllegalArgumentException if the range is outside the buffer or too long
     * @throws IllegalStateException if its device is closed
     */
    public void map(ByteBuffer buffer, int offset, int length) {
        java.util.Objects.requireNonNull(buffer, "buffer");
        pd.device().checkOpen();
        core.map(buffer, offset, length);
    }

    /**
     * The current key: the last registration's, or the allocation's before any.
     *
     * @return the lkey
     */
    public int lkey() {
        return core.key();
    }

    /**
     * The current key (equal to {@link #lkey()}).
     *
     * @return the rkey
     */
    public int rkey() {
        return core.key();
    }

    /**
     * Whether a registration is in force (not yet invalidated).
     *
     * @return true while registered
     */
    public boolean isRegistered() {
        return core.current() != null;
    }

    /**
     * The protection domain the region was allocated in.
     *
     * @return the PD
     */
    public ProtectionDomain pd() {
        return pd;
    }

    /**
     * Frees the region and any registration in force, on the device's protocol thread as
     * {@link MemoryRegion#close()} deregisters. Closing it again does nothing.
     */
    @Override
    public void close() {
        if (!closed) {
            pd.device().onProtocolThreadWhileOpen(() -> pd.device().hca().keys().deallocateFastRegion(core));
            closed = true;
            pd.device().untrack(this);
        }
    }

    @Override
    public String toString() {
        return String.format("fast MR key 0x%08x%s", core.key(), isRegistered() ? " registered" : " free");
    }
}
