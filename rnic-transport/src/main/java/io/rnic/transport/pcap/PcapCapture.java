package io.rnic.transport.pcap;

import io.netty.buffer.ByteBuf;
import io.rnic.core.wire.Wire;
import io.rnic.core.wire.WireTap;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

/**
 * Captures the packets of one or more wires to a pcap file. Attach it to a wire with
 * {@link #attach(Wire, Set)}: both directions of a single wire, or only what each wire sends
 * when every HCA of the conversation is captured into the same file (so each packet appears
 * once). Thread-safe.
 */
public final class PcapCapture implements AutoCloseable {
    private final PcapWriter writer;

    public PcapCapture(Path file) throws IOException {
        this.writer = new PcapWriter(file);
    }

    /** Captures the packets {@code wire} carries in the given directions. */
    public PcapCapture attach(Wire wire, Set<WireTap.Direction> directions) {
        EnumSet<WireTap.Direction> dirs = EnumSet.copyOf(directions);
        wire.addTap(new WireTap() {
            @Override
            public void onPacket(Direction direction, long ts, ByteBuf packet, InetSocketAddress source,
                    InetSocketAddress destination) {
                onPacket(direction, ts, packet, source, destination, 0);
            }

            @Override
            public void onPacket(Direction direction, long ts, ByteBuf packet, InetSocketAddress source,
                    InetSocketAddress destination, int tos) {
                if (dirs.contains(direction)) {
                    writer.write(ts, packet, source, destination, tos); // the real TOS byte, a CE mark included
                }
            }
        });
        return this;
    }

    /** Captures everything {@code wire} sends and receives. */
    public PcapCapture attach(Wire wire) {
        return attach(wire, EnumSet.allOf(WireTap.Direction.class));
    }

    /** Writes one packet directly. */
    public void write(long timestampNanos, ByteBuf packet, InetSocketAddress source, InetSocketAddress destination) {
        writer.write(timestampNanos, packet, source, destination);
    }

    /** Packets captured so far. */
    public long packets() {
        return writer.packets();
    }

    @Override
    public void close() throws IOException {
        writer.close();
    }
}
