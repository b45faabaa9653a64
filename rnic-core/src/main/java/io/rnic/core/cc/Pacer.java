package io.rnic.core.cc;

/**
 * Spaces data packets at a rate: the packet that left at t with b bytes lets the next one leave
 * at t + 8·b/R, R being the rate in force when the next one is considered (so a rate change
 * during the gap re-times it, as {@code RdmaHw::ChangeRate} does in HPCC's simulator, and as the
 * DCQCN authors' simulator does by pacing on the packet just sent).
 *
 * <p>Times are whole nanoseconds but the gap is not: at 30 Gb/s a 1000-byte packet takes
 * 266.67 ns. The earliest departure is rounded up to a whole nanosecond, and a packet that
 * leaves at that rounded time is counted as having left at the exact (fractional) allowed time,
 * so the rounding does not accumulate: a sender that always sends when allowed averages exactly
 * R. A packet that leaves later than allowed restarts the spacing from its real departure (idle
 * time earns no burst); so does one that leaves early (a sender that ignored the answer).
 *
 * <p>The departure is kept as whole nanoseconds plus a fraction in [0, 1), so the precision of
 * the fraction does not degrade as time grows; an offset within 10<sup>−9</sup> ns of a whole
 * nanosecond counts as that nanosecond, so that floating-point noise in a gap that should come
 * out whole (3 × 266.67 = 800) does not push a departure one nanosecond late.
 */
final class Pacer {
    private static final double NANOS_PER_SECOND = 1e9;
    private static final double WHOLE = 1e-9;

    private boolean sent;
    private long baseNanos;
    /** The fractional part of the previous departure, in [0, 1). */
    private double baseFraction;
    private double lastBits;

    /** The earliest whole nanosecond, at or after {@code now}, the next packet may leave at {@code rateBps}. */
    long earliest(long now, double rateBps) {
        if (!sent) {
            return now;
        }
        long allowed = baseNanos + ceil(offset(rateBps));
        return Math.max(now, allowed);
    }

    /** A packet of {@code bytes} left at {@code now}, the rate in force being {@code rateBps}. */
    void sent(long now, int bytes, double rateBps) {
        if (sent) {
            double offset = offset(rateBps);
            if (now == baseNanos + ceil(offset)) {
                long whole = floor(offset);
                baseNanos += whole;
                baseFraction = Math.max(0, offset - whole);
            } else {
                baseNanos = now;
                baseFraction = 0;
            }
        } else {
            baseNanos = now;
            baseFraction = 0;
            sent = true;
        }
        lastBits = 8.0 * bytes;
    }

    /** When the next packet may leave, in nanoseconds after {@code baseNanos}. */
    private double offset(double rateBps) {
        return baseFraction + lastBits * NANOS_PER_SECOND / rateBps;
    }

    private static long ceil(double x) {
        long nearest = Math.round(x);
        return Math.abs(x - nearest) < WHOLE ? nearest : (long) Math.ceil(x);
    }

    private static long floor(double x) {
        long nearest = Math.round(x);
        return Math.abs(x - nearest) < WHOLE ? nearest : (long) Math.floor(x);
    }
}
