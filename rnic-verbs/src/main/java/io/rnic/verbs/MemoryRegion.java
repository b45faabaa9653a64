package io.rnic.verbs;

/**
 * A registered memory region ({@code ibv_mr}). Work requests name its bytes by virtual address
 * ({@link #address()} + offset) and key ({@link #lkey()} locally, {@link #rkey()} remotely).
 */
public final class MemoryRegion implements AutoCloseable {
    private final ProtectionDomain pd;
    final io.rnic.core.memory.MemoryRegion core;
    private volatile boolean closed;

    MemoryRegion(ProtectionDomain pd, io.rnic.core.memory.MemoryRegion core) {
        this.pd = pd;
        this.core = core;
    }

    /** Virtual address of the region's first byte. */
    public long address() {
        return core.va();
    }

    public int length() {
        return core.length();
    }

    public int lkey() {
        return core.lkey();
    }

    public int rkey() {
        return core.rkey();
    }

    public int access() {
        return core.access();
    }

    public ProtectionDomain pd() {
        return pd;
    }

    /** Deregisters the region; refused while an operation is using it. */
    @Override
    public void close() {
        if (!closed) {
            pd.device().hca().keys().deregister(core);
            closed = true;
        }
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
