package io.rnic.core.memory;

import io.rnic.verbs.AccessFlags;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.random.RandomGenerator;

/**
 * The memory regions of one device, indexed by key, with keys assigned as rxe assigns them
 * (reference §8.1): {@code key = index << 8 | keyByte}, with index {@code 1 ..}
 * {@link #MAX_MR_INDEX} (index 0 never exists, so key 0 is never valid) and a random key byte that
 * differs from the previous key byte used at the same index, so a stale key of a deregistered
 * region never finds the region that reuses its index. Freed indices are reused lowest first.
 *
 * <p>Thread-safety: {@link #register}, {@link #deregister} and {@link #allocateAddress} may run on
 * any thread (they synchronize on the table); {@link #lookup} takes no lock and allocates nothing,
 * so the protocol thread may call it per packet. A lookup racing with a deregistration may still
 * return the region; it is then no longer {@link MemoryRegion#isValid() valid} and
 * {@link MemoryRegion#pin()} fails.
 */
public final class KeyTable {
    /** The largest MR index (rxe: MRs use indices 1 .. 2^19, memory windows the ones above). */
    public static final int MAX_MR_INDEX = 1 << 19;
    /** The first synthetic virtual address handed out by {@link #allocateAddress}. */
    public static final long FIRST_SYNTHETIC_VA = 0x7f00_0000_0000L;
    /** The alignment of synthetic virtual addresses. */
    public static final int PAGE_SIZE = 4096;

    private static final int INITIAL_SLOTS = 64;

    private final RandomGenerator random;
    private final int maxIndex;
    /** Slot i holds the region with index i; replaced by a larger copy when full. */
    private volatile AtomicReferenceArray<MemoryRegion> slots = new AtomicReferenceArray<>(INITIAL_SLOTS);
    // The fields below are only touched with the table's lock held.
    private final BitSet used = new BitSet();
    /** Regions whose key was invalidated remotely, by index, until they are deregistered. */
    private final java.util.Map<Integer, MemoryRegion> invalidated = new java.util.HashMap<>();
    /** The key byte last used at each index, or -1 if the index was never used. */
    private int[] lastKeyByte = grow(new int[0], INITIAL_SLOTS);
    private long nextAddress = FIRST_SYNTHETIC_VA;
    private int count;

    /**
     * Creates a table with the rxe index limit.
     *
     * @param random the source of key bytes; production code passes a
     *     {@code SecureRandom}-seeded {@code SplittableRandom}, tests a seeded generator
     */
    public KeyTable(RandomGenerator random) {
        this(random, MAX_MR_INDEX);
    }

    /**
     * Creates a table holding at most {@code maxIndex} regions.
     *
     * @param random the source of key bytes
     * @param maxIndex the largest index, {@code 1 ..} {@link #MAX_MR_INDEX}
     */
    public KeyTable(RandomGenerator random, int maxIndex) {
        if (random == null) {
            throw new IllegalArgumentException("key table needs a random generator, got null");
        }
        if (maxIndex < 1 || maxIndex > MAX_MR_INDEX) {
            throw new IllegalArgumentException("key table maxIndex " + maxIndex + " must be in 1.." + MAX_MR_INDEX);
        }
        this.random = random;
        this.maxIndex = maxIndex;
        used.set(0); // index 0 is never handed out, so key 0 stays invalid
    }

    /**
     * Registers {@code buffer[offset, offset + length)} at a synthetic virtual address from
     * {@link #allocateAddress} (or at address 0 for {@link AccessFlags#ZERO_BASED} access), for
     * applications that do not choose a VA.
     *
     * @see #register(ProtectionDomain, ByteBuffer, int, int, long, int)
     */
    public MemoryRegion register(ProtectionDomain pd, ByteBuffer buffer, int offset, int length, int access) {
        return register(pd, buffer, offset, length, access, false);
    }

    /** As {@link #register(ProtectionDomain, ByteBuffer, int, int, int)}, for a mapped file if {@code persistent}. */
    public MemoryRegion register(ProtectionDomain pd, ByteBuffer buffer, int offset, int length, int access,
                                 boolean persistent) {
        if (length <= 0) {
            throw new IllegalArgumentException("memory region length " + length + " must be positive");
        }
        synchronized (this) {
            long va = (access & AccessFlags.ZERO_BASED) != 0 ? 0 : allocateAddress(length);
            return register(pd, buffer, offset, length, va, access, persistent);
        }
    }

    /**
     * Registers {@code buffer[offset, offset + length)} (absolute indices; the buffer's position,
     * limit and byte order are not used or changed) at virtual address {@code va}, and retains
     * {@code pd}.
     *
     * @param access {@link AccessFlags}, checked with {@link AccessFlags#validate}
     * @throws IllegalArgumentException for a null PD or buffer, a range outside the buffer, a
     *     non-positive length, invalid access flags, write access to a read-only buffer, a region
     *     that wraps the 64-bit address space, or ZERO_BASED with a non-zero VA
     * @throws IllegalStateException if all indices are in use
     */
    public synchronized MemoryRegion register(ProtectionDomain pd, ByteBuffer buffer, int offset, int length,
            long va, int access) {
        return register(pd, buffer, offset, length, va, access, false);
    }

