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
 * <p>Thread-safety: {@link #register} and {@link #allocateAddress} may run on any thread (they
 * synchronize on the table). {@link #deregister}, {@link #deallocateFastRegion} and
 * {@link #invalidateFast} synchronize too, but run on the device's protocol thread (or when none
 * runs), so that thread's copies only check {@link MemoryRegion#isValid()}. {@link #lookup} takes no
 * lock and allocates nothing, so the protocol thread may call it per packet. A lookup on another
 * thread racing with a deregistration may still return the region; it is then no longer valid
 * and {@link MemoryRegion#pin()} fails.
 */
public final class KeyTable {
    /** The largest MR index (rxe: MRs use indices 1 .. 2^19, memory windows the ones above). */
    public static final int MAX_MR_INDEX = 1 << 19;
    /** The first synthetic virtual address handed out by {@link #allocateAddress}. */
    public static final long FIRST_SYNTHETIC_VA = 0x7f00_0000_0000L;
    /** The alignment of synthetic virtual addresses. */
    public static final int PAGE_SIZE = 4096;

    private static final int INITIAL_SLOTS = 64;
    /** Memory windows use the indices above the regions', up to this one (rxe: 2^19 + 1 .. 2^20). */
    public static final int MAX_MW_INDEX = 1 << 20;

    /** Fast-registration regions by index (their registrations live in {@link #slots} while in force). */
    private final java.util.Map<Integer, FastRegion> fastRegions = new java.util.HashMap<>();

    /** Windows by index − {@link #MAX_MR_INDEX} − 1; grown by copy, read without a lock. */
    private volatile AtomicReferenceArray<MemoryWindow> windowSlots = new AtomicReferenceArray<>(16);
    private final BitSet windowsUsed = new BitSet();
    private int[] lastWindowKeyByte = grow(new int[0], 16);

    private final RandomGenerator random;
    private final int maxIndex;
    /** Slot i holds the region with index i; replaced by a larger copy when full. */
    private volatile MemoryRegion[] slots = new MemoryRegion[INITIAL_SLOTS];
    /**
     * Volatile access to {@link #slots}' elements: a plain array, not an AtomicReferenceArray, so
     * that a packet's key lookup reads one object fewer.
     */
    private static final java.lang.invoke.VarHandle SLOT =
            java.lang.invoke.MethodHandles.arrayElementVarHandle(MemoryRegion[].class);
    // The fields below are only touched with the table's lock held.
    private final BitSet used = new BitSet();
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
        int index = freeIndex();
        int keyByte = nextKeyByte(lastKeyByte[index]);
        MemoryRegion mr = new MemoryRegion(pd, buffer, offset, length, va, access, index << 8 | keyByte, persistent);
        take(index, keyByte, pd);
        SLOT.setVolatile(slots, index, mr); // volatile store: lookups that see it see a fully built region
        return mr;
    }

    /**
     * The valid region whose key is {@code key} (as lkey or rkey), or {@code null} if the index
     * does not exist, is free, or holds a region with a different key byte. Lock- and
     * allocation-free.
     */
    public MemoryRegion lookup(int key) {
        int index = key >>> 8;
        MemoryRegion[] s = slots;
        if (index == 0 || index >= s.length) {
            return null;
        }
        MemoryRegion mr = (MemoryRegion) SLOT.getVolatile(s, index);
        return mr != null && mr.lkey() == key ? mr : null;
    }

    /**
     * Allocates a memory window of {@code type} (1 or 2) in {@code pd} ({@code ibv_alloc_mw}),
     * with a key whose index is above every region's and whose key byte differs from the last
     * used at that index; retains the PD.
     *
     * @throws IllegalArgumentException if {@code type} is not 1 or 2
     * @throws IllegalStateException if every window index is in use
     */
    public synchronized MemoryWindow allocateWindow(ProtectionDomain pd, int type) {
        if (type != 1 && type != 2) {
            throw new IllegalArgumentException("memory window type " + type + " is not 1 or 2 (ibv_alloc_mw: EINVAL)");
        }
        int slot = windowsUsed.nextClearBit(0);
        if (slot >= MAX_MW_INDEX - MAX_MR_INDEX) {
            throw new IllegalStateException("all " + (MAX_MW_INDEX - MAX_MR_INDEX) + " memory window indices are in use");
        }
        AtomicReferenceArray<MemoryWindow> s = windowSlots;
        if (slot >= s.length()) {
            AtomicReferenceArray<MemoryWindow> grown = new AtomicReferenceArray<>(Math.max(s.length() * 2, slot + 1));
            for (int i = 0; i < s.length(); i++) {
                grown.set(i, s.get(i));
            }
            lastWindowKeyByte = grow(lastWindowKeyByte, grown.length());
            windowSlots = s = grown;
        }
        int keyByte = nextKeyByte(lastWindowKeyByte[slot]);
        lastWindowKeyByte[slot] = keyByte;
        int index = MAX_MR_INDEX + 1 + slot;
        MemoryWindow mw = new MemoryWindow(pd, type, index, index << 8 | keyByte);
        windowsUsed.set(slot);
        pd.retain();
        s.set(slot, mw);
        return mw;
    }

    /**
     * Deallocates {@code mw} ({@code ibv_dealloc_mw}; allowed while bound, as in rxe): its key
     * never resolves again, its region no longer counts it, its index is freed and its PD
     * released.
     *
     * @throws IllegalStateException if {@code mw} is not a window of this table
     */
    public synchronized void deallocateWindow(MemoryWindow mw) {
        int slot = mw.index() - MAX_MR_INDEX - 1;
        AtomicReferenceArray<MemoryWindow> s = windowSlots;
        if (slot < 0 || slot >= s.length() || s.get(slot) != mw) {
            throw new IllegalStateException(mw + " is not allocated in this key table");
        }
        mw.deallocate();
        s.set(slot, null);
        windowsUsed.clear(slot);
        mw.pd().release();
    }

    /** The allocated window whose current key is {@code rkey}, or {@code null}. Lock-free. */
    public MemoryWindow lookupWindow(int rkey) {
        int slot = (rkey >>> 8) - MAX_MR_INDEX - 1;
        AtomicReferenceArray<MemoryWindow> s = windowSlots;
        if (slot < 0 || slot >= s.length()) {
            return null;
        }
        MemoryWindow mw = s.get(slot);
        return mw != null && mw.rkey() == rkey ? mw : null;
    }

    /** True if {@code key}'s index is a memory window's, not a region's. */
    public static boolean isWindowKey(int key) {
        return (key >>> 8) > MAX_MR_INDEX;
    }

    /**
     * Resolves the R_Key of a remote access (reference §8.3): a region's key is checked as
     * {@link MemoryAccess#check} does; a window's against the window (bound and valid, the QP's PD,
     * a type 2 window's own QP, its rights and bounds) and then its region. On success
     * {@code out} holds the region and the address in its address space. Lock- and
     * allocation-free.
     *
     * @param qpn the QP the request arrived on (a type 2 window serves only the QP it is bound to)
     */
    public AccessResult resolveRemote(int rkey, ProtectionDomain pd, int qpn, long va, long len, int access,
                                      int alignment, RemoteKey out) {
        if (!isWindowKey(rkey)) {
            MemoryRegion mr = lookup(rkey);
            AccessResult r = MemoryAccess.check(mr, pd, va, len, access, alignment);
            if (r == AccessResult.OK) {
                out.region(mr, va);
            }
            return r;
        }
        MemoryWindow mw = lookupWindow(rkey);
        if (mw == null) {
            return AccessResult.INVALID_KEY;
        }
        AccessResult r = mw.check(pd, qpn, va, len, access, out);
        if (r != AccessResult.OK) {
            return r;
        }
        if (!out.mr.isValid()) {
            return AccessResult.INVALID_KEY;
        }
        if (alignment > 1 && Long.remainderUnsigned(out.va, alignment) != 0) {
            return AccessResult.MISALIGNED;
        }
        return AccessResult.OK;
    }

    /**
     * Binds {@code mw} (rxe's {@code rxe_check_bind_mw} order): to {@code [addr, addr + length)} of
     * {@code mr} with {@code access}, as requested by QP {@code qpn} in {@code qpPd}; a type 2
     * window takes the key byte of {@code newRkey}, a type 1 window takes {@code newRkey}. A
     * zero length unbinds a type 1 window.
     *
     * @param currentRkey the key the request names the window by: it must be the window's
     * @return {@code null} on success, or why the bind fails (MW_BIND_ERR)
     */
    public synchronized String bindWindow(MemoryWindow mw, int currentRkey, MemoryRegion mr, long addr, long length,
                                          int access, int newRkey, int qpn, ProtectionDomain qpPd) {
        if (mw.state() == MemoryWindow.State.INVALID || mw.rkey() != currentRkey) {
            return "no memory window has key 0x" + Integer.toHexString(currentRkey);
        }
        if ((access & ~(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC
                | AccessFlags.LOCAL_WRITE | AccessFlags.ZERO_BASED)) != 0) {
            return "access " + AccessFlags.describe(access) + " is not a window's";
        }
        if (mw.type() == 1) {
            if ((access & AccessFlags.ZERO_BASED) != 0) {
                return "a type 1 window cannot be zero-based (rxe)";
            }
        } else {
            if (mw.state() != MemoryWindow.State.FREE) {
                return "a bound type 2 window must be invalidated before it is bound again";
            }
            if (qpPd != mw.pd()) {
                return "the QP's PD is not the window's";
            }
            if (mr == null || length == 0) {
                return "a type 2 window is bound to a region and a non-zero length";
            }
        }
        if (length == 0) { // type 1 unbind
            mw.bind(null, 0, 0, 0, newRkey, qpn);
            return null;
        }
        if (mr == null || !mr.isValid()) {
            return "the region is not registered";
        }
        if (mr.pd() != mw.pd()) {
            return "the region's PD is not the window's";
        }
        if ((mr.access() & AccessFlags.ZERO_BASED) != 0) {
            return "windows cannot be bound to a zero-based region";
        }
        if ((mr.access() & AccessFlags.MW_BIND) == 0) {
            return "the region was not registered with MW_BIND";
        }
        if ((access & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0
                && (mr.access() & AccessFlags.LOCAL_WRITE) == 0) {
            // The window may not let peers write what its owner registered as not locally writable.
            return "a window with REMOTE_WRITE or REMOTE_ATOMIC needs a region with LOCAL_WRITE";
        }
        if (!mr.contains(addr, length)) {
            return String.format("[0x%x, +%d) is not inside the region", addr, length);
        }
        mw.bind(mr, addr, length, access, mw.type() == 2 ? (mw.rkey() & ~0xFF) | (newRkey & 0xFF) : newRkey, qpn);
        return null;
    }

    /**
     * Local invalidation (LOCAL_INV) or remote invalidation (SEND with Invalidate) of a type 2
     * window: it becomes FREE and its key stops granting access. A type 1 window, or one not bound,
     * cannot be invalidated.
     *
     * @return {@code null} on success, or why not
     */
    public synchronized String invalidateWindow(int rkey, ProtectionDomain pd) {
        MemoryWindow mw = lookupWindow(rkey);
        if (mw == null) {
            return "no memory window has key 0x" + Integer.toHexString(rkey);
        }
        if (mw.type() != 2) {
            return "a type 1 window is not invalidated, it is unbound with a zero-length bind";
        }
        if (mw.state() != MemoryWindow.State.VALID) {
            return "the window is not bound";
        }
        if (pd != null && pd != mw.pd()) {
            return "the window is in another PD";
        }
        mw.invalidate();
        return null;
    }

    /**
     * LOCAL_INV of {@code rkey} by a QP in {@code pd}: a type 2 window (see
     * {@link #invalidateWindow}) or a fast registration (see {@link #invalidateFast}). An ordinary
     * region is refused, as rxe refuses it.
     *
     * @return {@code null} on success, or why not (LOC_QP_OP_ERR)
     */
    public String invalidateLocal(int rkey, ProtectionDomain pd) {
        if (!isWindowKey(rkey)) {
            MemoryRegion mr = lookup(rkey);
            if (mr == null) {
                return "no memory region or window has key 0x" + Integer.toHexString(rkey);
            }
            if (!mr.remotelyInvalidatable()) {
                return "an ordinary memory region cannot be invalidated; deregister it";
            }
            return invalidateFast(mr) ? null : "the fast registration is not in force";
        }
        return invalidateWindow(rkey, null); // no PD check: rxe does none for LOCAL_INV
    }

    /**
     * Allocates a region without memory for fast registration, in {@code pd}, of at most
     * {@code maxLength} bytes: an index and a key, no registration yet (FREE).
     *
     * @throws IllegalArgumentException if {@code maxLength} is not positive
     * @throws IllegalStateException if all indices are in use
     */
    public synchronized FastRegion allocateFastRegion(ProtectionDomain pd, int maxLength) {
        if (maxLength <= 0) {
            throw new IllegalArgumentException("a fast-registration region's max length " + maxLength + " must be positive");
        }
        int index = freeIndex();
        int keyByte = nextKeyByte(lastKeyByte[index]);
        take(index, keyByte, pd);
        FastRegion fr = new FastRegion(pd, index, maxLength, index << 8 | keyByte);
        fastRegions.put(index, fr);
        return fr;
    }

    /** The fast-registration region with index {@code index}, or {@code null}. */
    public synchronized FastRegion fastRegion(int index) {
        return fastRegions.get(index);
    }

    /**
     * REG_MR: registers the memory mapped into {@code fr} at {@code va} with {@code access} under
     * {@code newKey}, as requested by a QP in {@code qpPd} (rxe's order: the region FREE, the same
     * PD, only the key byte changed).
     *
     * @return {@code null} on success, or why not (LOC_QP_OP_ERR)
     */
    public synchronized String fastRegister(FastRegion fr, int newKey, long va, int access, ProtectionDomain qpPd) {
        if (fr.current() != null) {
            return "the region is registered: invalidate it before registering it again";
        }
        if (fr.pd() != qpPd) {
            return "the QP's PD is not the region's";
        }
        if ((newKey >>> 8) != fr.index()) {
            return "only the key byte may change: key 0x" + Integer.toHexString(newKey) + " is not index "
                    + fr.index() + "'s";
        }
        if (fr.buffer() == null) {
            return "no memory is mapped into the region";
        }
        MemoryRegion mr;
        try {
            mr = new MemoryRegion(fr.pd(), fr.buffer(), fr.offset(), fr.length(), va, access, newKey, false, true);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        lastKeyByte[fr.index()] = newKey & 0xFF;
        fr.registered(mr);
        SLOT.setVolatile(slots, fr.index(), mr);
        return null;
    }

    /**
     * LOCAL_INV or remote invalidation of fast registration {@code mr}: its key stops resolving,
     * copies in progress finish first, and its fast-registration region is FREE again.
     *
     * @return false if {@code mr} is not the registration in force
     */
    public synchronized boolean invalidateFast(MemoryRegion mr) {
        FastRegion fr = fastRegions.get(mr.index());
        if (fr == null || fr.current() != mr || SLOT.getVolatile(slots, mr.index()) != mr) {
            return false;
        }
        SLOT.setVolatile(slots, mr.index(), null);
        mr.invalidate();
        fr.freed();
        return true;
    }

    /** Frees fast-registration region {@code fr} (and its registration, if one is in force). */
    public synchronized void deallocateFastRegion(FastRegion fr) {
        if (fastRegions.get(fr.index()) != fr) {
            throw new IllegalStateException("fast-registration region " + fr.index() + " is not allocated here");
        }
        MemoryRegion mr = fr.current();
        if (mr != null) {
            if (mr.boundWindows() > 0) {
                throw new IllegalStateException(mr + " has memory windows bound");
            }
            invalidateFast(mr);
        }
        fastRegions.remove(fr.index());
        used.clear(fr.index());
        count--;
        fr.pd().release();
    }

    /**
     * Deregisters {@code mr}, on the protocol thread (or when none runs): invalidates it (waiting
     * for another thread's copy in progress to finish, never for a request that merely named the
     * region), frees its index for reuse and releases its PD.
     *
     * @throws IllegalStateException if {@code mr} is not registered in this table, or already deregistered
     */
    public synchronized void deregister(MemoryRegion mr) {
        if (mr.boundWindows() > 0) {
            throw new IllegalStateException(mr + " has " + mr.boundWindows() + " memory window(s) bound: unbind or "
                    + "invalidate them first (ibv_dereg_mr fails with EINVAL)");
        }
        int index = mr.index();
        MemoryRegion[] s = slots;
        if (index >= s.length || SLOT.getVolatile(s, index) != mr || fastRegions.containsKey(index)) {
            throw new IllegalStateException(mr + " is not registered in this key table");
        }
        if (!mr.invalidate()) {
            throw new IllegalStateException(mr + " is already deregistered");
        }
        SLOT.setVolatile(s, index, null);
        used.clear(index);
        count--;
        mr.pd().release();
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

    /** The lowest free region index, with room for it. */
    private int freeIndex() {
        int index = used.nextClearBit(1);
        if (index > maxIndex) {
            throw new IllegalStateException("key table is full: all " + maxIndex + " memory region indices are in use");
        }
        ensureCapacity(index);
        return index;
    }

    /** A random key byte other than {@code previous} (-1: none yet). */
    private int nextKeyByte(int previous) {
        // Drawing from the 255 other values keeps the distribution uniform without a retry loop.
        return previous < 0 ? random.nextInt(256) : (previous + 1 + random.nextInt(255)) & 0xFF;
    }

    /** Marks region index {@code index} used with {@code keyByte}, for an object of {@code pd}. */
    private void take(int index, int keyByte, ProtectionDomain pd) {
        lastKeyByte[index] = keyByte;
        used.set(index);
        count++;
        pd.retain();
    }

    private void ensureCapacity(int index) {
        MemoryRegion[] s = slots;
        if (index < s.length) {
            return;
        }
        // Only the table's lock holder writes slots: the copy misses no store, and the volatile
        // write of the new array publishes its elements.
        MemoryRegion[] grown = Arrays.copyOf(s, Math.min(Math.max(s.length * 2, index + 1), maxIndex + 1));
        int n = grown.length;
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
