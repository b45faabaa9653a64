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
}
