package io.rnic.transport.fabric;

/**
 * The PFC watchdog switches ship against PAUSE storms (a host or switch that keeps sending
 * PAUSE stalls its neighbour's lossless queue, and the stall spreads): per priority of one
 * egress port, three phases, as Juniper's and SONiC's watchdogs describe them.
 * <ol>
 *   <li><b>Detection:</b> the priority has been paused continuously for at least the
 *       detection time T.</li>
 *   <li><b>Mitigation:</b> for the recovery time the queue no longer honours PAUSE, and its
 *       packets are dropped (flushed, and new ones dropped) instead of waiting, and counted.</li>
 *   <li><b>Restoration:</b> after the recovery time the queue honours PAUSE again; if the storm
 *       goes on it is detected again T later.</li>
 * </ol>
 * Real watchdogs poll (Juniper: every 100 ms, detection after 2 polls, 200 ms recovery); this
 * one is exact in virtual time: {@link #nextDeadline} says when the next transition can happen,
 * so the caller schedules one timer, not a poll. A pure state machine: time and the pause
 * state are passed in. Allocation-free.
 */
final class PfcWatchdog {
    private static final int PRIORITIES = 8;

    private final long detectNanos;
    private final long recoveryNanos;
    /** End of the current mitigation, or Long.MIN_VALUE when honouring PAUSE. */
    private final long[] mitigatingUntil = new long[PRIORITIES];
    /** When the last mitigation ended: a pause that began before it counts from it. */
    private final long[] restoredAt = new long[PRIORITIES];
    private final long[] storms = new long[PRIORITIES];
    private final long[] drops = new long[PRIORITIES];

    /**
     * @param detectNanos   T: how long a priority must be paused without a break to be a storm
     * @param recoveryNanos how long a detected queue ignores PAUSE and drops
     */
    PfcWatchdog(long detectNanos, long recoveryNanos) {
        if (detectNanos <= 0 || recoveryNanos <= 0) {
            throw new IllegalArgumentException("watchdog detection time " + detectNanos + " ns and recovery time "
                    + recoveryNanos + " ns must be positive");
        }
        this.detectNanos = detectNanos;
        this.recoveryNanos = recoveryNanos;
        java.util.Arrays.fill(mitigatingUntil, Long.MIN_VALUE);
        java.util.Arrays.fill(restoredAt, Long.MIN_VALUE);
    }

    /**
     * Advances {@code priority}'s state to {@code nowNanos} and returns whether it is mitigating
     * (ignore PAUSE, drop the queue's packets).
     *
     * @param pausedSince when the priority's current pause began, or -1 if it is not paused
     *                    ({@link PauseState#pausedSince})
     */
    boolean update(int priority, long pausedSince, long nowNanos) {
        long until = mitigatingUntil[priority];
        if (until != Long.MIN_VALUE) {
            if (nowNanos < until) {
                return true;
            }
            mitigatingUntil[priority] = Long.MIN_VALUE;
            restoredAt[priority] = until;
        }
        if (pausedSince >= 0) {
            long since = Math.max(pausedSince, restoredAt[priority]);
            if (nowNanos - since >= detectNanos) {
                storms[priority]++;
                // Detection is exact: the storm began T after the pause did (or after the last
                // restoration), even if the caller looks later.
                long detectedAt = since + detectNanos;
                mitigatingUntil[priority] = detectedAt + recoveryNanos;
                if (nowNanos < mitigatingUntil[priority]) {
                    return true;
                }
                // Looked so late that the whole mitigation is over: restored at its end.
                mitigatingUntil[priority] = Long.MIN_VALUE;
                restoredAt[priority] = detectedAt + recoveryNanos;
            }
        }
        return false;
    }

    /** Whether {@code priority} was mitigating at the last {@link #update}, and still is at {@code nowNanos}. */
    boolean isMitigating(int priority, long nowNanos) {
        return mitigatingUntil[priority] != Long.MIN_VALUE && nowNanos < mitigatingUntil[priority];
    }

    /**
     * When {@code priority}'s state can next change, given its pause state at the last
     * {@link #update}: the end of the mitigation, or the moment a continuing pause becomes a
     * storm; {@link Long#MAX_VALUE} if nothing is pending.
     */
    long nextDeadline(int priority, long pausedSince) {
        if (mitigatingUntil[priority] != Long.MIN_VALUE) {
            return mitigatingUntil[priority];
        }
        if (pausedSince < 0) {
            return Long.MAX_VALUE;
        }
        return Math.max(pausedSince, restoredAt[priority]) + detectNanos;
    }

    /** Counts a packet of {@code priority} dropped because the queue is mitigating. */
    void countDrop(int priority) {
        drops[priority]++;
    }

    /** Storms detected on {@code priority}. */
    long stormsDetected(int priority) {
        return storms[priority];
    }

    /** Packets of {@code priority} dropped while mitigating. */
    long drops(int priority) {
        return drops[priority];
    }

    long detectNanos() {
        return detectNanos;
    }

    long recoveryNanos() {
        return recoveryNanos;
    }
}
