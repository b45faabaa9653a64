package io.rnic.core.wire;

import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;

/** Observes the packets a wire carries; used for capture. Must not modify or release the buffer. */
@FunctionalInterface
public interface WireTap {
    /** Which way a tapped packet was travelling relative to the wire's HCA. */
    enum Direction { SENT, RECEIVED }

    /**
     * Called for every packet, with the wire's time in nanoseconds (virtual on the simulated
     * network, wall-clock epoch nanoseconds on UDP).
     */
    void onPacket(Direction direction, long timestampNanos, ByteBuf packet,
                  InetSocketAddress source, InetSocketAddress destination);
}
