package io.rnic.transport.sim;

/** A simulated link between two HCAs: one {@link LinkDirection} each way. */
public final class Link {
    private final LinkDirection ab;
    private final LinkDirection ba;

    Link(LinkDirection ab, LinkDirection ba) {
        this.ab = ab;
        this.ba = ba;
    }

    /** The direction carrying packets from {@code from}. */
    public LinkDirection from(SimWire from) {
        if (ab.from() == from) {
            return ab;
        }
        if (ba.from() == from) {
            return ba;
        }
        throw new IllegalArgumentException(from + " is not an end of this link");
    }

    void releaseHeldOnClose() {
        ab.releaseHeldOnClose();
        ba.releaseHeldOnClose();
    }

    /** Applies {@code config} to both directions. */
    public Link configure(LinkConfig config) {
        for (LinkDirection d : new LinkDirection[] {ab, ba}) {
            d.latencyNanos(config.latencyNanos()).bitsPerSecond(config.bitsPerSecond()).queueLimitBytes(config.queueLimitBytes());
        }
        return this;
    }
}
