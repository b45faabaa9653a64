package io.rnic.bench.workload;

/**
 * One flow of a workload: a message of {@code bytes} from host {@code src} to host {@code dst},
 * arriving {@code startNanos} after the workload starts.
 *
 * @param id         its index in the workload, in arrival order
 * @param src        the sending host's node id (where the bytes come from)
 * @param dst        the receiving host's node id (where they are placed)
 * @param priority   its PFC priority (HPCC's {@code pg}; 3, the lossless one, by default)
 * @param bytes      the message's size, 1 to 2^31 - 1
 * @param startNanos when it arrives, relative to the workload's start
 * @param incast     true for a flow of an incast burst (HPCC's destination port 200), false for
 *                   the background workload (port 100)
 */
public record FlowSpec(int id, int src, int dst, int priority, long bytes, long startNanos, boolean incast) {
    /** The largest message: an RC message's length is at most 2^31 - 1 bytes. */
    public static final long MAX_BYTES = Integer.MAX_VALUE;

    /** Checks the values. */
    public FlowSpec {
        if (src == dst || src < 0 || dst < 0) {
            throw new IllegalArgumentException("flow " + id + ": source " + src + " and destination " + dst
                    + " must be two different hosts");
        }
        if (bytes < 1 || bytes > MAX_BYTES) {
            throw new IllegalArgumentException("flow " + id + ": " + bytes + " bytes is outside 1.." + MAX_BYTES);
        }
        if (priority < 0 || priority > 7) {
            throw new IllegalArgumentException("flow " + id + ": priority " + priority + " is outside 0..7");
        }
        if (startNanos < 0) {
            throw new IllegalArgumentException("flow " + id + ": start " + startNanos + " ns is negative");
        }
    }

    /** This flow with another id. */
    FlowSpec withId(int newId) {
        return new FlowSpec(newId, src, dst, priority, bytes, startNanos, incast);
    }
}
