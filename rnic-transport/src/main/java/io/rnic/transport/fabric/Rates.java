package io.rnic.transport.fabric;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Link rates and times as people write them: {@code 100G}, {@code 400Gbps}, {@code 25G},
 * {@code 100M}; {@code 1000ns}, {@code 1us}, {@code 0.001ms}. The long forms are ns-3's
 * ({@code DataRate} and {@code Time} strings), so the rate and delay columns of an HPCC topology
 * file parse as they are; the short forms ({@code G}, {@code M}, {@code K}, {@code T}) are the
 * command line's ({@code --link 100G}). Every rate is decimal (1G = 10^9 b/s) except ns-3's
 * {@code Kib/s}, {@code Mib/s} and {@code Gib/s} (and their byte forms), which are binary as in
 * ns-3. Parsing is exact (decimal arithmetic): {@code 0.001ms} is 1,000 ns, not 999.
 *
 * <p>Not for per-packet use: parsing allocates; the hot paths take the longs these return.
 */
public final class Rates {
    private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);
    private static final BigInteger EIGHT_BILLION = BigInteger.valueOf(8_000_000_000L);

    private Rates() {
    }

    /**
     * Bits per second of a rate string: a decimal number and a unit, either the short form
     * ({@code T}, {@code G}, {@code M}, {@code K}, case-insensitive: {@code 100G}) or an ns-3
     * {@code DataRate} unit ({@code bps}, {@code b/s}, {@code kbps}, {@code Kbps}, {@code Mbps},
     * {@code Gbps}, {@code Gb/s}, bytes with {@code B}: {@code GBps}, {@code GB/s}, binary with
     * {@code i}: {@code Gib/s}; and {@code Tbps}). A bare number is rejected: {@code 100} could
     * mean 100 b/s or 100 Gb/s.
     *
     * @throws IllegalArgumentException if {@code text} is not a positive whole number of bits
     *         per second in one of those forms
     */
    public static long parseRate(String text) {
        if (text == null) {
            throw new IllegalArgumentException("no rate given: use a number and G, M or K, e.g. 100G");
        }
        String s = text.strip();
        int unitAt = numberEnd(s);
        if (unitAt == 0 || unitAt == s.length()) {
            throw notRate(text);
        }
        BigDecimal number;
        try {
            number = new BigDecimal(s.substring(0, unitAt));
        } catch (NumberFormatException e) {
            throw notRate(text);
        }
        BigInteger multiplier = rateUnit(s.substring(unitAt));
        if (multiplier == null) {
            throw notRate(text);
        }
        BigDecimal bits = number.multiply(new BigDecimal(multiplier));
        if (bits.signum() <= 0) {
            throw new IllegalArgumentException("rate '" + text + "' must be more than 0 b/s");
        }
        try {
            return bits.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("rate '" + text + "' is not a whole number of bits per second below 2^63");
        }
    }

    private static IllegalArgumentException notRate(String text) {
        return new IllegalArgumentException("'" + text + "' is not a rate: use a number and G, M or K, e.g. 100G"
                + " (ns-3 forms such as 100Gbps and 10Mbps are accepted too)");
    }

    /** The unit's bits per second per 1, or null. Follows ns-3's DataRate units, plus T and the short forms. */
    private static BigInteger rateUnit(String unit) {
        switch (unit) {
            case "bps": case "b/s": return BigInteger.ONE;
            case "Bps": case "B/s": return BigInteger.valueOf(8);
            default: break;
        }
        String u = unit;
        if (u.length() == 1) {
            // The short forms of the command line: 100G, 25g, 100M, 1K, 1.6T.
            switch (Character.toUpperCase(u.charAt(0))) {
                case 'K': return BigInteger.TEN.pow(3);
                case 'M': return BigInteger.TEN.pow(6);
                case 'G': return BigInteger.TEN.pow(9);
                case 'T': return BigInteger.TEN.pow(12);
                default: return null;
            }
        }
        BigInteger prefix;
        char p = u.charAt(0);
        boolean binary = u.length() > 1 && u.charAt(1) == 'i';
        int exponent;
        switch (p) {
            case 'k': case 'K': exponent = 1; break;
            case 'M': exponent = 2; break;
            case 'G': exponent = 3; break;
            case 'T': exponent = 4; break;
            default: return null;
        }
        if (p == 'k' && binary) {
            return null; // ns-3 spells the binary kilo with a capital: Kib/s
        }
        prefix = binary ? BigInteger.valueOf(1024).pow(exponent) : BigInteger.valueOf(1000).pow(exponent);
        String rest = u.substring(binary ? 2 : 1);
        switch (rest) {
            case "bps":
                return binary ? null : prefix; // ns-3 has Kib/s but no Kibps
            case "b/s":
                return prefix;
            case "Bps":
                return binary ? null : prefix.multiply(BigInteger.valueOf(8));
            case "B/s":
                return prefix.multiply(BigInteger.valueOf(8));
            default:
                return null;
        }
    }

    /**
     * The shortest form of {@code bitsPerSecond} that {@link #parseRate} reads back exactly:
     * {@code 100G}, {@code 2500M}, {@code 10K}, or {@code 1234bps}.
     */
    public static String formatRate(long bitsPerSecond) {
        if (bitsPerSecond <= 0) {
            throw new IllegalArgumentException("rate " + bitsPerSecond + " b/s must be more than 0");
        }
        long[] units = {1_000_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
        String[] names = {"T", "G", "M", "K"};
        for (int i = 0; i < units.length; i++) {
            if (bitsPerSecond % units[i] == 0) {
                return (bitsPerSecond / units[i]) + names[i];
            }
        }
        return bitsPerSecond + "bps";
    }

    /**
     * Nanoseconds of an ns-3 time string: a decimal number and {@code s}, {@code ms},
     * {@code us}, {@code ns} or {@code ps} ({@code 1000ns}, {@code 1us}, {@code 0.001ms},
     * {@code 1s}). A bare number is rejected (ns-3 reads it as seconds, which a delay column
     * almost never means).
     *
     * @throws IllegalArgumentException if {@code text} is not a non-negative whole number of
     *         nanoseconds in one of those forms
     */
    public static long parseTimeNanos(String text) {
        if (text == null) {
            throw new IllegalArgumentException("no time given: use a number and s, ms, us or ns, e.g. 1000ns");
        }
        String s = text.strip();
        int unitAt = numberEnd(s);
        if (unitAt == 0 || unitAt == s.length()) {
            throw notTime(text);
        }
        BigDecimal number;
        try {
            number = new BigDecimal(s.substring(0, unitAt));
        } catch (NumberFormatException e) {
            throw notTime(text);
        }
        BigDecimal nanos;
        switch (s.substring(unitAt)) {
            case "s": nanos = number.multiply(NANOS_PER_SECOND); break;
            case "ms": nanos = number.movePointRight(6); break;
            case "us": nanos = number.movePointRight(3); break;
            case "ns": nanos = number; break;
            case "ps": nanos = number.movePointLeft(3); break;
            default: throw notTime(text);
        }
        if (nanos.signum() < 0) {
            throw new IllegalArgumentException("time '" + text + "' is negative");
        }
        try {
            return nanos.stripTrailingZeros().longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("time '" + text + "' is not a whole number of nanoseconds below 2^63");
        }
    }

    private static IllegalArgumentException notTime(String text) {
        return new IllegalArgumentException("'" + text + "' is not a time: use a number and s, ms, us or ns, e.g. 1000ns");
    }

    /** The shortest of {@code 1s}, {@code 5ms}, {@code 1us} or {@code 1500ns} that is exact. */
    public static String formatNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("time " + nanos + " ns is negative");
        }
        if (nanos != 0) {
            if (nanos % 1_000_000_000L == 0) {
                return nanos / 1_000_000_000L + "s";
            }
            if (nanos % 1_000_000L == 0) {
                return nanos / 1_000_000L + "ms";
            }
            if (nanos % 1_000L == 0) {
                return nanos / 1_000L + "us";
            }
        }
        return nanos + "ns";
    }

    /**
     * Bytes a link at {@code bitsPerSecond} carries in {@code nanos}, rounded up: the bytes in
     * flight on a wire of that delay, or sent during a reaction time. Exact for any inputs.
     */
    public static long bytesIn(long nanos, long bitsPerSecond) {
        if (nanos < 0 || bitsPerSecond < 0) {
            throw new IllegalArgumentException("time " + nanos + " ns and rate " + bitsPerSecond + " b/s must not be negative");
        }
        BigInteger[] qr = BigInteger.valueOf(nanos).multiply(BigInteger.valueOf(bitsPerSecond)).divideAndRemainder(EIGHT_BILLION);
        BigInteger bytes = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        return bytes.longValueExact();
    }

    /** The end of the leading decimal number in {@code s} (digits and one point). */
    private static int numberEnd(String s) {
        int i = 0;
        if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            i++;
        }
        while (i < s.length() && ((s.charAt(i) >= '0' && s.charAt(i) <= '9') || s.charAt(i) == '.')) {
            i++;
        }
        return i;
    }
}
