package io.rnic.core.hca;

/**
 * The knobs of the loss recovery modes (the QP's {@code LossRecovery}): how much a
 * responder may hold out of order, when a hole is declared lost instead of late, and the
 * extended protocol's short retransmission timeout for a lost tail.
 *
 * @param reorderPackets   requests one QP may hold ahead of its expected PSN, and the span of PSNs
 *                         ahead of it that are tracked (a power of two, 64 to 65536)
 * @param reorderBytes     bytes of held packets all QPs of the HCA together may keep
 * @param holeTimeoutNanos a hole unfilled this long after it opened is treated as a loss (in the
 *                         HCA scheduler's time, virtual on the simulated network)
 * @param holeRun          a hole with this many later packets received behind it is treated as a
 *                         loss at once
 * @param rtoLowNanos      IRN's RTO_low, for QPs in the extended protocol
 *                         ({@code LossRecovery.SELECTIVE}) only: while at most {@code rtoLowPackets}
 *                         PSNs are in flight, the local ACK timeout is this much instead of
 *                         4.096 µs × 2^timeout (when shorter). A lost last packet has no later
 *                         packet to reveal it to the responder, so only a timeout finds it; with
 *                         few packets in flight nothing is queued ahead of their ACK, so the
 *                         timeout can be short. It applies once per forward progress: if the
 *                         packets it sent again draw no answer either, the next timeout is the
 *                         normal one, so a peer that is slow rather than lossy costs one early
 *                         retransmission and one retry of {@code retry_cnt}, never all of them.
 *                         In the HCA scheduler's time. 0 turns it off; {@link #RTO_LOW_BY_WIRE}
 *                         (the default) takes the wire's: {@link #VIRTUAL_TIME_RTO_LOW_NANOS} on
 *                         the simulated network, {@link #REAL_TIME_RTO_LOW_NANOS} on the UDP wire
 * @param rtoLowPackets    the most PSNs in flight for which {@code rtoLowNanos} applies, at least 1
 */
public record RecoveryTuning(int reorderPackets, long reorderBytes, long holeTimeoutNanos, int holeRun,
                             long rtoLowNanos, int rtoLowPackets) {
    /** {@link #rtoLowNanos} that takes the wire's default: virtual or real time. */
    public static final long RTO_LOW_BY_WIRE = -1;
    /**
     * RTO_low on a wire in virtual time (the simulated network): IRN's 100 µs, 25 round trips of
     * the default 2 µs links, and a few times a full window's wait in a 10 Gb/s link's queue.
     */
    public static final long VIRTUAL_TIME_RTO_LOW_NANOS = 100_000;
    /**
     * RTO_low on a wire in real time (UDP): 1 ms. There the timer counts the host's time, and an
     * ACK's round trip through two emulated HCAs is the JVMs' and the kernel's: on loopback on
     * the project's two-core VM, with other builds running, an atomic's round trip
     * ({@code rnic perf atomic_lat --loopback -n 5000}) took 42 µs at least, 286 µs typically,
     * 434 µs on average and 4.2 ms at the 99th percentile. IRN's 100 µs would fire before most
     * ACKs there (each time one retransmission of the few packets in flight, answered as
     * duplicates, and one retry spent); a millisecond fires only for the slow tail of round trips
     * and still repairs a lost last packet 67 times sooner than the default ACK timeout (14:
     * 67 ms). On a quiet host with a fast path, a lower value ({@link #withRtoLow}) repairs sooner.
     */
    public static final long REAL_TIME_RTO_LOW_NANOS = 1_000_000;
    /** IRN's N: RTO_low applies while at most 3 packets are in flight. */
    public static final int DEFAULT_RTO_LOW_PACKETS = 3;

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException if one is out of range
     */
    public RecoveryTuning {
        if (reorderPackets < 64 || reorderPackets > (1 << 16) || Integer.bitCount(reorderPackets) != 1) {
            throw new IllegalArgumentException("reorder buffer of " + reorderPackets
                    + " packets: must be a power of two in 64..65536 (it is also the tracked PSN span)");
        }
        if (reorderBytes < 0 || holeTimeoutNanos < 1 || holeRun < 1) {
            throw new IllegalArgumentException("reorder bytes must be >= 0, hole timeout and hole run >= 1: " + this);
        }
        if ((rtoLowNanos < 0 && rtoLowNanos != RTO_LOW_BY_WIRE) || rtoLowPackets < 1) {
            throw new IllegalArgumentException("RTO_low must be >= 0 (0: off; -1: the wire's) and apply to at least 1 "
                    + "packet in flight: " + this);
        }
    }

    /**
     * The reorder and hole settings with the default RTO_low: the wire's
     * ({@link #RTO_LOW_BY_WIRE}), while at most {@link #DEFAULT_RTO_LOW_PACKETS} PSNs are in flight.
     *
     * @param reorderPackets   requests one QP may hold ahead of its expected PSN
     * @param reorderBytes     bytes of held packets all QPs of the HCA together may keep
     * @param holeTimeoutNanos a hole unfilled this long is treated as a loss
     * @param holeRun          a hole with this many later packets behind it is treated as a loss
     * @throws IllegalArgumentException if one is out of range
     */
    public RecoveryTuning(int reorderPackets, long reorderBytes, long holeTimeoutNanos, int holeRun) {
        this(reorderPackets, reorderBytes, holeTimeoutNanos, holeRun, RTO_LOW_BY_WIRE, DEFAULT_RTO_LOW_PACKETS);
    }

    /**
     * 256 packets per QP, 64 MiB per HCA, a hole is lost after 100 µs or behind 8 later packets:
     * short enough to beat a millisecond ACK timeout, long enough that a packet overtaken by a
     * few others is not resent; RTO_low the wire's (100 µs in virtual time, 1 ms in real time)
     * while at most 3 PSNs are in flight.
     *
     * @return the defaults
     */
    public static RecoveryTuning defaults() {
        return new RecoveryTuning(256, 64L << 20, 100_000, 8);
    }

    /**
     * The RTO_low in force on a wire whose time is virtual or real.
     *
     * @param virtualTime whether the HCA's scheduler runs in virtual time
     * @return the timeout in nanoseconds, 0 if off
     */
    public long rtoLowNanos(boolean virtualTime) {
        if (rtoLowNanos != RTO_LOW_BY_WIRE) {
            return rtoLowNanos;
        }
        return virtualTime ? VIRTUAL_TIME_RTO_LOW_NANOS : REAL_TIME_RTO_LOW_NANOS;
    }

    /**
     * These settings with another RTO_low.
     *
     * @param nanos   the short timeout, 0 to turn it off, {@link #RTO_LOW_BY_WIRE} for the wire's
     * @param packets the most PSNs in flight for which it applies
     * @return the new settings
     * @throws IllegalArgumentException if one is out of range
     */
    public RecoveryTuning withRtoLow(long nanos, int packets) {
        return new RecoveryTuning(reorderPackets, reorderBytes, holeTimeoutNanos, holeRun, nanos, packets);
    }
}
