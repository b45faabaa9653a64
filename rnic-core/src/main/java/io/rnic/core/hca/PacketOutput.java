package io.rnic.core.hca;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.InetSocketAddress;

/**
 * Where the protocol core sends its packets: the wire, seen from the core (which knows nothing
 * of sockets). The verbs layer adapts a wire to it.
 */
public interface PacketOutput {
    /** The allocator for outgoing packets. */
    ByteBufAllocator allocator();

    /** Prepares a flow from {@code preferredSourcePort}; returns the source port packets will carry. */
    int openFlow(int preferredSourcePort);

    /** Sends a packet (BTH through ICRC); takes ownership of the buffer. */
    void transmit(ByteBuf packet, int sourcePort, InetSocketAddress destination);
}
