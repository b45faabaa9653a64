package io.rnic.transport.fabric;

/**
 * What the PFC frames an egress port has received say: per priority, the time until which
 * the port must not transmit that priority. IEEE 802.1Qbb semantics: a frame's pause time, in
 * quanta of 512 bit times at the link rate, replaces the priority's timer (extending or
 * shortening the pause), and 0 resumes it at once. Because every pause expires, a lost RESUME
 * stalls a port for at most one pause time (335.5 µs at 100 Gb/s for 0xFFFF quanta).
 *
 * <p>Only the priorities in the honoured mask react (the lossless ones: "the others never send
 * or honour PAUSE", issue 41); frames for the others are counted as ignored.
 *
 * <p><b>Counters</b>, per priority: PAUSE frames received with a non-zero time, RESUMEs (zero
 * time), ignored frames, and total paused time, time-weighted and exact: each pause interval
 * is closed when the state changes, and the open one is added up to the time of reading.
 *
 * <p>Time is passed in (virtual nanoseconds), never read from a clock. Allocation-free.
 */
final class PauseState {
    private static final int PRIORITIES = 8;

    private final int honouredMask;
    /** The current (or last) pause interval of each priority: [start, until); paused iff now < until. */
    private final long[] start = new long[PRIORITIES];
    private final long[] until = new long[PRIORITIES];
    private final long[] closedPausedNanos = new long[PRIORITIES];
    private final long[] pauses = new long[PRIORITIES];
    private final long[] resumes = new long[PRIORITIES];
    private final long[] ignored = new long[PRIORITIES];
    private long lastNow = Long.MIN_VALUE;

    /** @param honouredMask bit p set: priority p honours PAUSE (the lossless priorities) */
    PauseState(int honouredMask) {
        if ((honouredMask & ~0xFF) != 0) {
            throw new IllegalArgumentException("honoured priority mask 0x" + Integer.toHexString(honouredMask) + " names priorities above 7");
        }
        this.honouredMask = honouredMask;
    }

    /**
     * Applies a received PFC frame at {@code nowNanos} on a link of {@code bitsPerSecond}: for
     * each priority enabled in {@code enableMask}, a pause of {@code quanta[p]} quanta from now,
     * or a resume if that is 0.
     *
     * @throws IllegalArgumentException if time runs backwards or an argument is out of range
     */
    void apply(int enableMask, int[] quanta, long nowNanos, long bitsPerSecond) {
        checkTime(nowNanos);
        if ((enableMask & ~0xFF) != 0) {
            throw new IllegalArgumentException("class-enable vector 0x" + Integer.toHexString(enableMask) + " names priorities above 7");
        }
        for (int p = 0; p < PRIORITIES; p++) {
            if ((enableMask >>> p & 1) == 0) {
                continue;
            }
            if ((honouredMask >>> p & 1) == 0) {
                ignored[p]++;
                continue;
            }
            int q = quanta[p];
            if (q == 0) {
                resumes[p]++;
                if (until[p] > nowNanos) {
                    until[p] = nowNanos;
                }
            } else {
                pauses[p]++;
                long end = nowNanos + PfcFrame.quantaToNanos(q, bitsPerSecond);
                if (until[p] > nowNanos) {
                    until[p] = end; // still paused: the new time replaces the timer
                } else {
                    closedPausedNanos[p] += until[p] - start[p];
                    start[p] = nowNanos;
                    until[p] = end;
                }
            }
        }
    }

    private void checkTime(long nowNanos) {
        if (nowNanos < lastNow) {
            throw new IllegalArgumentException("time ran backwards: " + nowNanos + " ns after " + lastNow + " ns");
        }
        lastNow = nowNanos;
    }

    /** Whether {@code priority} may not transmit at {@code nowNanos}. */
    boolean isPaused(int priority, long nowNanos) {
        return nowNanos < until[priority];
    }

    /** The priorities paused at {@code nowNanos}, as a bit mask (for {@link EgressScheduler}). */
    int pausedMask(long nowNanos) {
        int m = 0;
        for (int p = 0; p < PRIORITIES; p++) {
            if (nowNanos < until[p]) {
                m |= 1 << p;
            }
        }
        return m;
    }

    /**
     * When the earliest pause in force at {@code nowNanos} expires, or {@link Long#MAX_VALUE}
     * if none is: the time to schedule the port's next look at its queues.
     */
    long nextExpiry(long nowNanos) {
        long next = Long.MAX_VALUE;
        for (int p = 0; p < PRIORITIES; p++) {
            if (until[p] > nowNanos && until[p] < next) {
                next = until[p];
            }
        }
        return next;
    }

    /**
     * When the current pause of {@code priority} began, if it is paused at {@code nowNanos}
     * (a pause refreshed before it expired is one pause), else -1: what {@link PfcWatchdog} reads.
     */
    long pausedSince(int priority, long nowNanos) {
        return nowNanos < until[priority] ? start[priority] : -1;
    }

    /** Total time {@code priority} has been paused up to {@code nowNanos}. */
    long pausedNanos(int priority, long nowNanos) {
        long open = Math.min(nowNanos, until[priority]) - start[priority];
        return closedPausedNanos[priority] + Math.max(0, open);
    }

    /** PAUSE frames (non-zero time) received for {@code priority}. */
    long pausesReceived(int priority) {
        return pauses[priority];
    }

    /** RESUME frames (zero time) received for {@code priority}. */
    long resumesReceived(int priority) {
        return resumes[priority];
    }

    /** Frames for {@code priority} ignored because it does not honour PAUSE (a lossy priority). */
    long ignoredFrames(int priority) {
        return ignored[priority];
    }
}
