package io.rnic.transport.fabric;

import io.netty.buffer.ByteBuf;
import io.rnic.core.wire.PacketSink;
import io.rnic.transport.sim.SimScheduler;
import io.rnic.transport.sim.SimUplink;
import io.rnic.transport.sim.SimWire;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A host's port on a fabric: the NIC side of its link. What the HCA sends is framed, classified
 * into a priority by its DSCP, and queued at the port, which honours the PAUSE frames its switch
 * sends; what arrives is handed to the HCA's wire. A host whose receive side is slower than its
 * link ({@link Fabric#slowReceiver}) queues what arrives and pauses its switch when that queue
 * passes XOFF, as a NIC whose host cannot keep up does.
 */
final class HostNic implements Node, SimUplink {
    private final Fabric fabric;
    private final int id;
    final Port port;
    private final FabricConfig config;
    private final SimScheduler scheduler;
    private final InetSocketAddress address;
    private final int addressBits;
    private SimWire wire;
    /** The last destination and what it resolved to: a QP sends to one peer, packet after packet. */
    private InetSocketAddress lastDestination;
    private int lastDstHost = -1;
    private int lastGroup = -1;
    private int lastDipBits;
    /** Frames sent to an address no host of the fabric has. */
    long unroutable;

    // A slow receiver: frames wait in rx, drained at rxBitsPerSecond; PAUSE above xoff.
    private long rxBitsPerSecond;
    private long rxXoffBytes;
    private long rxXonBytes;
    private final PacketQueue<Frame> rx = new PacketQueue<>(4);
    private boolean rxBusy;
    private boolean rxPaused;
    private final int[] quanta = new int[8];
    private final SimScheduler.Activation rxDone = new SimScheduler.Activation() {
        @Override
        protected void fire() {
            rxBusy = false;
            drainRx();
        }
    };

    HostNic(Fabric fabric, int id, FabricLink link, InetSocketAddress address) {
        this.fabric = fabric;
        this.id = id;
        this.port = new Port(fabric, this, 0, link, io.rnic.transport.pcap.PcapWriter.macOf(address));
        this.config = fabric.config();
        this.scheduler = fabric.scheduler();
        this.address = address;
        this.addressBits = address.getAddress().hashCode(); // an Inet4Address's hash is its address
    }

    @Override
    public int id() {
        return id;
    }

    InetSocketAddress address() {
        return address;
    }

    SimWire wire() {
        return wire;
    }

    void wire(SimWire w) {
        this.wire = w;
    }

    // ---- SimUplink: what the HCA sends ----

    @Override
    public void carry(SimWire from, ByteBuf packet, InetSocketAddress source, InetSocketAddress destination, int tos,
            boolean unsealed) {
        if (destination != lastDestination || lastGroup == Integer.MAX_VALUE) {
            resolve(destination); // a group nobody had joined is looked up again: someone may have since
        }
        if (lastDstHost < 0 && lastGroup < 0) {
            unroutable++;
            packet.release();
            return;
        }
        Frame f = fabric.newFrame();
        f.kind = Frame.DATA;
        f.packet = packet;
        f.source = source;
        f.destination = destination;
        f.tos = tos < 0 ? 0 : tos;
        f.intact = unsealed;
        f.priority = config.priorityOfDscp(f.tos >>> 2);
        f.srcHost = id;
        f.dstHost = lastDstHost;
        f.group = lastGroup;
        f.sipBits = addressBits;
        f.dipBits = lastDipBits;
        f.portsWord = source.getPort() & 0xFFFF | destination.getPort() << 16;
        f.frameBytes = packet.readableBytes() + Frame.ENCAPSULATION;
        port.enqueue(f);
    }

    private void resolve(InetSocketAddress destination) {
        lastDestination = destination;
        InetAddress a = destination.getAddress();
        lastDipBits = a.hashCode();
        lastGroup = a.isMulticastAddress() ? fabric.groupIndex(a) : -1;
        int node = Topology.nodeOfAddress(lastDipBits);
        lastDstHost = lastGroup < 0 && node >= 0 && node < fabric.topology().nodeCount() && fabric.topology().isHost(node)
                && node != id ? node : -1;
    }

    @Override
    public boolean inspects() {
        return fabric.capturing();
    }

    @Override
    public long paceBitsPerSecond() {
        return port.link.bitsPerSecond;
    }

    @Override
    public int defaultDscp() {
        return config.hostDscp();
    }

    @Override
    public boolean ecnByDefault() {
        return config.ecnEnabled() && config.hostsSendEct();
    }

    // ---- Node: what arrives ----

    @Override
    public void receive(Frame f, int inPort) {
        fabric.received(this, f, scheduler.nanoTime());
        if (f.kind == Frame.PFC) {
            port.applyPause(f);
            fabric.free(f);
            return;
        }
        if (rxBitsPerSecond <= 0) {
            deliver(f);
            return;
        }
        rx.offer(f, f.frameBytes);
        if (!rxPaused && rx.bytes() > rxXoffBytes) {
            pfc(config.pauseQuanta());
        }
        if (!rxBusy) {
            drainRx();
        }
    }

    private void deliver(Frame f) {
        fabric.delivered(f, scheduler.nanoTime());
        SimWire w = wire;
        ByteBuf p = f.packet;
        f.packet = null;
        if (w != null) {
            w.arrive(p, f.source, f.intact, f.tos); // releases the packet
        } else {
            p.release(); // no HCA attached at this host
        }
        fabric.free(f);
    }

    private void drainRx() {
        Frame f = rx.poll();
        if (f == null) {
            return;
        }
        rxBusy = true;
        long bits = (long) f.frameBytes * 8L * 1_000_000_000L;
        scheduler.activate(rxDone, scheduler.nanoTime() + (bits + rxBitsPerSecond - 1) / rxBitsPerSecond);
        deliver(f);
        if (rxPaused && rx.bytes() <= rxXonBytes) {
            pfc(0);
        }
    }

    /** PAUSE (or RESUME) towards the switch for the host's lossless priorities. */
    private void pfc(int q) {
        rxPaused = q > 0;
        int mask = config.effectiveLosslessMask();
        if (mask == 0) {
            return;
        }
        for (int p = 0; p < 8; p++) {
            quanta[p] = (mask >>> p & 1) != 0 ? q : 0;
        }
        for (int p = 0; p < 8; p++) {
            if ((mask >>> p & 1) != 0) {
                if (q > 0) {
                    port.pausesSent[p]++;
                } else {
                    port.resumesSent[p]++;
                }
            }
        }
        port.enqueue(fabric.pfcFrame(port.mac, mask, quanta));
    }

    private final SimScheduler.Activation storm = new SimScheduler.Activation() {
        @Override
        protected void fire() {
            pfc(config.pauseQuanta());
            scheduler.activate(this, scheduler.nanoTime()
                    + Math.max(1, PfcFrame.quantaToNanos(config.pauseQuanta(), port.link.bitsPerSecond) / 2));
        }
    };

    /** From {@code atNanos} on, sends PAUSE for the lossless priorities for ever, as a broken NIC does. */
    void pauseStorm(long atNanos) {
        if (!storm.isQueued()) {
            scheduler.activate(storm, atNanos);
        }
    }

    /** Makes this host's receive side drain at {@code bitsPerSecond}, pausing its switch past {@code xoffBytes}. */
    void slowReceiver(long bitsPerSecond, long xoffBytes) {
        this.rxBitsPerSecond = bitsPerSecond;
        this.rxXoffBytes = xoffBytes;
        this.rxXonBytes = Math.max(0, xoffBytes - 2L * config.maxFrameBytes());
    }

    @Override
    public boolean departing(Port p, Frame f) {
        return true;
    }

    @Override
    public void dropQueued(Port p, Frame f) {
        fabric.free(f);
    }

    /** Releases what the host holds (the network is closing). */
    void clear() {
        port.clear();
        for (Frame f = rx.poll(); f != null; f = rx.poll()) {
            fabric.free(f);
        }
    }
}
