package io.rnic.bench.demo;

import io.rnic.core.wire.Wire;
import io.rnic.core.wire.WireTap;
import io.rnic.transport.pcap.PcapCapture;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.udp.Gso;
import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.XrcDomain;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.function.Function;

/**
 * Two emulated HCAs with a QP pair (connected RC or UC, an XRC initiator and target, or ready UD) and a registered buffer each, on the simulated
 * network or over UDP, with a way to wait for completions that suits the wire: virtual time on
 * the simulator, a bounded blocking wait on UDP.
 */
public final class DemoPair implements AutoCloseable {
    public static final int BUFFER = 1 << 20;
    /** The Q_Key of the demo's UD QPs. */
    public static final int QKEY = 0x11111111;
    private static final QpCaps CAPS = new QpCaps(1024, 1024, 4, 4, 256);
    private static final long UDP_WAIT_NANOS = 10_000_000_000L;
    private static final long SIM_WAIT_NANOS = 600_000_000_000L;

    public final RdmaDevice a;
    public final RdmaDevice b;
    public final CompletionQueue cqA;
    public final CompletionQueue cqB;
    public final QueuePair qpA;
    public final QueuePair qpB;
    public final ByteBuffer bufA = ByteBuffer.allocateDirect(BUFFER);
    public final ByteBuffer bufB = ByteBuffer.allocateDirect(BUFFER);
    public final MemoryRegion mrA;
    public final MemoryRegion mrB;
    /** The protection domains the QPs and regions are in. */
    public final ProtectionDomain pdA;
    public final ProtectionDomain pdB;
    /** B's XRC domain and the XRC SRQ (completing to {@link #cqB}) that A's XRC work requests name; null unless XRC. */
    public final XrcDomain xrcdB;
    public final SharedReceiveQueue srqB;
    /** The EE contexts A's RD work requests go through and B's peer of it; null unless RD. */
    public final io.rnic.verbs.EeContext eecA;
    public final io.rnic.verbs.EeContext eecB;
    private final SimNetwork sim;
    private final PcapCapture capture;

    /**
     * Opens the pair. {@code wrap} may decorate each wire (fault injection); {@code pcap} may be
     * null.
     */
    public DemoPair(boolean udp, String ipA, String ipB, int port, long seed, RcOptions options, Path pcap,
                    Function<Wire, Wire> wrap, SimSetup simSetup) throws IOException {
        this(udp, ipA, ipB, port, seed, QpType.RC, options, pcap, wrap, simSetup);
    }

    /**
     * Opens the pair with QPs of {@code type}: RC and UC QPs are connected to each other; UD QPs
     * are ready with Q_Key {@link #QKEY}, each work request naming its destination.
     */
    public DemoPair(boolean udp, String ipA, String ipB, int port, long seed, QpType type, RcOptions options, Path pcap,
                    Function<Wire, Wire> wrap, SimSetup simSetup) throws IOException {
        this(udp, ipA, ipB, port, seed, type, options, pcap, wrap, simSetup, Gso.OFF);
    }

    /**
     * As above with a GSO setting for the UDP wires. The demo defaults to {@link Gso#OFF} so that
     * a live capture of it shows one datagram per packet, as a judge of the wire expects.
     */
    public DemoPair(boolean udp, String ipA, String ipB, int port, long seed, QpType type, RcOptions options, Path pcap,
                    Function<Wire, Wire> wrap, SimSetup simSetup, Gso gso) throws IOException {
        this(udp, ipA, ipB, port, seed, type, options, pcap, wrap, simSetup, gso, io.rnic.verbs.CongestionControlScheme.NONE);
    }

