package io.rnic.core.hca;

/**
 * The knobs of seed 002's loss recovery (the QP's loss recovery mode): how much a
 * responder may hold out of order, and when a hole is declared lost instead of late.
 *
 * @param reorderPackets   requests one QP may hold ahead of its expected PSN, and the span of PSNs
 *                         ahead of it that are tracked (a power of two, 64 to 65536)
 * @param reorderBytes     bytes of held packets all QPs of the HCA together may keep
 * @param holeTimeoutNanos a hole unfilled this long after it opened is treated as a loss (in the
 *                         HCA scheduler's time, virtual on the simulated network)
 * @param holeRun          a hole with this many later packets received behind it is treated as a
 *                         loss at once
 */
public record RecoveryTuning(int reorderPackets, long reorderBytes, long holeTimeoutNanos, int holeRun) {
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
    }

    /**
     * 256 packets per QP, 64 MiB per HCA, a hole is lost after 100 µs or behind 8 later packets:
     * short enough to beat a millisecond ACK timeout, long enough that a packet overtaken by a
     * few others is not resent.
     *
     * @return the defaults
     */
    public static RecoveryTuning defaults() {
        return new RecoveryTuning(256, 64L << 20, 100_000, 8);
    }
}
