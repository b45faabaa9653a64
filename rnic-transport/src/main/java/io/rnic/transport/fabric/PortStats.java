package io.rnic.transport.fabric;

import java.util.List;

/**
 * What one port of a fabric node counted, as a snapshot: frames and bytes sent, and per priority
 * (traffic class) the drops, ECN marks, PAUSE and RESUME frames sent, PAUSEs received, time
 * paused and the deepest its queue got.
 *
 * @param node           the node's id in the topology
 * @param port           the port's index on the node
 * @param peer           the node at the link's other end
 * @param host           true if the node is a host (the port is its NIC)
 * @param bitsPerSecond  the link's rate
 * @param txFrames       frames put on the link, PFC frames included
 * @param txBytes        their bytes (whole frames, FCS included)
 * @param queues         the eight priorities, 0 to 7
 */
public record PortStats(int node, int port, int peer, boolean host, long bitsPerSecond, long txFrames, long txBytes,
                        List<QueueStats> queues) {
    /**
     * One priority of a port.
     *
     * @param priority       the priority (traffic class), 0 to 7
     * @param txFrames       frames of this priority put on the link
     * @param drops          frames dropped at this queue: buffer admission, RED on a non-ECT lossy
     *                       frame, or a PFC watchdog's mitigation
     * @param ecnMarks       frames marked CE here
     * @param pausesSent     PAUSE frames this port sent its neighbour for this priority
     * @param resumesSent    RESUME frames (pause time 0) it sent
     * @param pausesReceived PAUSE frames it received from its neighbour
     * @param pausedNanos    virtual time this priority spent paused by the neighbour
     * @param maxQueueBytes  the deepest the queue got, in bytes
     * @param watchdogDrops  frames the PFC watchdog dropped while it ignored a PAUSE storm
     */
    public record QueueStats(int priority, long txFrames, long drops, long ecnMarks, long pausesSent, long resumesSent,
                             long pausesReceived, long pausedNanos, long maxQueueBytes, long watchdogDrops) {
    }

    /** Drops over all priorities. */
    public long drops() {
        return queues.stream().mapToLong(QueueStats::drops).sum();
    }

    /** ECN marks over all priorities. */
    public long ecnMarks() {
        return queues.stream().mapToLong(QueueStats::ecnMarks).sum();
    }

    /** PAUSE frames sent over all priorities. */
    public long pausesSent() {
        return queues.stream().mapToLong(QueueStats::pausesSent).sum();
    }

    /** PAUSE frames received over all priorities. */
    public long pausesReceived() {
        return queues.stream().mapToLong(QueueStats::pausesReceived).sum();
    }

    /** The longest any priority of the port was paused, in virtual nanoseconds. */
    public long pausedNanos() {
        return queues.stream().mapToLong(QueueStats::pausedNanos).max().orElse(0);
    }

    /** The deepest any priority's queue got, in bytes. */
    public long maxQueueBytes() {
        return queues.stream().mapToLong(QueueStats::maxQueueBytes).max().orElse(0);
    }
}
