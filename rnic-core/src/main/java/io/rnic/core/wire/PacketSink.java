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
}
