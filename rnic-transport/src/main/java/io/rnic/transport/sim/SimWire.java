package io.rnic.transport.sim;

import io.netty.buffer.ByteBuf;
import io.rnic.core.time.Scheduler;
import io.rnic.transport.AbstractWire;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/** An HCA's attachment to a {@link SimNetwork}. Used only from the simulator's thread. */
public final class SimWire extends AbstractWire {
    private final SimNetwork network;
    private final InetSocketAddress local;
    private final Map<SimWire, LinkDirection> outgoing = new HashMap<>();
    /** The last destination sent to and its link direction (the same object: an address's identity). */
    private InetSocketAddress lastDestination;
    private LinkDirection lastDirection;
    /** Source addresses by UDP port, created once per flow so sends do not allocate. */
    private final InetSocketAddress[] sources = new InetSocketAddress[65536];
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

    /** The device on a simulated wire takes its keys from the network's seed: a seed fixes every byte. */
    @Override
    public java.util.OptionalLong seed() {
        return java.util.OptionalLong.of(network.deviceSeed(local));
    }

    @Override
    public boolean virtualTime() {
        return true;
    }

    /** Runs the whole network's virtual time (every wire on it moves together). */
    @Override
    public boolean runUntil(java.util.function.BooleanSupplier condition, long timeoutNanos) {
        return network.scheduler().runUntil(condition, timeoutNanos);
    }

    /** Unacknowledged streams leave at the network's default link rate. */
    @Override
    public long paceBitsPerSecond() {
        return network.linkDefaults().bitsPerSecond();
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
        LinkDirection dir;
        SimWire peer;
        if (destination == lastDestination && !closed && !lastDirection.to().closed && (sourcePort & ~0xFFFF) == 0) {
            // A QP sends to one peer, packet after packet: two map lookups per packet otherwise.
            dir = lastDirection;
            peer = dir.to();
        } else {
            peer = closed || (sourcePort & ~0xFFFF) != 0 ? null : network.wireAt(destination);
            if (peer == null) {
                counters.sendError();
                packet.release();
                return;
            }
            dir = outgoing.get(peer);
            if (dir == null) {
                dir = network.link(this, peer).from(this);
            }
            lastDestination = destination;
            lastDirection = dir;
        }
        InetSocketAddress src = source(sourcePort);
        sending(packet, src, peer.local, network.scheduler().nanoTime());
        dir.transmit(packet, src);
    }

    void outgoing(SimWire peer, LinkDirection dir) {
        outgoing.put(peer, dir);
        lastDestination = null; // a new or replaced link: look it up again
    }

    /** Hands an arriving packet to the receiver and releases it; false if this wire is closed. */
    boolean deliver(ByteBuf packet, InetSocketAddress source) {
        try {
            if (closed) {
                return false;
            }
            handOver(packet, source, local, network.scheduler().nanoTime());
            // One delivery is one batch: the simulated network's timing stays exactly as it was.
            batchEnd();
            return true;
        } finally {
            packet.release();
        }
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
