package io.rnic.core.memory;

/**
 * What an R_Key resolves to for one remote access: the memory region whose bytes are accessed,
 * and the access's address in that region's address space (a zero-based window's offset
 * translated). Reused by its owner; not thread-safe.
 */
public final class RemoteKey {
    /** The region accessed, once {@link KeyTable#resolveRemote} succeeded. */
    public MemoryRegion mr;
    /** The first address accessed, in {@link #mr}'s address space. */
    public long va;
    /** The memory window the key named, or {@code null} for a region's key. */
    public MemoryWindow mw;
    /** {@link #mw}'s {@link MemoryWindow#generation()} when it was checked. */
    public int mwGeneration;

    /**
     * The key was a region's: the access is to {@code region} at {@code address}. The same
     * region comes packet after packet, and a reference store into this long-lived object costs
     * G1's post-write barrier (a fence) even when it stores the value already there: an
     * unchanged region, and the absent window, are not stored again.
     */
    public void region(MemoryRegion region, long address) {
        if (mr != region) {
            mr = region;
        }
        if (mw != null) {
            mw = null;
        }
        va = address;
    }

    /**
     * Whether the grant checked still stands for a later packet of the same access: the region
     * is still registered and, for a window, the window has not been bound again, invalidated or
     * deallocated since (protocol thread, where those changes run between packets).
     */
    public static boolean stillGranted(MemoryRegion mr, MemoryWindow mw, int mwGeneration) {
        return mr.isValid() && (mw == null || mw.generation() == mwGeneration);
    }
}
