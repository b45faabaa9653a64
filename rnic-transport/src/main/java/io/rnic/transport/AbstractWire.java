package io.rnic.transport;

import io.netty.buffer.ByteBuf;
import io.rnic.core.wire.Wire;
import io.rnic.core.wire.WireCounters;
import io.rnic.core.wire.WireReceiver;
import io.rnic.core.wire.WireTap;
import java.net.InetSocketAddress;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every wire shares: its counters, its taps, its receiver, and the one way a received
 * packet is handed over (counted, tapped, given to the receiver, exceptions caught and counted).
 */
public abstract class AbstractWire implements Wire {
    private static final Logger LOG = LoggerFactory.getLogger(AbstractWire.class);

    protected final WireCounters counters = new WireCounters();
    /** The taps, replaced whole on each add: a packet walks a plain array, no iterator per packet. */
    private volatile WireTap[] taps = new WireTap[0];
    private volatile WireReceiver receiver;
    private volatile boolean tapFailureLogged;

    private final PacketBuffers packets = new PacketBuffers();

    /** The wire's own free list of packet buffers ({@link PacketBuffers}). */
    @Override
    public io.netty.buffer.ByteBufAllocator allocator() {
        return packets;
    }

    @Override
    public final void receiver(WireReceiver receiver) {
        this.receiver = receiver;
    }

    @Override
    public final void addTap(WireTap tap) {
        Objects.requireNonNull(tap, "tap");
        synchronized (this) {
            WireTap[] more = java.util.Arrays.copyOf(taps, taps.length + 1);
            more[more.length - 1] = tap;
            taps = more;
        }
    }

    @Override
    public final WireCounters counters() {
        return counters;
    }

    /** Counts a packet about to leave and shows it to the taps. */
    protected final void sending(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination, long timestampNanos) {
        sending(packet, source, destination, timestampNanos, 0);
    }

    /** Counts a packet about to leave with IP TOS byte {@code tos} and shows it to the taps. */
    protected final void sending(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination, long timestampNanos,
            int tos) {
        counters.sent(packet.readableBytes());
        tap(WireTap.Direction.SENT, timestampNanos, packet, source, destination, tos);
    }

    /**
     * Counts a received packet, shows it to the taps and hands it to the receiver. Never throws;
     * does not release the buffer (the caller does, after this returns).
     */
    protected final void handOver(ByteBuf packet, InetSocketAddress source, InetSocketAddress local, long timestampNanos) {
        handOver(packet, source, local, timestampNanos, false);
    }

    /**
     * As {@link #handOver(ByteBuf, InetSocketAddress, InetSocketAddress, long)}; with {@code intact},
     * the wire vouches for the packet's ICRC ({@link WireReceiver#onIntactPacket}).
     */
    protected final void handOver(ByteBuf packet, InetSocketAddress source, InetSocketAddress local, long timestampNanos,
            boolean intact) {
        handOver(packet, source, local, timestampNanos, intact, 0);
    }

    /**
     * As {@link #handOver(ByteBuf, InetSocketAddress, InetSocketAddress, long, boolean)}, with the
     * IP TOS byte the packet arrived with ({@code PacketSink.TOS_UNKNOWN} if the wire cannot read it).
     */
    protected final void handOver(ByteBuf packet, InetSocketAddress source, InetSocketAddress local, long timestampNanos,
            boolean intact, int tos) {
        counters.received(packet.readableBytes());
        tap(WireTap.Direction.RECEIVED, timestampNanos, packet, source, local, tos);
        WireReceiver r = receiver;
        if (r != null) {
            try {
                if (intact) {
                    r.onIntactPacket(packet, source, local, tos);
                } else {
                    r.onPacket(packet, source, local, tos);
                }
            } catch (RuntimeException e) {
                counters.handlerError();
                LOG.debug("receiver of {} threw on a packet from {}", local, source, e);
            }
        }
    }

    /** True if the receiver handles intact packets itself ({@link WireReceiver#takesIntactPackets}). */
    protected final boolean receiverTakesIntactPackets() {
        WireReceiver r = receiver;
        return r != null && r.takesIntactPackets();
    }

    /** Tells the receiver that a batch of received packets ended. Never throws. */
    protected final void batchEnd() {
        WireReceiver r = receiver;
        if (r != null) {
            try {
                r.onBatchEnd();
            } catch (RuntimeException e) {
                counters.handlerError();
                LOG.debug("receiver of {} threw at the end of a batch", this, e);
            }
        }
    }

    /** True if a tap is attached (so callers can skip computing a timestamp). */
    protected final boolean tapped() {
        return taps.length != 0;
    }

    private void tap(WireTap.Direction d, long ts, ByteBuf packet, InetSocketAddress src, InetSocketAddress dst, int tos) {
        WireTap[] all = taps;
        for (WireTap t : all) {
            try {
                t.onPacket(d, ts, packet, src, dst, tos);
            } catch (RuntimeException e) {
                // A broken tap would otherwise log once per packet: warn the first time only.
                if (!tapFailureLogged) {
                    tapFailureLogged = true;
                    LOG.warn("a tap of {} threw (further failures are logged at debug)", this, e);
                } else {
                    LOG.debug("a tap of {} threw", this, e);
                }
            }
        }
    }
}
