package io.rnic.bench.experiment;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The bytes every flow carries, derived from (seed, flow id, offset): a tape of pseudo-random
 * bytes drawn from the seed, and flow {@code f}'s byte at offset {@code o} is the tape's byte at
 * {@code window(f) + o}, where the windows of up to 2^20 consecutive flows all start at different
 * places. Every host registers the one tape as the source of what it sends, so no flow needs
 * memory of its own to send from, and checking a destination is one comparison of two ranges
 * ({@link ByteBuffer#mismatch}).
 *
 * <p>What the check catches: a byte placed wrong or not at all. A destination block that held
 * another flow's window before holds different pseudo-random bytes at almost every offset; and
 * before a flow starts, the first and last 64 bytes of its block are set to the complement of
 * what it will carry ({@link #poison}), so a message whose first or last packet (the only ones
 * that can be short) is not placed fails too.
 */
final class PatternTape {
    /** Windows start at 2^20 different places. */
    static final int WINDOWS = 1 << 20;
    private static final int EDGE = 64;

    private final ByteBuffer tape;
    private final long offsetBase;

    /**
     * A tape for flows of up to {@code maxBytes}.
     *
     * @throws IllegalArgumentException if {@code maxBytes} does not fit one buffer with the windows
     */
    PatternTape(long seed, long maxBytes) {
        if (maxBytes < 1 || maxBytes > Integer.MAX_VALUE - WINDOWS) {
            throw new IllegalArgumentException("flows of up to " + maxBytes + " bytes: the pattern tape holds flows of up to "
                    + (Integer.MAX_VALUE - WINDOWS) + " bytes");
        }
        int length = (int) (WINDOWS + maxBytes);
        tape = ByteBuffer.allocateDirect(length);
        SplittableRandom r = new SplittableRandom(seed ^ 0x5441504554415045L);
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            tape.putLong(i, r.nextLong());
        }
        for (; i < length; i++) {
            tape.put(i, (byte) r.nextInt());
        }
        offsetBase = r.nextLong();
    }

    /** The tape, for every host to register. */
    ByteBuffer buffer() {
        return tape;
    }

    /** Where flow {@code flowId}'s window starts on the tape: an odd stride keeps 2^20 consecutive ids apart. */
    int window(int flowId) {
        return (int) ((offsetBase + (long) flowId * 0x9E3779B1L) & (WINDOWS - 1));
    }

    /** Sets the first and last 64 bytes of {@code dst[at, at + bytes)} to the complement of flow {@code flowId}'s. */
    void poison(int flowId, ByteBuffer dst, int at, int bytes) {
        int w = window(flowId);
        int head = Math.min(EDGE, bytes);
        for (int i = 0; i < head; i++) {
            dst.put(at + i, (byte) ~tape.get(w + i));
        }
        for (int i = Math.max(head, bytes - EDGE); i < bytes; i++) {
            dst.put(at + i, (byte) ~tape.get(w + i));
        }
    }

    /** True if {@code dst[at, at + bytes)} holds exactly flow {@code flowId}'s bytes. */
    boolean verify(int flowId, ByteBuffer dst, int at, int bytes) {
        int w = window(flowId);
        return tape.slice(w, bytes).mismatch(dst.slice(at, bytes)) < 0;
    }
}
