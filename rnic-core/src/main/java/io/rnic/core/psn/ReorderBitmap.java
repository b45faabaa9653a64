package io.rnic.core.psn;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Out-of-order reception map (seed 002): one slot per PSN in a window that starts at the
 * expected PSN. A packet that arrives ahead of the expected PSN is marked; when the expected
 * PSN arrives, {@link #advance()} consumes the run of consecutive received PSNs and moves the
 * window, exactly like the seed's "shift right until bit 0 is clear".
 *
 * <p>Slots are stored at their absolute position modulo the capacity, so advancing never shifts
 * memory; the capacity (a power of two between 64 and 2^16) divides 2^24, so the mapping is
 * continuous across the PSN wrap. A slot is a byte rather than a bit: marking is then a plain
 * store with no read-modify-write chain between neighbouring PSNs (the hot operation), and
 * advancing still consumes eight slots per step by reading them as one long. Allocation-free;
 * owned by one thread.
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

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ALL_MARKED = 0x0101010101010101L;

    private final byte[] slots;
    private final int mask;
    private int base;

    /** A map tracking {@code capacity} PSNs from the expected one. */
    public ReorderBitmap(int capacity) {
        if (capacity < 64 || capacity > (1 << 16) || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("bitmap capacity " + capacity + " must be a power of two in 64..65536");
        }
        this.slots = new byte[capacity];
        this.mask = capacity - 1;
    }

    /** Clears every slot and starts the window at {@code expectedPsn}. */
    public void reset(int expectedPsn) {
        Arrays.fill(slots, (byte) 0);
        base = Psn.require(expectedPsn, "expected PSN");
    }

    /** The expected PSN: the first PSN not yet consumed. */
    public int base() {
        return base;
    }

    /** Number of PSNs the window can hold. */
    public int capacity() {
        return mask + 1;
    }

    /** Number of marked PSNs not yet consumed by {@link #advance()}; counted on demand. */
    public int marked() {
        int n = 0;
        for (byte b : slots) {
            n += b;
        }
        return n;
    }

    /** Records the arrival of {@code psn}. */
    public Mark mark(int psn) {
        byte[] s = slots;
        // Masking with length - 1 lets the JIT drop the array bounds check, and reading the
        // slot before knowing whether the PSN is in the window is harmless: one branch then
        // covers both the window and the duplicate test on the common path.
        int i = psn & (s.length - 1);
        int d = (psn - base) & Psn.MASK;
        if ((d >= s.length) | (s[i] != 0)) {
            return d >= s.length ? (d >= Psn.WINDOW ? Mark.DUPLICATE : Mark.OUT_OF_RANGE) : Mark.DUPLICATE;
        }
        s[i] = 1;
        return Mark.NEW;
    }

    /** True if {@code psn} is inside the window and marked. */
    public boolean isMarked(int psn) {
        int d = (psn - base) & Psn.MASK;
        return d <= mask && slots[psn & mask] != 0;
    }

    /**
     * Consumes the run of marked PSNs starting at the expected PSN, clears their slots and moves
     * the expected PSN past them. Returns the length of the run (0 if the expected PSN is missing).
     */
    public int advance() {
        int total = 0;
        int i = base & mask;
        while (total <= mask) {
            if ((i & 7) == 0) {
                long x = (long) LONGS.get(slots, i);
                if (x == ALL_MARKED) {
                    LONGS.set(slots, i, 0L);
                    i = (i + 8) & mask;
                    total += 8;
                    continue;
                }
                // Slots hold 0 or 1: the lowest byte equal to 0 ends the run.
                int run = Long.numberOfTrailingZeros((x ^ ALL_MARKED) & ALL_MARKED) >>> 3;
                for (int k = 0; k < run; k++) {
                    slots[i + k] = 0;
                }
                total += run;
                break;
            }
            if (slots[i] == 0) {
                break;
            }
            slots[i] = 0;
            i = (i + 1) & mask;
            total++;
        }
        base = Psn.add(base, total);
        return total;
    }

    /**
     * The first unmarked PSN at or after {@code from} within the window, or -1 if every PSN from
     * {@code from} to the end of the window is marked. Used to find holes for selective
     * retransmission.
     */
    public int nextMissing(int from) {
        int d = (from - base) & Psn.MASK;
        for (; d <= mask; d++) {
            int psn = Psn.add(base, d);
            if (slots[psn & mask] == 0) {
                return psn;
            }
        }
        return -1;
    }

    /** The highest marked PSN, or -1 if none is marked. */
    public int highestMarked() {
        for (int d = mask; d >= 0; d--) {
            int psn = Psn.add(base, d);
            if (slots[psn & mask] != 0) {
                return psn;
            }
        }
        return -1;
    }
}
