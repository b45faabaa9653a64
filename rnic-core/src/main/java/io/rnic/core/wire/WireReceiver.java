package io.rnic.core.wire;

import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;

/** Receives packets from a {@link Wire}. */
@FunctionalInterface
public interface WireReceiver {
    /**
     * Handles one packet (BTH through ICRC, the buffer's readable bytes). The buffer is borrowed:
     * the wire releases it after this method returns; {@code retain()} it to keep it.
     * {@code source} carries the sender's IP and UDP source port, which the ICRC covers.
     * Exceptions thrown here are caught and counted by the wire.
     */
    void onPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination);

    /**
     * As {@link #onPacket(ByteBuf, InetSocketAddress, InetSocketAddress)}, with the IP TOS byte the
     * packet arrived with (DSCP and ECN bits), or {@code PacketSink.TOS_UNKNOWN} where the wire
     * cannot read it. Wires call this one; by default it drops the TOS.
     */
    default void onPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination, int tos) {
        onPacket(packet, source, destination);
    }

    /**
     * Called after the last packet of a batch the wire received together (one read of the
     * socket, one delivery of the simulated network): the point where a receiver sends what
     * it coalesced over the batch. Exceptions thrown here are caught and counted by the wire.
     */
    default void onBatchEnd() {
    }

    /**
     * Handles a packet the wire vouches for: sent unsealed through the wire's ICRC offload
     * ({@code PacketSink.sendUnsealed}) and untouched since, so its ICRC field may never have
     * been computed. Everything else is as in {@link #onPacket}; a receiver that checks ICRCs
     * skips the check here. Called only on a receiver that {@link #takesIntactPackets takes them};
     * any other is handed the packet sealed, through this default, which is {@link #onPacket}.
     */
    default void onIntactPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination) {
        onPacket(packet, source, destination);
    }

    /** As {@link #onIntactPacket(ByteBuf, InetSocketAddress, InetSocketAddress)}, with the IP TOS byte. */
    default void onIntactPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination, int tos) {
        onIntactPacket(packet, source, destination);
    }

    /**
     * True if this receiver handles {@link #onIntactPacket} itself, where a packet's ICRC may
     * never have been computed. False by default: a wire seals such a packet before handing it
     * over, so a receiver that forwards packets elsewhere, or checks them, always sees real bytes.
     */
    default boolean takesIntactPackets() {
        return false;
    }
}
