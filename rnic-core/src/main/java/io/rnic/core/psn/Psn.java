package io.rnic.core.psn;

/**
 * 24-bit packet sequence number arithmetic on plain ints (reference §5.1). A PSN is in
 * {@code 0..0xFFFFFF}; comparisons are serial: {@code a} is after {@code b} when
 * {@code (a - b) mod 2^24} is in {@code 1..2^23-1}. A distance of exactly 2^23 counts as
 * "before", as in rxe's {@code psn_compare}.
 */
public final class Psn {
    /** The mask of a 24-bit PSN. */
    public static final int MASK = 0xFFFFFF;
    /** Number of distinct PSNs. */
    public static final int MODULUS = 1 << 24;
    /** Size of the valid (and of the duplicate) region: 2^23 PSNs. */
    public static final int WINDOW = 1 << 23;

    private Psn() {
    }

    /** {@code psn + n} modulo 2^24; {@code n} may be negative. */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /** The PSN after {@code psn}. */
    public static int next(int psn) {
        return (psn + 1) & MASK;
    }

    /** Signed serial distance {@code a - b}, in {@code -2^23 .. 2^23-1}. */
    public static int diff(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /** Unsigned forward distance from {@code from} to {@code to}, in {@code 0 .. 2^24-1}. */
    public static int forward(int from, int to) {
        return (to - from) & MASK;
    }

    /** Negative, zero or positive as {@code a} is before, equal to or after {@code b}. */
    public static int compare(int a, int b) {
        return (a - b) << 8;
    }

    /** True if {@code a} comes after {@code b}. */
    public static boolean isAfter(int a, int b) {
        return ((a - b) << 8) > 0;
    }

    /** True if {@code a} comes before {@code b}. */
    public static boolean isBefore(int a, int b) {
        return ((a - b) << 8) < 0;
    }

    /** True if {@code psn} lies in the {@code size} PSNs starting at {@code base}. */
    public static boolean inWindow(int psn, int base, int size) {
        return ((psn - base) & MASK) < size;
    }

    /** True if {@code psn} is a valid 24-bit value. */
    public static boolean isValid(int psn) {
        return (psn & ~MASK) == 0;
    }

    /**
     * Checks an application-supplied PSN.
     *
     * @throws IllegalArgumentException naming {@code what} if {@code psn} exceeds 24 bits
     */
    public static int require(int psn, String what) {
        if (!isValid(psn)) {
            throw new IllegalArgumentException(what + " " + psn + " is not a 24-bit PSN (0.." + MASK + ")");
        }
        return psn;
    }
}