    /**
     * As above with congestion control {@code cc} in both HCAs (on the point-to-point network,
     * which marks nothing, it paces at the line rate and answers no CNP).
     */
    public DemoPair(boolean udp, String ipA, String ipB, int port, long seed, QpType type, RcOptions options, Path pcap,
                    Function<Wire, Wire> wrap, SimSetup simSetup, Gso gso, io.rnic.verbs.CongestionControlScheme cc)
            throws IOException {
        java.util.Objects.requireNonNull(cc, "cc");
        Wire wa;
        Wire wb;
        if (udp) {
            sim = null;
            wa = UdpWire.bind(ipA).port(port).gso(gso).open();
            try {
                wb = UdpWire.bind(ipB).port(port).gso(gso).open();
            } catch (RuntimeException e) {
                wa.close();
                throw e;
            }
        } else {
            sim = new SimNetwork(seed);
            var sa = sim.attach(new java.net.InetSocketAddress(address(ipA), port));
            var sb = sim.attach(new java.net.InetSocketAddress(address(ipB), port));
            if (simSetup != null) {
                simSetup.configure(sim, sa, sb);
            }
            wa = sa;
            wb = sb;
        }
        if (pcap != null) {
            capture = new PcapCapture(pcap);
            capture.attach(wa, EnumSet.of(WireTap.Direction.SENT));
            capture.attach(wb, EnumSet.of(WireTap.Direction.SENT));
        } else {
            capture = null;
        }
        io.rnic.verbs.DeviceConfig config = io.rnic.verbs.DeviceConfig.defaults().withCongestionControl(cc);
        a = RdmaDevice.open(wrap.apply(wa), config);
        b = RdmaDevice.open(wrap.apply(wb), config);
        ProtectionDomain pdA = a.allocPd();
        ProtectionDomain pdB = b.allocPd();
        cqA = a.createCq(8192);
        cqB = b.createCq(8192);
        this.pdA = pdA;
        this.pdB = pdB;
        if (type == QpType.RD) {
            // RD: an RD QP on each side, A's messages through an EE context connected to one on B.
            xrcdB = null;
            srqB = null;
            io.rnic.verbs.ReliableDatagramDomain rddA = a.allocRdd();
            io.rnic.verbs.ReliableDatagramDomain rddB = b.allocRdd();
            eecA = rddA.createEeContext();
            eecB = rddB.createEeContext();
            qpA = pdA.createRdQp(new QpInitAttributes(type, cqA, cqA, CAPS, false, false), rddA);
            qpB = pdB.createRdQp(new QpInitAttributes(type, cqB, cqB, CAPS, false, false), rddB);
        } else if (type == QpType.XRC_SEND) {
            // XRC: an initiator on A, and on B a target QP reaching an XRC SRQ of B's domain.
            eecA = null;
            eecB = null;
            xrcdB = b.openXrcd("demo");
            srqB = pdB.createXrcSrq(xrcdB, cqB, CAPS.maxRecvWr(), CAPS.maxRecvSge(), 0);
            qpA = pdA.createQp(new QpInitAttributes(type, cqA, null, CAPS, false, true));
            qpB = xrcdB.createTargetQp();
        } else {
            eecA = null;
            eecB = null;
            xrcdB = null;
            srqB = null;
            qpA = pdA.createQp(new QpInitAttributes(type, cqA, cqA, CAPS, false, true));
            qpB = pdB.createQp(new QpInitAttributes(type, cqB, cqB, CAPS, false, true));
        }
        // MW_BIND and FLUSH_GLOBAL: memory windows may be bound to B's region, and FLUSHes reach it.
        int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC
                | AccessFlags.MW_BIND | AccessFlags.FLUSH_GLOBAL;
        mrA = pdA.registerMemory(bufA, access);
        mrB = pdB.registerMemory(bufB, access);
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        if (type == QpType.UD) {
            Connections.readyDatagram(qpA, QKEY, r.nextInt(1 << 24));
            Connections.readyDatagram(qpB, QKEY, r.nextInt(1 << 24));
        } else if (type == QpType.RD) {
            Connections.connectEeContexts(eecA, r.nextInt(1 << 24), eecB, r.nextInt(1 << 24), options);
            int rdAccess = access & ~(AccessFlags.MW_BIND | AccessFlags.FLUSH_GLOBAL);
            Connections.readyRd(qpA, QKEY, rdAccess);
            Connections.readyRd(qpB, QKEY, rdAccess);
            // The RNR timer an RD QP's receive queue asks requesters to wait: 0.64 ms, as RC's default.
            qpA.modify(new io.rnic.verbs.QpAttributes().minRnrTimer(options.minRnrTimer()));
            qpB.modify(new io.rnic.verbs.QpAttributes().minRnrTimer(options.minRnrTimer()));
        } else {
            Connections.connectPair(qpA, mrA, r.nextInt(1 << 24), qpB, mrB, r.nextInt(1 << 24),
                    options.withAccess(options.accessFlags() | AccessFlags.FLUSH_GLOBAL));
        }
    }

