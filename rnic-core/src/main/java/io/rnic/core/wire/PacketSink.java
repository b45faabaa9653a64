package io.rnic.core.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.InetSocketAddress;

/**
 * Where the protocol core sends its packets, seen from the core, which knows nothing of sockets.
 * A wire (the simulated network, UDP) implements it and is handed to the device's HCA when the
 * device opens; nothing in between adapts it.
 */
public interface PacketSink {
    /**
     * A received packet's IP TOS byte that the wire could not read (a UDP socket without
     * {@code IP_RECVTOS}): unknown, which is not the same as 0.
     */
    int TOS_UNKNOWN = -1;
    /** The ECN field of a TOS byte (RFC 3168): its two low bits. */
    int ECN_MASK = 0b11;
    /** ECN-capable transport, ECT(0) (RFC 3168), as RoCEv2 NICs mark what they send when ECN is on. */
    int ECT0 = 0b10;
    /** Congestion experienced (RFC 3168): set by a switch that marks the packet. */
    int CE = 0b11;

    /** The allocator for outgoing packets. */
    ByteBufAllocator allocator();

    /**
     * Prepares a flow from {@code preferredSourcePort} (RoCEv2 flow entropy) and returns the
     * source port its packets will carry; the ICRC covers it. May bind a socket: call it off
     * the protocol thread when it can block.
     */
    int openFlow(int preferredSourcePort);

    /**
     * The rate, in bits per second, at which a stream of packets the sender does not clock with
     * acknowledgements (READ responses) should leave; 0 if it need not be paced. A wire says how
     * fast its path drains: a simulated link its configured rate, a UDP socket what a receiver
     * on this machine keeps up with.
     */
    default long paceBitsPerSecond() {
        return 0;
    }

    /** Sends one packet (BTH through ICRC) from {@code sourcePort}; takes ownership of the buffer. */
    void send(ByteBuf packet, int sourcePort, InetSocketAddress destination);

    /**
     * Sends one packet whose IP header carries the TOS byte {@code tos} (DSCP and ECN bits). A
     * sink that cannot set the TOS per packet sends as {@link #send(ByteBuf, int, InetSocketAddress)}
     * does, which is the default.
     */
    default void send(ByteBuf packet, int sourcePort, InetSocketAddress destination, int tos) {
        send(packet, sourcePort, destination);
    }

    /**
     * The DSCP a QP's packets carry when its address vector names no traffic class: 0, or the one
     * the network this sink is attached to asks of its hosts (a simulated fabric's RoCE class).
     */
    default int defaultDscp() {
        return 0;
    }

    /**
     * True if the network this sink is attached to marks congestion with ECN, so that a device
     * whose ECN setting is automatic sends ECN-capable packets (ECT(0)): a simulated fabric with
     * ECN on. False by default.
     */
    default boolean ecnByDefault() {
        return false;
    }

    /**
     * Asks the sink to send what it holds now rather than at the end of its cycle: the packet just
     * sent is one the application waits on (the last of a signaled work request), and the sooner
     * it leaves, the sooner its ACK comes back. A hint; by default nothing is held.
     */
    default void flushNow() {
    }

    /**
     * True if the sink offloads the ICRC, as a NIC offloads checksums and Linux's loopback skips
     * them: it takes packets whose ICRC is not computed yet ({@link #sendUnsealed}), computes it
     * wherever the packet's bytes are observed or may change on the way, and tells the receiver
     * which of the packets it delivers nothing touched ({@code WireReceiver.onIntactPacket}), so
     * that neither end spends a CRC on bytes that never left the process unobserved. A wire
     * that offers it must produce the same bytes, wherever they are seen, as one that does not.
     */
    default boolean offloadsIcrc() {
        return false;
    }

    /**
     * Sends one packet whose ICRC field is not computed yet (zero), for the sink to seal where
     * its bytes are observed; only on a sink that {@link #offloadsIcrc offloads the ICRC}.
     *
     * @throws UnsupportedOperationException if this sink does not offload the ICRC
     */
    default void sendUnsealed(ByteBuf packet, int sourcePort, InetSocketAddress destination) {
        packet.release();
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not offload the ICRC: seal packets and use send");
    }

    /**
     * As {@link #sendUnsealed(ByteBuf, int, InetSocketAddress)}, with the packet's IP TOS byte (see
     * {@link #send(ByteBuf, int, InetSocketAddress, int)}).
     */
    default void sendUnsealed(ByteBuf packet, int sourcePort, InetSocketAddress destination, int tos) {
        sendUnsealed(packet, sourcePort, destination);
    }
}
