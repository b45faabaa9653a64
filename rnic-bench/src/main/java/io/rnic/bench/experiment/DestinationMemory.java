package io.rnic.bench.experiment;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The memory that receives the flows' bytes: slabs of direct memory carved first-fit into blocks,
 * a block per flow in flight, given back (and merged with its free neighbours) once the flow's
 * bytes have been checked. A host registers its block as a memory region for the flow's lifetime.
 *
 * <p>Why one pool for all hosts rather than one per host: a pool keeps what it once needed, so
 * per-host pools together hold the sum of every host's own peak, far more than the peak of all
 * hosts together, which is what one pool holds (a k=8 fat tree under WebSearch has tens of MB in
 * flight towards a busy host, and 128 hosts). The simulated hosts share the simulator's memory;
 * their regions never overlap while in use.
 *
 * <p>Bounded: slabs are made while their total stays within the budget; past it, {@link #take}
 * returns null and the flow waits for memory (counted by the experiment).
 */
final class DestinationMemory {
    /** Blocks start on 64-byte boundaries (a cache line). */
    static final int ALIGN = 64;
    private static final long FIRST_SLAB = 16L << 20;
    private static final long MAX_SLAB = 256L << 20;

    /** A block: its slab, its offset in it, its length (a multiple of {@link #ALIGN}). */
    record Block(int slab, int offset, int length) {
    }

    private final long budget;
    private final List<ByteBuffer> slabs = new ArrayList<>();
    /** Per slab, its free ranges: start to length, in address order. */
    private final List<TreeMap<Integer, Integer>> free = new ArrayList<>();
    private long slabBytes;
    private long inUse;
    private long peakInUse;

    /**
     * A pool that makes at most {@code budgetBytes} of slabs.
     *
     * @throws IllegalArgumentException if the budget is not positive
     */
    DestinationMemory(long budgetBytes) {
        if (budgetBytes <= 0) {
            throw new IllegalArgumentException("the destination memory budget must be positive, got " + budgetBytes);
        }
        this.budget = budgetBytes;
    }

    /**
     * A block of at least {@code bytes}, or null if the pool would exceed its budget.
     *
     * @throws IllegalArgumentException if {@code bytes} is not 1..2^31 - 1 - {@link #ALIGN}
     */
    Block take(long bytes) {
        if (bytes < 1 || bytes > Integer.MAX_VALUE - ALIGN) {
            throw new IllegalArgumentException("a destination block of " + bytes + " bytes is outside 1.."
                    + (Integer.MAX_VALUE - ALIGN));
        }
        int need = (int) ((bytes + ALIGN - 1) / ALIGN * ALIGN);
        for (int s = 0; s < slabs.size(); s++) {
            Block b = carve(s, need);
            if (b != null) {
                return b;
            }
        }
        long size = Math.max(need, Math.min(MAX_SLAB, Math.max(FIRST_SLAB, slabBytes)));
        size = Math.min(size, budget - slabBytes);
        if (size < need) {
            return null;
        }
        slabs.add(ByteBuffer.allocateDirect((int) size));
        TreeMap<Integer, Integer> f = new TreeMap<>();
        f.put(0, (int) size);
        free.add(f);
        slabBytes += size;
        return carve(slabs.size() - 1, need);
    }

    private Block carve(int s, int need) {
        TreeMap<Integer, Integer> f = free.get(s);
        for (Map.Entry<Integer, Integer> e : f.entrySet()) {
            if (e.getValue() >= need) {
                int start = e.getKey();
                int len = e.getValue();
                f.remove(start);
                if (len > need) {
                    f.put(start + need, len - need);
                }
                inUse += need;
                peakInUse = Math.max(peakInUse, inUse);
                return new Block(s, start, need);
            }
        }
        return null;
    }

    /** Gives a block back, merged with the free ranges either side of it. */
    void give(Block b) {
        TreeMap<Integer, Integer> f = free.get(b.slab());
        int start = b.offset();
        int len = b.length();
        Map.Entry<Integer, Integer> before = f.floorEntry(start);
        if (before != null && before.getKey() + before.getValue() == start) {
            start = before.getKey();
            len += before.getValue();
            f.remove(before.getKey());
        }
        Integer after = f.get(b.offset() + b.length());
        if (after != null) {
            f.remove(b.offset() + b.length());
            len += after;
        }
        f.put(start, len);
        inUse -= b.length();
    }

    /** Slab {@code s}'s memory. */
    ByteBuffer slab(int s) {
        return slabs.get(s);
    }

    /** Bytes of slabs made. */
    long slabBytes() {
        return slabBytes;
    }

    /** The most bytes in blocks at once. */
    long peakInUse() {
        return peakInUse;
    }

    /** Bytes in blocks now. */
    long inUse() {
        return inUse;
    }
}
