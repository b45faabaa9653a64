package io.rnic.core.transport;

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
    final int[] lkey;
    final long[] addr;
    final int[] length;
    final MemoryRegion[] mr;
    int count;
    long total;

    SgList(int maxSge) {
        lkey = new int[maxSge];
        addr = new long[maxSge];
        length = new int[maxSge];
        mr = new MemoryRegion[maxSge];
    }

    /** Capacity. */
    public int maxSge() {
        return lkey.length;
    }

    void clear() {
        unpin();
        count = 0;
        total = 0;
    }

    /** Appends one entry; the caller has checked the capacity. */
    void add(long address, int len, int key) {
        addr[count] = address;
        length[count] = len;
        lkey[count] = key;
        mr[count] = null;
        count++;
        total += Integer.toUnsignedLong(len);
    }

    /** Total bytes the list describes. */
    public long totalLength() {
        return total;
    }

    /**
     * Looks up and checks every entry's memory region: local key valid, same PD, in bounds, and
     * {@code requiredAccess} granted. Nothing is touched unless every entry passes.
     */
    AccessResult resolve(KeyTable keys, ProtectionDomain pd, int requiredAccess) {
        for (int i = 0; i < count; i++) {
            if (length[i] == 0) {
                continue;
            }
            MemoryRegion r = keys.lookup(lkey[i]);
            AccessResult res = MemoryAccess.check(r, pd, addr[i], Integer.toUnsignedLong(length[i]), requiredAccess, 1);
            if (res == AccessResult.OK && !r.pin()) {
                res = AccessResult.INVALID_KEY; // deregistered between lookup and pin
            }
            if (res != AccessResult.OK) {
                unpin();
                return res;
            }
            mr[i] = r;
        }
        return AccessResult.OK;
    }

    /**
     * Releases the pins {@link #resolve} took, so the regions may be deregistered again. Called
     * when the work request completes, is flushed or is discarded.
     */
    void unpin() {
        for (int i = 0; i < count; i++) {
            if (mr[i] != null) {
                mr[i].unpin();
                mr[i] = null;
            }
        }
    }

    /** Copies {@code len} bytes starting {@code offset} bytes into the list to {@code dst[dstIndex..]}. */
    void gather(long offset, ByteBuf dst, int dstIndex, int len) {
        copy(offset, dst, dstIndex, len, false);
    }

    /** Copies {@code len} bytes from {@code src[srcIndex..]} to {@code offset} bytes into the list. */
    void scatter(long offset, ByteBuf src, int srcIndex, int len) {
        copy(offset, src, srcIndex, len, true);
    }

    /** Walks the entries from {@code offset} and copies between them and {@code buf}. */
    private void copy(long offset, ByteBuf buf, int index, int len, boolean intoMemory) {
        long skip = offset;
        for (int i = 0; len > 0 && i < count; i++) {
            long l = Integer.toUnsignedLong(length[i]);
            if (skip >= l) {
                skip -= l;
                continue;
            }
            int n = (int) Math.min(len, l - skip);
            if (intoMemory) {
                mr[i].write(addr[i] + skip, buf, index, n);
            } else {
                mr[i].read(addr[i] + skip, buf, index, n);
            }
            index += n;
            len -= n;
            skip = 0;
        }
    }

    /** Writes an 8-byte value (an atomic's original data) at the start of the list, host order. */
    void putLong(long value) {
        for (int i = 0; i < count; i++) {
            if (length[i] != 0) {
                mr[i].putLong(addr[i], value);
                return;
            }
        }
    }
}
