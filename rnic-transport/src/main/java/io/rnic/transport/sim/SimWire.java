package io.rnic.transport.sim;

import io.netty.buffer.ByteBuf;
import io.rnic.core.time.Scheduler;
import io.rnic.transport.Wire;
import io.rnic.transport.WireCounters;
import io.rnic.transport.WireReceiver;
import io.rnic.transport.WireTap;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** An HCA's attachment to a {@link SimNetwork}. Used only from the simulator's thread. */
public final class SimWire implements Wire {
    private static final Logger LOG = LoggerFactory.getLogger(SimWire.class);

    private final SimNetwork network;
    private final InetSocketAddress local;
    private final WireCounters counters = new WireCounters();
    private final Map<SimWire, LinkDirection> outgoing = new HashMap<>();
    private final CopyOnWriteArrayList<WireTap> taps = new CopyOnWriteArrayList<>();
    /** Source addresses by UDP port, created once per flow so sends do not allocate. */
    private final InetSocketAddress[] sources = new InetSocketAddress[65536];
    private WireReceiver receiver;
    private boolean closed;

    SimWire(SimNetwork network, InetSocketAddress local) {
        this.network = network;
        this.local = local;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public Scheduler scheduler() {
        return network.scheduler();
    }

    /** The network this wire is attached to. */
    public SimNetwork network() {
        return network;
    }

    @Override
    public int openFlow(int preferredSourcePort) {
        if ((preferredSourcePort & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("UDP source port " + preferredSourcePort + " is outside 0..65535");
        }
        source(preferredSourcePort);
        return preferredSourcePort;
    }

    private InetSocketAddress source(int port) {
        InetSocketAddress a = sources[port];
        if (a == null) {
            a = new InetSocketAddress(local.getAddress(), port);
            sources[port] = a;
        }
        return a;
    }

    @Override
    public void send(ByteBuf packet, int sourcePort, InetSocketAddress destination) {
        SimWire peer = closed || (sourcePort & ~0xFFFF) != 0 ? null : network.wireAt(destination);
        if (peer == null) {
            counters.sendError();
            packet.release();
            return;
        }
        LinkDirection dir = outgoing.get(peer);
        if (dir == null) {
            dir = network.link(this, peer).from(this);
        }
        InetSocketAddress src = source(sourcePort);
        counters.sent(packet.readableBytes());
        for (WireTap tap : taps) {
            tap.onPacket(WireTap.Direction.SENT, network.scheduler().nanoTime(), packet, src, peer.local);
        }
        dir.transmit(packet, src);
    }

    void outgoing(SimWire peer, LinkDirection dir) {
        outgoing.put(peer, dir);
    }

    /** Hands an arriving packet to the receiver and releases it; false if this wire is closed. */
    boolean deliver(ByteBuf packet, InetSocketAddress source) {
        try {
            if (closed) {
                return false;
            }
            counters.received(packet.readableBytes());
            for (WireTap tap : taps) {
                tap.onPacket(WireTap.Direction.RECEIVED, network.scheduler().nanoTime(), packet, source, local);
            }
            WireReceiver r = receiver;
            if (r != null) {
                try {
                    r.onPacket(packet, source, local);
                } catch (RuntimeException e) {
                    counters.handlerError();
                    LOG.debug("receiver of {} threw on a packet from {}", local, source, e);
                }
            }
            return true;
        } finally {
            packet.release();
        }
    }

    @Override
    public void receiver(WireReceiver receiver) {
        this.receiver = receiver;
    }

    @Override
    public void addTap(WireTap tap) {
        taps.add(java.util.Objects.requireNonNull(tap, "tap"));
    }

    @Override
    public WireCounters counters() {
        return counters;
    }

    /** True once {@link #close()} has been called. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            network.detach(this);
        }
    }

    @Override
    public String toString() {
        return "SimWire[" + local.getAddress().getHostAddress() + ":" + local.getPort() + "]";
    }
}
