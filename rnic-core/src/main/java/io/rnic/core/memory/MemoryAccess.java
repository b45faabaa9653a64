package io.rnic.core.memory;

/**
 * The single check between a key and memory, used for remote requests (rkey) and local SGEs
 * (lkey) alike (reference §8.3).
 */
public final class MemoryAccess {
    private MemoryAccess() {
    }

    /**
     * Checks an access of {@code length} bytes at {@code va} through a region, in rxe's order:
     * key, PD, access rights, bounds, alignment. Allocation-free.
     *
     * <p>A zero {@code length} is always in bounds, but key, PD, rights and alignment are still
     * checked: rxe skips the whole rkey check for zero-length RDMA READ and WRITE, and that is the
     * caller's decision, not this method's.
     *
     * @param mrOrNull the result of {@link KeyTable#lookup}, {@code null} if the key was not found
     * @param pd the protection domain of the QP making the access
     * @param va the first virtual address accessed
     * @param length the number of bytes, unsigned
     * @param requiredAccess the {@link AccessFlags} the access needs, e.g.
     *     {@link AccessFlags#REMOTE_WRITE}; 0 for a local read, which is always allowed
     * @param alignment the required alignment of {@code va} in bytes (8 for atomics); 0 or 1 for
     *     none
     * @return {@link AccessResult#OK} or the first failure
     */
    public static AccessResult check(MemoryRegion mrOrNull, ProtectionDomain pd, long va, long length,
            int requiredAccess, int alignment) {
        if (mrOrNull == null || !mrOrNull.isValid()) {
            return AccessResult.INVALID_KEY;
        }
        if (mrOrNull.pd() != pd) {
            return AccessResult.PD_MISMATCH;
        }
        if ((mrOrNull.access() & requiredAccess) != requiredAccess) {
            return AccessResult.ACCESS_DENIED;
        }
        if (!mrOrNull.contains(va, length)) {
            return AccessResult.OUT_OF_BOUNDS;
        }
        if (alignment > 1 && Long.remainderUnsigned(va, alignment) != 0) {
            return AccessResult.MISALIGNED;
        }
        return AccessResult.OK;
    }
}
