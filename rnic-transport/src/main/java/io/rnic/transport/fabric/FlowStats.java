package io.rnic.transport.fabric;

/**
 * What reached a host of one flow (one source port from one host to another's UDP port): its
 * bytes and frames, and when the first and the last of them arrived, in virtual nanoseconds.
 *
 * @param srcHost       the sending host's node id
 * @param dstHost       the receiving host's node id
 * @param sourcePort    the UDP source port, RoCEv2's flow entropy (one per QP pair)
 * @param destPort      the UDP destination port (4791)
 * @param frames        data frames delivered
 * @param bytes         RoCEv2 bytes delivered (BTH through ICRC)
 * @param firstNanos    the first delivery
 * @param lastNanos     the last delivery
 */
public record FlowStats(int srcHost, int dstHost, int sourcePort, int destPort, long frames, long bytes,
                        long firstNanos, long lastNanos) {
}
