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
     * Called after the last packet of a batch the wire received together (one read of the
     * socket, one delivery of the simulated network): the point where a receiver sends what
     * it coalesced over the batch. Exceptions thrown here are caught and counted by the wire.
     */
    default void onBatchEnd() {
    }
}
