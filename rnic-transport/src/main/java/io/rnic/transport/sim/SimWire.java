package io.rnic.transport.sim;

import io.rnic.core.packet.Icrc;
import io.rnic.core.packet.PseudoHeader;
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
    /** A fabric's host port, or null on the network's point-to-point links. */
    private final SimUplink uplink;
    private final Map<SimWire, LinkDirection> outgoing = new HashMap<>();
    /** The last destination sent to and its link direction (the same object: an address's identity). */
    private InetSocketAddress lastDestination;
    private LinkDirection lastDirection;
    /** Source addresses by UDP port, created once per flow so sends do not allocate. */
    private final InetSocketAddress[] sources = new InetSocketAddress[65536];
    private boolean closed;
    /** The ICRC offload's sealing, made on first use: the simulator's thread only. */
    private Icrc icrc;
    private PseudoHeader sealFlow;

    SimWire(SimNetwork network, InetSocketAddress local, SimUplink uplink) {
        this.network = network;
        this.local = local;
        this.uplink = uplink;
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

    /** Unacknowledged streams leave at the network's default link rate, or the fabric host link's. */
    @Override
    public long paceBitsPerSecond() {
        return uplink != null ? uplink.paceBitsPerSecond() : network.linkDefaults().bitsPerSecond();
    }

    /** The fabric's host DSCP on a fabric; 0 on point-to-point links. */
    @Override
    public int defaultDscp() {
        return uplink != null ? uplink.defaultDscp() : 0;
    }

    /** True on a fabric with ECN on; false on point-to-point links. */
    @Override
    public boolean ecnByDefault() {
        return uplink != null && uplink.ecnByDefault();
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
        send(packet, sourcePort, destination, false, 0);
    }

    @Override
    public void send(ByteBuf packet, int sourcePort, InetSocketAddress destination, int tos) {
        send(packet, sourcePort, destination, false, tos);
    }

    /** Offloads the ICRC when the network does ({@link SimNetwork#icrcOffload()}). */
    @Override
    public boolean offloadsIcrc() {
        return network.icrcOffload();
    }

    /**
     * Sends a packet whose ICRC is not computed yet. It is sealed here if a tap will see it or a
     * fault model may inspect or change it on its link; otherwise it travels unsealed and the
     * receiving wire seals it only if a tap there will see it, and vouches for it to the receiver.
     */
    @Override
    public void sendUnsealed(ByteBuf packet, int sourcePort, InetSocketAddress destination) {
        sendUnsealed(packet, sourcePort, destination, 0);
    }

    @Override
    public void sendUnsealed(ByteBuf packet, int sourcePort, InetSocketAddress destination, int tos) {
        if (!network.icrcOffload()) {
            packet.release();
            throw new UnsupportedOperationException("the simulated network's ICRC offload is off: seal packets and use send");
        }
        send(packet, sourcePort, destination, true, tos);
    }

    private void send(ByteBuf packet, int sourcePort, InetSocketAddress destination, boolean unsealed, int tos) {
        if (uplink != null) {
            sendUp(packet, sourcePort, destination, unsealed, tos);
            return;
        }
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
        if (unsealed && (tapped() || dir.hasFaults())) {
            seal(packet, src, peer.local);
            unsealed = false;
        }
        sending(packet, src, peer.local, network.scheduler().nanoTime(), tos);
        dir.transmit(packet, src, unsealed, tos);
    }

    /** Hands a packet to the fabric's host port, sealed first if the fabric will read it. */
    private void sendUp(ByteBuf packet, int sourcePort, InetSocketAddress destination, boolean unsealed, int tos) {
        if (closed || (sourcePort & ~0xFFFF) != 0 || destination == null) {
            counters.sendError();
            packet.release();
            return;
        }
        InetSocketAddress src = source(sourcePort);
        if (unsealed && (tapped() || uplink.inspects())) {
            seal(packet, src, destination);
            unsealed = false;
        }
        sending(packet, src, destination, network.scheduler().nanoTime(), tos);
        uplink.carry(this, packet, src, destination, tos, unsealed);
    }

    void outgoing(SimWire peer, LinkDirection dir) {
        outgoing.put(peer, dir);
        lastDestination = null; // a new or replaced link: look it up again
    }

    /**
     * Writes the ICRC an HCA would have written into a packet sent unsealed: the flow's pseudo
     * header is the one the sending HCA uses (its address and source port, the destination's
     * address and port, the IPv4 defaults every HCA sends with).
     */
    private void seal(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination) {
        if (icrc == null) {
            icrc = new Icrc();
            sealFlow = new PseudoHeader();
        }
        sealFlow.addresses(source.getAddress(), destination.getAddress()).ports(source.getPort(), destination.getPort());
        icrc.write(sealFlow, packet, packet.readerIndex(), packet.readableBytes());
    }

    /**
     * Hands an arriving packet to the receiver and releases it; false if this wire is closed.
     * An {@code intact} packet (sent unsealed, untouched since) is sealed first if a tap will see
     * it or the receiver does not take intact packets, and is vouched for to the receiver.
     */
    boolean deliver(ByteBuf packet, InetSocketAddress source, boolean intact, int tos) {
        try {
            if (closed) {
                return false;
            }
            if (intact && (tapped() || !receiverTakesIntactPackets())) {
                seal(packet, source, local);
            }
            handOver(packet, source, local, network.scheduler().nanoTime(), intact, tos);
            // One delivery is one batch: the simulated network's timing stays exactly as it was.
            batchEnd();
            return true;
        } finally {
            packet.release();
        }
    }

    /**
     * For this wire's {@link SimUplink}: hands a packet arriving from the fabric to the wire's
     * receiver as one batch, and releases it. {@code intact} says the packet is still unsealed and
     * untouched since its sender's HCA built it; {@code tos} is the IP TOS byte it arrived with
     * (a switch may have marked it CE).
     *
     * @return false if the wire is closed (the packet is released all the same)
     */
    public boolean arrive(ByteBuf packet, InetSocketAddress source, boolean intact, int tos) {
        return deliver(packet, source, intact, tos);
    }

    /** The uplink this wire sends through, or null on point-to-point links. */
    public SimUplink uplink() {
        return uplink;
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
