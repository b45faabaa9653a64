package io.rnic.core.psn;

import java.util.Arrays;

/**
 * Out-of-order reception map: one slot per PSN in a window of {@link #capacity()}
 * PSNs that starts at the expected PSN. A packet that arrives ahead of the expected PSN is
 * marked; when the expected PSN arrives, {@link #advance()} consumes the run of consecutive
 * received PSNs and moves the window, exactly like the seed's "shift right until bit 0 is
 * clear".
 *
 * <p>Slots are stored at their absolute position modulo the capacity (a power of two between 64
 * and 2^16, so it divides 2^24 and the mapping is continuous across the PSN wrap), and advancing
 * never shifts memory. An unmarked slot holds the <em>lap</em> (the PSN with its slot bits
 * cleared) of the one PSN inside the window that maps to it; a marked slot holds -1. Slot and
 * lap together name a PSN exactly, so one comparison of the slot with the arriving PSN's lap
 * answers both "is it inside the window?" and "is it new?": marking is a load, a compare and a
 * store, with no separate window test and no read-modify-write between neighbouring PSNs. The
 * price is paid when advancing: every consumed slot is rewritten with the lap of the PSN that
 * will map to it next, one constant per run (two if the run wraps the array).
 *
 * <p>Memory is four bytes per PSN of capacity. Allocation-free; owned by one thread.
 */
public final class ReorderBitmap {
    /** Outcome of {@link #mark}. */
    public enum Mark {
        /** First arrival of this PSN inside the window. */
        NEW,
        /** Already marked, or behind the window: at a serial distance of 2^23 or more ahead. */
        DUPLICATE,
        /** Too far ahead: beyond the window's capacity. */
        OUT_OF_RANGE
    }

    /** {@link #arrive} result: the PSN was already marked, or is before the window. */
    public static final int ARRIVED_DUPLICATE = -1;
    /** {@link #arrive} result: the PSN is beyond the window's capacity. */
    public static final int ARRIVED_OUT_OF_RANGE = -2;

    /** Content of a marked slot; never a lap, which is non-negative with its slot bits clear. */
    private static final int MARKED = -1;

    private final int[] slots;
    private final int mask;
    private int base;

    /** A map tracking {@code capacity} PSNs from the expected one. */
    public ReorderBitmap(int capacity) {
        if (capacity < 64 || capacity > (1 << 16) || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("bitmap capacity " + capacity + " must be a power of two in 64..65536");
        }
        this.slots = new int[capacity];
        this.mask = capacity - 1;
        reset(0);
    }

    /** Clears every slot and starts the window at {@code expectedPsn}. */
    public void reset(int expectedPsn) {
        base = Psn.require(expectedPsn, "expected PSN");
        int j = base & mask;
        int lap = base & ~mask;
        // Slots from the base's to the end hold PSNs of the base's lap; those before it, the next lap's.
        Arrays.fill(slots, j, slots.length, lap);
        Arrays.fill(slots, 0, j, nextLap(lap));
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
        for (int s : slots) {
            if (s == MARKED) {
                n++;
            }
        }
        return n;
    }

    /**
     * Records the arrival of {@code psn}.
     *
     * @throws IllegalArgumentException if {@code psn} is not a 24-bit PSN
     */
    public Mark mark(int psn) {
        int[] s = slots;
        // Masking with length - 1 lets the JIT drop the bounds check; psn ^ j is the PSN's lap.
        // A PSN wider than 24 bits has a lap no slot holds, so it also falls to the slow path.
        int j = psn & (s.length - 1);
        if (s[j] != (psn ^ j)) {
            return notNew(psn);
        }
        s[j] = MARKED;
        return Mark.NEW;
    }

    private Mark notNew(int psn) {
        Psn.require(psn, "PSN");
        int d = (psn - base) & Psn.MASK;
        if (d <= mask) {
            // Inside the window the slot holds this PSN's lap unless it is marked.
            return Mark.DUPLICATE;
        }
        return d >= Psn.WINDOW ? Mark.DUPLICATE : Mark.OUT_OF_RANGE;
    }

