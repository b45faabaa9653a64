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

    /**
     * As {@link #onPacket(Direction, long, ByteBuf, InetSocketAddress, InetSocketAddress)}, with the
     * packet's IP TOS byte ({@code PacketSink.TOS_UNKNOWN} if the wire could not read it). Wires
     * call this one; by default it drops the TOS.
     */
    default void onPacket(Direction direction, long timestampNanos, ByteBuf packet, InetSocketAddress source,
                          InetSocketAddress destination, int tos) {
        onPacket(direction, timestampNanos, packet, source, destination);
    }
}
