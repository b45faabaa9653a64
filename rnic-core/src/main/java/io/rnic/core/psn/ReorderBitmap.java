package io.rnic.core.psn;

/**
 * Out-of-order reception bitmap (seed 002): one bit per PSN in a window that starts at the
 * expected PSN. A packet that arrives ahead of the expected PSN is marked; when the expected
 * PSN's bit is set, {@link #advance()} consumes the run of consecutive received PSNs and moves
 * the window, exactly like the seed's "shift right until bit 0 is clear".
 *
 * <p>Bits are stored at their absolute position modulo the capacity, so advancing never shifts
 * memory; the capacity (a power of two between 64 and 2^16) divides 2^24, so the mapping is
 * continuous across the PSN wrap. Allocation-free; owned by one thread.
 */
public final class ReorderBitmap {
    /** Outcome of {@link #mark}. */
    public enum Mark {
        /** First arrival of this PSN inside the window. */
        NEW,
        /** Already marked, or before the window (already consumed). */
        DUPLICATE,
        /** Too far ahead: beyond the window's capacity. */
        OUT_OF_RANGE
    }

    private final long[] words;
    private final int mask;
    private int base;
    private int marked;

    /** A bitmap tracking {@code capacity} PSNs from the expected one. */
    public ReorderBitmap(int capacity) {
        if (capacity < 64 || capacity > (1 << 16) || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("bitmap capacity " + capacity + " must be a power of two in 64..65536");
        }
        this.words = new long[capacity >>> 6];
        this.mask = capacity - 1;
    }

    /** Clears every bit and starts the window at {@code expectedPsn}. */
    public void reset(int expectedPsn) {
        java.util.Arrays.fill(words, 0L);
        base = Psn.require(expectedPsn, "expected PSN");
        marked = 0;
    }

    /** The expected PSN: the first PSN not yet consumed. */
    public int base() {
        return base;
    }

    /** Number of PSNs the window can hold. */
    public int capacity() {
        return mask + 1;
    }

    /** Number of marked PSNs not yet consumed by {@link #advance()}. */
    public int marked() {
        return marked;
    }

    /** Records the arrival of {@code psn}. */
    public Mark mark(int psn) {
        int d = Psn.forward(base, psn);
        if (d >= Psn.WINDOW) {
            return Mark.DUPLICATE;
        }
        if (d > mask) {
            return Mark.OUT_OF_RANGE;
        }
        int i = psn & mask;
        long bit = 1L << i;
        long w = words[i >>> 6];
        if ((w & bit) != 0) {
            return Mark.DUPLICATE;
        }
        words[i >>> 6] = w | bit;
        marked++;
        return Mark.NEW;
    }

    /** True if {@code psn} is inside the window and marked. */
    public boolean isMarked(int psn) {
        int d = Psn.forward(base, psn);
        if (d > mask) {
            return false;
        }
        int i = psn & mask;
        return (words[i >>> 6] & (1L << i)) != 0;
    }

    /**
     * Consumes the run of marked PSNs starting at the expected PSN, clears their bits and moves
     * the expected PSN past them. Returns the length of the run (0 if the expected PSN is missing).
     */
    public int advance() {
        int total = 0;
        while (true) {
            int i = base & mask;
            int w = i >>> 6;
            int b = i & 63;
            int ones = Long.numberOfTrailingZeros(~(words[w] >>> b));
            if (ones == 0) {
                break;
            }
            long run = ones == 64 ? -1L : (1L << ones) - 1;
            words[w] &= ~(run << b);
            base = Psn.add(base, ones);
            total += ones;
            if (b + ones < 64) {
                break;
            }
        }
        marked -= total;
        return total;
    }

    /**
     * The first unmarked PSN at or after {@code from} within the window, or -1 if every PSN from
     * {@code from} to the end of the window is marked. Used to find holes for selective
     * retransmission.
     */
    public int nextMissing(int from) {
        int d = Psn.forward(base, from);
        if (d > mask) {
            return -1;
        }
        int psn = from;
        while (d <= mask) {
            int i = psn & mask;
            int b = i & 63;
            int ones = Long.numberOfTrailingZeros(~(words[i >>> 6] >>> b));
            if (ones < 64 - b) {
                return d + ones <= mask ? Psn.add(psn, ones) : -1;
            }
            int step = 64 - b;
            psn = Psn.add(psn, step);
            d += step;
        }
        return -1;
    }

    /** The highest marked PSN, or -1 if none is marked. */
    public int highestMarked() {
        if (marked == 0) {
            return -1;
        }
        for (int d = mask; d >= 0; d--) {
            int psn = Psn.add(base, d);
            int i = psn & mask;
            if ((words[i >>> 6] & (1L << i)) != 0) {
                return psn;
            }
        }
        return -1;
    }
}