    /**
     * Records the arrival of {@code psn} and consumes what it put in order, in one call: the
     * seed's receive step. The expected PSN moves the window past itself and past the run marked
     * behind it; a PSN ahead of a hole is marked. Equivalent to {@link #mark} followed, for the
     * expected PSN, by {@link #advance()}, but the in-order case never marks the slot it is about
     * to consume.
     *
     * <p>If the expected PSN was already marked with {@link #mark} and not yet consumed, this
     * arrival is its duplicate and consumes nothing: {@link #advance()} does.
     *
     * @return the number of PSNs consumed: at least 1 if {@code psn} was the expected PSN, 0 if it
     *     was marked ahead of a hole; or {@link #ARRIVED_DUPLICATE} or {@link #ARRIVED_OUT_OF_RANGE}
     * @throws IllegalArgumentException if {@code psn} is not a 24-bit PSN
     */
    public int arrive(int psn) {
        int b = base;
        if (psn != b) {
            Mark marked = mark(psn);
            return marked == Mark.NEW ? 0 : marked == Mark.DUPLICATE ? ARRIVED_DUPLICATE : ARRIVED_OUT_OF_RANGE;
        }
        int[] s = slots;
        // Indices masked with length - 1, not the field, so the JIT sees they are in bounds.
        int m = s.length - 1;
        int j = b & m;
        if (s[j] == MARKED) {
            return ARRIVED_DUPLICATE;
        }
        if (s[(j + 1) & m] != MARKED) {
            s[j] = nextLap(b ^ j);
            base = Psn.next(b);
            return 1;
        }
        s[j] = MARKED;
        return advance();
    }

    /** True if {@code psn} is inside the window and marked. */
    public boolean isMarked(int psn) {
        int d = (Psn.require(psn, "PSN") - base) & Psn.MASK;
        return d <= mask && slots[psn & mask] == MARKED;
    }

    /**
     * Consumes the run of marked PSNs starting at the expected PSN, readies their slots for the
     * PSNs that map to them next and moves the expected PSN past them. Returns the length of the
     * run (0 if the expected PSN is missing).
     */
    public int advance() {
        int[] s = slots;
        int m = s.length - 1;
        int b = base;
        int j = b & m;
        if (s[j] != MARKED) {
            return 0;
        }
        int lap = nextLap(b ^ j);
        if (s[(j + 1) & m] != MARKED) {
            // A run of one, the common case: only the expected PSN itself.
            s[j] = lap;
            base = Psn.next(b);
            return 1;
        }
        int end = runEnd(s, j + 1, s.length);
        Arrays.fill(s, j, end, lap);
        int n = end - j;
        if (end == s.length) {
            // The run reached the end of the array and continues at slot 0, one lap later.
            int wrapped = runEnd(s, 0, j);
            Arrays.fill(s, 0, wrapped, nextLap(lap));
            n += wrapped;
        }
        base = Psn.add(b, n);
        return n;
    }

    /**
     * Moves the expected PSN forward to {@code psn} without consuming a run: the PSNs passed over
     * were taken in order elsewhere (the responder accepted them as they came, or a READ request
     * used up its response PSNs). Any marks among them are forgotten.
     *
     * @throws IllegalArgumentException if {@code psn} is not a 24-bit PSN or is behind the window
     */
    public void skipTo(int psn) {
        int d = (Psn.require(psn, "PSN") - base) & Psn.MASK;
        if (d >= Psn.WINDOW) {
            throw new IllegalArgumentException("PSN " + psn + " is behind the window's start " + base);
        }
        if (d > mask) {
            reset(psn);
            return;
        }
        for (int i = 0; i < d; i++) {
            int q = Psn.add(base, i);
            int j = q & mask;
            slots[j] = nextLap(q ^ j);
        }
        base = psn;
    }

    /** The first index in [from, to) whose slot is not marked, or {@code to}. */
    private static int runEnd(int[] s, int from, int to) {
        int k = from;
        while (k < to && s[k] == MARKED) {
            k++;
        }
        return k;
    }

    private int nextLap(int lap) {
        return (lap + mask + 1) & Psn.MASK;
    }

    /**
     * The first unmarked PSN at or after {@code from} within the window, or -1 if every PSN from
     * {@code from} to the end of the window is marked or {@code from} is outside the window. Used
     * to find holes for selective retransmission.
     */
    public int nextMissing(int from) {
        int d = (Psn.require(from, "PSN") - base) & Psn.MASK;
        for (; d <= mask; d++) {
            int psn = Psn.add(base, d);
            if (slots[psn & mask] != MARKED) {
                return psn;
            }
        }
        return -1;
    }

    /** The highest marked PSN, or -1 if none is marked. */
    public int highestMarked() {
        for (int d = mask; d >= 0; d--) {
            int psn = Psn.add(base, d);
            if (slots[psn & mask] == MARKED) {
                return psn;
            }
        }
        return -1;
    }
}
