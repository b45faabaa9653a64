package io.rnic.transport.sim;

/**
 * Default properties of new simulated links.
 *
 * @param latencyNanos    one-way propagation delay
 * @param bitsPerSecond   serialization rate, 0 for infinitely fast
 * @param queueLimitBytes bytes waiting for serialization before tail drop, 0 for unlimited
 */
public record LinkConfig(long latencyNanos, long bitsPerSecond, long queueLimitBytes) {
    /** 1 µs latency, 100 Gb/s, 1 MiB queue: a small datacenter link. */
    public static final LinkConfig DEFAULT = new LinkConfig(1_000, 100_000_000_000L, 1 << 20);

    public LinkConfig {
        if (latencyNanos < 0 || bitsPerSecond < 0 || queueLimitBytes < 0) {
            throw new IllegalArgumentException("link latency, bandwidth and queue limit must not be negative: "
                    + latencyNanos + " ns, " + bitsPerSecond + " b/s, " + queueLimitBytes + " bytes");
        }
    }
}
