package io.rnic.core.memory;

import io.rnic.verbs.AccessFlags;
import java.nio.ByteBuffer;

/**
 * Re-registration of a memory region ({@code ibv_rereg_mr}): a new region with the same key
 * takes the old one's slot in the {@link KeyTable}, so the lkey and rkey stay, and the old one is
 * invalidated as deregistration invalidates it. Every later lookup finds the new region and is
 * judged by its PD, access and bounds; a message that resolved the old region before the change
 * fails its next access to it, as after deregistration. Runs on the protocol thread (or when
 * none runs), between two packets, with the table's lock held.
 */
public final class Reregistration {
    private Reregistration() {
    }

    /**
     * Re-registers {@code mr} in {@code keys}.
     *
     * @param pd     the PD the region moves to, or {@code mr}'s own
     * @param buffer the memory of the new translation, or {@code null} to keep {@code mr}'s
     *               memory (then {@code offset} and {@code length} are not used)
     * @param offset the new translation's first byte in {@code buffer}
     * @param length the new translation's length
     * @param access the new {@link AccessFlags}, or {@code mr}'s own
     * @return the region now registered under {@code mr}'s key
     * @throws IllegalArgumentException if the new attributes are invalid (nothing changes)
     * @throws IllegalStateException if memory windows are bound to {@code mr} (refused, as
     *     deregistration is), or {@code mr} is not registered in {@code keys}
     */
    public static MemoryRegion apply(KeyTable keys, MemoryRegion mr, ProtectionDomain pd, ByteBuffer buffer,
                                     int offset, int length, int access) {
        synchronized (keys) {
            if (mr.boundWindows() > 0) {
                // A window's grant is a range of the region's memory with rights under its own:
                // changing them under a bound window would change what the window grants.
                throw new IllegalStateException(mr + " has " + mr.boundWindows() + " memory window(s) bound: unbind "
                        + "or invalidate them before re-registering it");
            }
            boolean zeroBased = (access & AccessFlags.ZERO_BASED) != 0;
            MemoryRegion next;
            if (buffer == null) {
                // The same memory; only a change into or out of zero-based addressing moves it.
                boolean wasZeroBased = (mr.access() & AccessFlags.ZERO_BASED) != 0;
                long va = zeroBased ? 0 : wasZeroBased ? keys.allocateAddress(mr.length()) : mr.va();
                next = new MemoryRegion(pd, mr.data(), 0, mr.length(), va, access, mr.lkey(), mr.persistent());
            } else {
                if (length <= 0) {
                    throw new IllegalArgumentException("memory region length " + length + " must be positive");
                }
                long va = zeroBased ? 0 : keys.allocateAddress(length);
                next = new MemoryRegion(pd, buffer, offset, length, va, access, mr.lkey(), false);
            }
            keys.replace(mr, next);
            return next;
        }
    }
}