    /**
     * As {@link #register(ProtectionDomain, ByteBuffer, int, int, long, int)}; {@code persistent}
     * marks a buffer that maps a file, the only memory that may grant
     * {@link AccessFlags#FLUSH_PERSISTENT}.
     */
    public synchronized MemoryRegion register(ProtectionDomain pd, ByteBuffer buffer, int offset, int length,
            long va, int access, boolean persistent) {
        int index = used.nextClearBit(1);
        if (index > maxIndex) {
            throw new IllegalStateException("key table is full: all " + maxIndex + " memory region indices are in use");
        }
        ensureCapacity(index);
        int previous = lastKeyByte[index];
        // Drawing from the 255 other values keeps the distribution uniform without a retry loop.
        int keyByte = previous < 0 ? random.nextInt(256) : (previous + 1 + random.nextInt(255)) & 0xFF;
        MemoryRegion mr = new MemoryRegion(pd, buffer, offset, length, va, access, index << 8 | keyByte, persistent);
        lastKeyByte[index] = keyByte;
        used.set(index);
        count++;
        pd.retain();
        slots.set(index, mr); // volatile store: lookups that see it see a fully built region
        return mr;
    }

    /**
     * The valid region whose key is {@code key} (as lkey or rkey), or {@code null} if the index
     * does not exist, is free, or holds a region with a different key byte. Lock- and
     * allocation-free.
     */
    public MemoryRegion lookup(int key) {
        int index = key >>> 8;
        AtomicReferenceArray<MemoryRegion> s = slots;
        if (index == 0 || index >= s.length()) {
            return null;
        }
        MemoryRegion mr = s.get(index);
        return mr != null && mr.lkey() == key ? mr : null;
    }

    /**
     * Deregisters {@code mr}: invalidates it (waiting for a copy in progress to finish, never for
     * a request that merely named the region), frees its index for reuse and releases its PD.
     *
     * @throws IllegalStateException if {@code mr} is not registered in this table, or already deregistered
     */
    public synchronized void deregister(MemoryRegion mr) {
        int index = mr.index();
        AtomicReferenceArray<MemoryRegion> s = slots;
        boolean remotelyInvalidated = invalidated.get(index) == mr;
        if (!remotelyInvalidated && (index >= s.length() || s.get(index) != mr)) {
            throw new IllegalStateException(mr + " is not registered in this key table");
        }
        if (!mr.invalidate()) {
            throw new IllegalStateException(mr + " is already deregistered");
        }
        s.set(index, null);
        invalidated.remove(index);
        used.clear(index);
        count--;
        mr.pd().release();
    }

    /**
     * Remote invalidation (SEND with Invalidate): the region's key stops resolving, so every
     * later access by that key fails, while the index stays reserved until the application
     * deregisters the region. Returns false if {@code mr} is not registered here or already
     * invalidated.
     */
    public synchronized boolean invalidate(MemoryRegion mr) {
        int index = mr.index();
        AtomicReferenceArray<MemoryRegion> s = slots;
        if (index >= s.length() || s.get(index) != mr) {
            return false;
        }
        s.set(index, null); // the index stays marked used: deregister() frees it
        invalidated.put(index, mr);
        return true;
    }

    /**
     * Reserves {@code length} bytes of synthetic virtual address space: 4 KiB aligned, starting at
     * {@link #FIRST_SYNTHETIC_VA}, never overlapping an earlier allocation (addresses are not
     * reused; the space is 2^47 bytes wide).
     *
     * @throws IllegalArgumentException if {@code length} is not positive
     */
    public synchronized long allocateAddress(int length) {
        if (length <= 0) {
            throw new IllegalArgumentException("address allocation length " + length + " must be positive");
        }
        long va = nextAddress;
        nextAddress = va + ((length + (long) PAGE_SIZE - 1) & -PAGE_SIZE);
        return va;
    }

    /** The number of registered regions. */
    public synchronized int size() {
        return count;
    }

    private void ensureCapacity(int index) {
        AtomicReferenceArray<MemoryRegion> s = slots;
        if (index < s.length()) {
            return;
        }
        int n = Math.min(Math.max(s.length() * 2, index + 1), maxIndex + 1);
        AtomicReferenceArray<MemoryRegion> grown = new AtomicReferenceArray<>(n);
        for (int i = 0; i < s.length(); i++) {
            grown.set(i, s.get(i));
        }
        lastKeyByte = grow(lastKeyByte, n);
        slots = grown;
    }

    /** Copies {@code old} into an array of length {@code n}, marking the new slots never used. */
    private static int[] grow(int[] old, int n) {
        int[] a = Arrays.copyOf(old, n);
        Arrays.fill(a, old.length, n, -1);
        return a;
    }
}
