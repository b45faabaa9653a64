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

    /**
     * The virtual address of the region's first byte: work requests and a peer's RDMA address
     * the region's bytes as {@code address() + offset}. The emulator assigns it; it is not the
     * buffer's native address.
     *
     * @return the virtual address
     */
    public long address() {
        return core.va();
    }

    /**
     * The region's length in bytes.
     *
     * @return the length
     */
    public int length() {
        return core.length();
    }

    /**
     * The local key, which this device's work requests put in their scatter/gather entries.
     *
     * @return the L_Key
     */
    public int lkey() {
        return core.lkey();
    }

    /**
     * The remote key, which a peer puts in its RDMA and atomic requests to reach this region;
     * send it out of band with the address (see {@link ConnectionInfo}).
     *
     * @return the R_Key
     */
    public int rkey() {
        return core.rkey();
    }

    /**
     * The access rights the region was registered with.
     *
     * @return {@link io.rnic.verbs.AccessFlags} bits
     */
    public int access() {
        return core.access();
    }

    /**
     * The protection domain the region belongs to: only QPs of that PD may use it.
     *
     * @return the protection domain
     */
    public ProtectionDomain pd() {
        return pd;
    }

    /**
     * Deregisters the region ({@code ibv_dereg_mr}). Its keys stop resolving: local work that
     * still names them completes with LOC_PROT_ERR, and a peer's request gets a Remote Access
     * Error NAK. Deregistration runs on the device's protocol thread between two packets and
     * waits for it there; no message, however long, keeps the region registered. Closing it again
     * does nothing.
     *
     * @throws IllegalStateException if the device is driven by its application's thread (invoker
     *     threading) and this is another thread, as for every change a QP's protocol must see
     */
    @Override
    public void close() {
        if (!closed) {
            // On the protocol thread, between two packets: its copies then need only check that a
            // region is valid, not pin it with an atomic instruction per packet.
            pd.device().onProtocolThreadWhileOpen(() -> pd.device().hca().keys().deregister(core));
            closed = true;
        }
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
