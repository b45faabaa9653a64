package io.rnic.verbs;

/**
 * A registered memory region ({@code ibv_mr}). Work requests name its bytes by virtual address
 * ({@link #address()} + offset) and key ({@link #lkey()} locally, {@link #rkey()} remotely).
 * {@link #reregister} changes its memory, PD or access rights and keeps its keys.
 */
public final class MemoryRegion implements AutoCloseable {
    /** {@code IBV_REREG_MR_CHANGE_TRANSLATION}: {@link #reregister} changes the memory (buffer, offset, length). */
    public static final int REREG_CHANGE_TRANSLATION = 1;
    /** {@code IBV_REREG_MR_CHANGE_PD}: {@link #reregister} moves the region to another protection domain. */
    public static final int REREG_CHANGE_PD = 1 << 1;
    /** {@code IBV_REREG_MR_CHANGE_ACCESS}: {@link #reregister} changes the access rights. */
    public static final int REREG_CHANGE_ACCESS = 1 << 2;
    private static final int REREG_FLAGS = REREG_CHANGE_TRANSLATION | REREG_CHANGE_PD | REREG_CHANGE_ACCESS;

    /** Changed only by {@link #reregister}, under the object's lock. */
    private volatile ProtectionDomain pd;
    /** The registration in force under the region's keys; replaced by {@link #reregister}. */
    volatile io.rnic.core.memory.MemoryRegion core;
    private volatile boolean closed;

    MemoryRegion(ProtectionDomain pd, io.rnic.core.memory.MemoryRegion core) {
        this.pd = pd;
        this.core = core;
        pd.device().track(this);
    }

    /**
     * The virtual address of the region's first byte: work requests and a peer's RDMA address
     * the region's bytes as {@code address() + offset}. The emulator assigns it; it is not the
     * buffer's native address. A re-registration that changes the translation changes it.
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
     * The access rights in force: those the region was registered with, or last
     * {@link #reregister re-registered} with.
     *
     * @return {@link io.rnic.verbs.AccessFlags} bits
     */
    public int access() {
        return core.access();
    }

    /**
     * The protection domain the region belongs to: only QPs of that PD may use it. A
     * re-registration with {@link #REREG_CHANGE_PD} changes it.
     *
     * @return the protection domain
     */
    public ProtectionDomain pd() {
        return pd;
    }

    /**
     * Re-registers the region ({@code ibv_rereg_mr}): changes what {@code flags} name and keeps
     * the rest, and keeps the {@link #lkey()} and {@link #rkey()} (as rxe keeps them for a PD or
     * access change; a translation change, which rxe refuses, keeps them too, as mlx5 does). It
     * runs on the device's protocol thread between two packets, as deregistration does: every
     * access after it returns, a peer's packet already on the wire included, is judged by the new
     * PD, rights and bounds (a WRITE the new rights forbid is NAKed Remote Access Error, which the
     * peer completes with REM_ACCESS_ERR). A multi-packet message that had reached the region
     * before the call fails at its next packet, as it would after {@link #close()}. If the call
     * throws, the region is unchanged.
     *
     * @param flags  {@link #REREG_CHANGE_TRANSLATION}, {@link #REREG_CHANGE_PD},
     *               {@link #REREG_CHANGE_ACCESS}, or several of them
     * @param pd     with {@link #REREG_CHANGE_PD}, the PD of the same device the region moves to;
     *               otherwise not used and may be {@code null}
     * @param buffer with {@link #REREG_CHANGE_TRANSLATION}, the memory holding the region from now
     *               on (position and limit are not used); otherwise not used and may be {@code null}
     * @param offset with {@link #REREG_CHANGE_TRANSLATION}, the index of the region's first byte
     *               in {@code buffer}
     * @param length with {@link #REREG_CHANGE_TRANSLATION}, the region's new length; the region
     *               also gets a new {@link #address()} (0 if zero-based), as {@code ibv_rereg_mr}'s
     *               new {@code addr} is the region's new address
     * @param access with {@link #REREG_CHANGE_ACCESS}, the new {@link AccessFlags} bits;
     *               otherwise not used
     * @throws IllegalArgumentException if {@code flags} is 0 or has other bits, {@code pd} is
     *     another device's, the range is outside {@code buffer} or exceeds {@code max_mr_size}, or
     *     the access flags are invalid (for the memory kept or given)
     * @throws NullPointerException if {@code pd} is null with {@link #REREG_CHANGE_PD}, or
     *     {@code buffer} is null with {@link #REREG_CHANGE_TRANSLATION}
     * @throws IllegalStateException if memory windows are bound to the region (unbind or
     *     invalidate them first), the region, the new PD or the device is closed, or the device
     *     is driven by its application's thread and this is another thread
     */
    public synchronized void reregister(int flags, ProtectionDomain pd, java.nio.ByteBuffer buffer, int offset,
                                        int length, int access) {
        if (flags == 0 || (flags & ~REREG_FLAGS) != 0) {
            throw new IllegalArgumentException("re-registration flags 0x" + Integer.toHexString(flags)
                    + " must be a non-empty combination of REREG_CHANGE_TRANSLATION, REREG_CHANGE_PD and "
                    + "REREG_CHANGE_ACCESS (ibv_rereg_mr: EINVAL)");
        }
        boolean newPd = (flags & REREG_CHANGE_PD) != 0;
        boolean newMemory = (flags & REREG_CHANGE_TRANSLATION) != 0;
        if (newPd) {
            java.util.Objects.requireNonNull(pd, "pd");
        }
        if (newMemory) {
            java.util.Objects.requireNonNull(buffer, "buffer");
        }
        ProtectionDomain current = this.pd;
        RdmaDevice device = current.device();
        device.checkOpen();
        if (closed) {
            throw new IllegalStateException(core + " is deregistered");
        }
        ProtectionDomain target = newPd ? pd : current;
        if (target.device() != device) {
            throw new IllegalArgumentException("PD#" + target.core.id() + " belongs to another device than the region");
        }
        target.checkOpen();
        if (newMemory && length > device.queryDevice().maxMrSize()) {
            throw new IllegalArgumentException("region of " + length + " bytes exceeds max_mr_size");
        }
        io.rnic.core.memory.MemoryRegion old = core;
        int rights = (flags & REREG_CHANGE_ACCESS) != 0 ? access : old.access();
        // On the protocol thread, between two packets, as deregistration: no packet sees half of it.
        core = device.onProtocolThread(() -> io.rnic.core.memory.Reregistration.apply(device.hca().keys(), old,
                target.core, newMemory ? buffer : null, offset, length, rights));
        this.pd = target;
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
    public synchronized void close() {
        if (!closed) {
            // On the protocol thread, between two packets: its copies then need only check that a
            // region is valid, not pin it with an atomic instruction per packet.
            pd.device().onProtocolThreadWhileOpen(() -> pd.device().hca().keys().deregister(core));
            closed = true;
            pd.device().untrack(this);
        }
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
