package io.rnic.core.engine;

import io.netty.buffer.ByteBuf;
import io.rnic.core.memory.AccessResult;
import io.rnic.core.memory.KeyTable;
import io.rnic.core.memory.MemoryAccess;
import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.memory.ProtectionDomain;

/**
 * A scatter/gather list of a work request, with the memory regions its local keys resolve to.
 * Preallocated per WQE slot with the QP's maximum number of SGEs; filled at post time.
 */
public final class SgList {
    // The first entry lives in fields of the list: most work requests carry one SGE, and a WQE's
    // list is then one object to touch per packet instead of five (an array per attribute).
    private long addr0;
    private int length0;
    private int lkey0;
    private MemoryRegion mr0;
    /** Entries 1 and on. */
    private final long[] moreAddr;
    private final int[] moreLength;
    private final int[] moreLkey;
    private final MemoryRegion[] moreMr;
    private final int maxSge;
    int count;
    long total;

    private static final long[] NO_ADDRESSES = {};
    private static final int[] NO_INTS = {};
    private static final MemoryRegion[] NO_REGIONS = {};

    SgList(int maxSge) {
        this.maxSge = maxSge;
        int more = Math.max(0, maxSge - 1);
        // A list of one entry at most shares empty arrays (never written) with every other.
        moreAddr = more == 0 ? NO_ADDRESSES : new long[more];
        moreLength = more == 0 ? NO_INTS : new int[more];
        moreLkey = more == 0 ? NO_INTS : new int[more];
        moreMr = more == 0 ? NO_REGIONS : new MemoryRegion[more];
    }

    /** Capacity. */
    public int maxSge() {
        return maxSge;
    }

    /** Entry {@code i}'s address. */
    long addr(int i) {
        return i == 0 ? addr0 : moreAddr[i - 1];
    }

    /** Entry {@code i}'s length. */
    int length(int i) {
        return i == 0 ? length0 : moreLength[i - 1];
    }

    /** Entry {@code i}'s local key. */
    int lkey(int i) {
        return i == 0 ? lkey0 : moreLkey[i - 1];
    }

    private MemoryRegion mr(int i) {
        return i == 0 ? mr0 : moreMr[i - 1];
    }

    private void mr(int i, MemoryRegion r) {
        if (i == 0) {
            mr0 = r;
        } else {
            moreMr[i - 1] = r;
        }
    }

    void clear() {
        release();
        count = 0;
        total = 0;
    }

    /** Appends one entry; the caller has checked the capacity. */
    void add(long address, int len, int key) {
        int i = count;
        if (i == 0) {
            addr0 = address;
            length0 = len;
            lkey0 = key;
            mr0 = null;
        } else {
            moreAddr[i - 1] = address;
            moreLength[i - 1] = len;
            moreLkey[i - 1] = key;
            moreMr[i - 1] = null;
        }
        count = i + 1;
        total += Integer.toUnsignedLong(len);
    }

    /** Appends every entry of {@code wr}; the caller has checked the capacity. */
    void addAll(io.rnic.verbs.WorkRequest wr) {
        for (int i = 0, n = wr.numSge(); i < n; i++) {
            add(wr.sgeAddress(i), wr.sgeLength(i), wr.sgeLkey(i));
        }
    }

    /** Total bytes the list describes. */
    public long totalLength() {
        return total;
    }

    /**
     * Looks up and checks every entry's memory region: local key valid, same PD, in bounds, and
     * {@code requiredAccess} granted. Nothing is touched unless every entry passes. The regions are
     * remembered, not held: each later copy checks that its region is still registered.
     */
    AccessResult resolve(KeyTable keys, ProtectionDomain pd, int requiredAccess) {
        for (int i = 0; i < count; i++) {
            int len = length(i);
            if (len == 0) {
                continue;
            }
            MemoryRegion r = keys.lookup(lkey(i));
            AccessResult res = MemoryAccess.check(r, pd, addr(i), Integer.toUnsignedLong(len), requiredAccess, 1);
            if (res == AccessResult.OK && !r.isValid()) {
                res = AccessResult.INVALID_KEY; // deregistered between lookup and check
            }
            if (res != AccessResult.OK) {
                release();
                return res;
            }
            mr(i, r);
        }
        return AccessResult.OK;
    }

    /**
     * Forgets the regions {@link #resolve} found. They are not held between accesses: each copy
     * checks its region is still registered, and fails if it has been deregistered since.
     */
    void release() {
        mr0 = null;
        for (int i = 1; i < count; i++) {
            moreMr[i - 1] = null;
        }
    }

    /**
     * Copies {@code len} bytes starting {@code offset} bytes into the list to {@code dst[dstIndex..]};
     * false if a region was deregistered since {@link #resolve} (nothing is read from it).
     */
    boolean gather(long offset, ByteBuf dst, int dstIndex, int len) {
        return copy(offset, dst, dstIndex, len, false);
    }

    /**
     * Copies {@code len} bytes from {@code src[srcIndex..]} to {@code offset} bytes into the list;
     * false if a region was deregistered since {@link #resolve} (nothing is written to it).
     */
    boolean scatter(long offset, ByteBuf src, int srcIndex, int len) {
        return copy(offset, src, srcIndex, len, true);
    }

    /**
     * Walks the entries from {@code offset} and copies between them and {@code buf}, each piece
     * only if its region is still registered (protocol thread: see {@link MemoryRegion#isValid}).
     */
    private boolean copy(long offset, ByteBuf buf, int index, int len, boolean intoMemory) {
        long skip = offset;
        for (int i = 0; len > 0 && i < count; i++) {
            long l = Integer.toUnsignedLong(length(i));
            if (skip >= l) {
                skip -= l;
                continue;
            }
            int n = (int) Math.min(len, l - skip);
            MemoryRegion r = mr(i);
            if (!r.isValid()) {
                return false;
            }
            if (intoMemory) {
                r.write(addr(i) + skip, buf, index, n);
            } else {
                r.read(addr(i) + skip, buf, index, n);
            }
            index += n;
            len -= n;
            skip = 0;
        }
        return true;
    }

    /**
     * Writes an 8-byte value (an atomic's original data) at the start of the list, host order;
     * false if its region was deregistered since {@link #resolve}.
     */
    boolean putLong(long value) {
        for (int i = 0; i < count; i++) {
            if (length(i) != 0) {
                MemoryRegion r = mr(i);
                if (!r.isValid()) {
                    return false;
                }
                r.putLong(addr(i), value);
                return true;
            }
        }
        return true;
    }
}
