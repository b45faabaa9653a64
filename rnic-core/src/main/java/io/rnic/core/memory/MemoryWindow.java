package io.rnic.core.memory;

import io.rnic.verbs.AccessFlags;

/**
 * A memory window ({@code ibv_mw}, reference §8.1): a remote key that grants a subset of a
 * memory region, bound and unbound without registering memory again. A type 1 window is bound by
 * the bind verb and stays valid (bound or not) until deallocated; a type 2 window (type 2B, as
 * rxe) is bound by a BIND_MW work request to the QP that posts it, which alone may then use it,
 * and must be invalidated (LOCAL_INV, or a peer's SEND with Invalidate) before it is bound again.
 *
 * <p>The protocol thread binds, invalidates and resolves windows; deallocation happens on an
 * application thread, so the fields a lookup reads are volatile and a binding is published by
 * the state write that follows it.
 */
public final class MemoryWindow {
    /** The window's states (rxe's VALID/FREE/INVALID). */
    public enum State {
        /** Type 1 always until deallocated (length 0 when unbound); type 2 while bound. */
        VALID,
        /** Type 2 after allocation and after invalidation: not usable, ready to be bound. */
        FREE,
        /** Deallocated. */
        INVALID
    }

    private final ProtectionDomain pd;
    private final int type;
    private final int index;
    private volatile int rkey;
    private volatile State state;
    private volatile MemoryRegion mr;
    /** Where the window starts in the region's address space, and how long it is. */
    private volatile long base;
    private volatile long length;
    private volatile int access;
    /** The QP a type 2 window is bound to (-1 when not bound). */
    private volatile int qpn = -1;
    /**
     * Counts the window's binds, invalidations and its deallocation: an access that resolved the
     * window at one count may go on (a WRITE's later packets) only while the count is unchanged.
     */
    private volatile int generation;

    MemoryWindow(ProtectionDomain pd, int type, int index, int rkey) {
        this.pd = pd;
        this.type = type;
        this.index = index;
        this.rkey = rkey;
        this.state = type == 1 ? State.VALID : State.FREE;
    }

    /** The protection domain the window was allocated in. */
    public ProtectionDomain pd() {
        return pd;
    }

    /** 1 or 2. */
    public int type() {
        return type;
    }

    int index() {
        return index;
    }

    /** The current remote key. */
    public int rkey() {
        return rkey;
    }

    public State state() {
        return state;
    }

    /** The region the window is bound to, or {@code null}. */
    public MemoryRegion mr() {
        return mr;
    }

    /** The window's remote access rights. */
    public int access() {
        return access;
    }

    /** The window's length; 0 when not bound. */
    public long length() {
        return length;
    }

    /** The QP a bound type 2 window belongs to, or -1. */
    public int qpn() {
        return qpn;
    }

    /**
     * The binding's generation: it changes with every bind, invalidation and the deallocation, so
     * an access that checked the window at one generation knows whether that grant still stands.
     */
    public int generation() {
        return generation;
    }

    /**
     * Binds the window (checked by the caller) to {@code [base, base + length)} of {@code region}
     * with {@code access}, under key {@code newRkey}; a type 2 window to {@code boundQpn}. A length
     * of 0 unbinds a type 1 window (the key still changes).
     */
    void bind(MemoryRegion region, long base, long length, int access, int newRkey, int boundQpn) {
        MemoryRegion old = this.mr;
        if (old != null) {
            old.windowUnbound();
        }
        if (length > 0) {
            region.windowBound();
            this.mr = region;
        } else {
            this.mr = null;
        }
        this.base = base;
        this.length = length;
        this.access = length > 0 ? access : 0;
        this.qpn = type == 2 ? boundQpn : -1;
        this.rkey = newRkey;
        generation++; // written only under the key table's lock
        this.state = State.VALID; // published last: a lookup that sees VALID sees the binding
    }

    /** Unbinds a type 2 window (LOCAL_INV, remote invalidation): FREE, no region, no rights. */
    void invalidate() {
        generation++;
        state = State.FREE;
        clear();
    }

    /** Deallocation: the window's key never resolves again. */
    void deallocate() {
        generation++;
        state = State.INVALID;
        clear();
    }

    private void clear() {
        MemoryRegion old = this.mr;
        this.mr = null;
        if (old != null) {
            old.windowUnbound();
        }
        length = 0;
        access = 0;
        qpn = -1;
    }

    /**
     * Checks a remote access of {@code len} bytes at {@code va} through this window by QP
     * {@code requesterQpn} in {@code qpPd} needing {@code required} rights (reference §8.3: valid,
     * bound, the QP's PD, the type 2 window's own QP, the rights, the window's bounds), and
     * translates {@code va} into the region's address space into {@code out}.
     */
    AccessResult check(ProtectionDomain qpPd, int requesterQpn, long va, long len, int required, RemoteKey out) {
        int checkedAt = generation; // read first: a change after it shows in the access's later checks
        MemoryRegion region = mr;
        long size = length;
        if (state != State.VALID || region == null || size == 0) {
            return AccessResult.INVALID_KEY;
        }
        if (pd != qpPd || (type == 2 && qpn != requesterQpn)) {
            return AccessResult.PD_MISMATCH;
        }
        if ((access & required) != required) {
            return AccessResult.ACCESS_DENIED;
        }
        boolean zeroBased = (access & AccessFlags.ZERO_BASED) != 0;
        long offset = zeroBased ? va : va - base;
        // Unsigned: the access must lie inside the window (rxe checks only the region: stricter here).
        if ((!zeroBased && Long.compareUnsigned(va, base) < 0) || Long.compareUnsigned(offset, size) > 0
                || Long.compareUnsigned(len, size - offset) > 0) {
            return AccessResult.OUT_OF_BOUNDS;
        }
        out.mr = region;
        out.va = base + offset;
        out.mw = this;
        out.mwGeneration = checkedAt;
        return AccessResult.OK;
    }

    @Override
    public String toString() {
        return String.format("MW type %d rkey 0x%08x %s", type, rkey, state);
    }
}
