package io.rnic.transport.sim;

import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;

/**
 * Where a simulated wire sends when it is not on its network's point-to-point links: the host
 * port of a simulated fabric ({@code io.rnic.transport.fabric.Fabric}), whose switches queue,
 * mark, pause and route what the wire sends. A wire attached with an uplink
 * ({@link SimNetwork#attach(InetSocketAddress, SimUplink)}) hands every packet to it, and the
 * uplink hands what arrives for the wire to {@link SimWire#arrive}.
 */
public interface SimUplink {
    /**
     * Carries one packet from {@code from}; takes ownership of the buffer. {@code unsealed} says
     * its ICRC was not computed (the HCA offloaded it and nothing has read the bytes since).
     */
    void carry(SimWire from, ByteBuf packet, InetSocketAddress source, InetSocketAddress destination, int tos,
            boolean unsealed);

    /** True if the uplink reads a packet's bytes on the way (a capture): the wire seals a packet first. */
    boolean inspects();

    /** The rate at which an unacknowledged stream should leave (the host link's), in bits per second. */
    long paceBitsPerSecond();

    /** The DSCP the network asks its hosts to send with (see {@code PacketSink.defaultDscp}). */
    default int defaultDscp() {
        return 0;
    }

    /** True if the network marks congestion with ECN (see {@code PacketSink.ecnByDefault}). */
    default boolean ecnByDefault() {
        return false;
    }
}