    /** Posts {@code wr} on A's QP; an XRC request names B's XRC SRQ, an RD request A's context and B's QP. */
    public void postA(SendWorkRequest wr) {
        if (srqB != null) {
            wr.xrc(srqB.srqn());
        }
        if (eecA != null) {
            wr.rd(eecA.eecn(), qpB.qpn(), QKEY);
        }
        qpA.postSend(wr);
    }

    /** Posts {@code wr} where B's messages take receive WQEs: B's QP, or its XRC SRQ. */
    public void postRecvB(RecvWorkRequest wr) {
        if (srqB != null) {
            srqB.postRecv(wr);
        } else {
            qpB.postRecv(wr);
        }
    }

    /** True if A's QP can post {@code op} (RD has no ATOMIC WRITE or FLUSH, for one). */
    public boolean carries(io.rnic.verbs.WrOpcode op) {
        var kind = io.rnic.core.engine.RequestKind.of(op);
        return kind != null && kind.transports().contains(io.rnic.core.engine.TransportPolicy.of(qpA.type()).transport());
    }

    /** Creates another QP of {@code type} on device B (a second datagram destination). */
    public QueuePair createQpB(QpType type) {
        return pdB.createQp(new QpInitAttributes(type, cqB, cqB, CAPS, false, true));
    }

    /** Adjusts the simulated network before the devices open (links, faults). */
    @FunctionalInterface
    public interface SimSetup {
        void configure(SimNetwork net, io.rnic.transport.sim.SimWire a, io.rnic.transport.sim.SimWire b);
    }

    private static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + ip, e);
        }
    }

    /** The simulated network, or null on UDP. */
    public SimNetwork sim() {
        return sim;
    }

    /**
     * Waits until {@code cq} holds a completion and polls it into {@code out}; false on timeout.
     */
    public boolean await(CompletionQueue cq, WorkCompletion out) throws InterruptedException {
        if (sim != null) {
            sim.scheduler().runUntil(() -> cq.size() > 0, SIM_WAIT_NANOS);
            return cq.poll(out);
        }
        long deadline = System.nanoTime() + UDP_WAIT_NANOS;
        while (!cq.poll(out)) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !cq.await(left)) {
                return cq.poll(out);
            }
        }
        return true;
    }

    /**
     * Waits until {@code condition} holds (in virtual time on the simulated network; on UDP
     * while the devices' agents run, or this thread drives them); false on timeout.
     */
    public boolean until(java.util.function.BooleanSupplier condition) throws InterruptedException {
        if (sim != null || a.isCallerDriven()) {
            return a.driveUntil(condition, sim != null ? SIM_WAIT_NANOS : UDP_WAIT_NANOS);
        }
        // Devices with threads of their own move without help: only the waiting is left.
        long deadline = System.nanoTime() + UDP_WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    /** Lets in-flight packets settle (virtual time only). */
    public void settle() {
        if (sim != null) {
            sim.scheduler().runUntil(() -> false, 1_000_000_000L);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            qpA.close();
            qpB.close();
        } finally {
            a.close();
            b.close();
            if (sim != null) {
                sim.close();
            }
            if (capture != null) {
                capture.close();
            }
        }
    }
}
