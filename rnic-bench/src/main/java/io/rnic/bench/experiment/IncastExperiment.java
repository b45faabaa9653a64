package io.rnic.bench.experiment;

import io.netty.buffer.ByteBuf;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.wire.WireTap;
import io.rnic.transport.fabric.Fabric;
import io.rnic.transport.fabric.FabricConfig;
import io.rnic.transport.fabric.PortStats;
import io.rnic.transport.fabric.QueueTrace;
import io.rnic.transport.fabric.Topology;
import io.rnic.transport.fabric.TopologySpec;
import io.rnic.transport.pcap.PcapWriter;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.CongestionControlConfig;
import io.rnic.verbs.CongestionControlScheme;
import io.rnic.verbs.Connections;
import io.rnic.verbs.DeviceConfig;
import io.rnic.verbs.Counter;
import io.rnic.verbs.LossRecovery;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An incast on a simulated fabric: N hosts each move SIZE bytes to one host at once (or
 * staggered) on RC QPs, by RDMA WRITE, SEND, or an RDMA READ the receiving host issues. Reports
 * the incast's completion time beside the ideal, each sender's goodput over its whole flow and
 * over the interval in which every sender is active, Jain's fairness index over that interval,
 * the bottleneck's deepest queue, and the fabric's drops, retransmissions, ECN marks and PAUSEs.
 * A seed fixes every byte of the run.
 */
public final class IncastExperiment {
    /** How the bytes move. */
    public enum Op {
        /** Each sender RDMA WRITEs its bytes into the receiver. */
        WRITE,
        /** Each sender SENDs them into a receive the receiver posted. */
        SEND,
        /** The receiver RDMA READs them from each sender. */
        READ
    }

    /**
     * What to run.
     *
     * @param senders      hosts sending into the one receiver
     * @param sizeBytes    bytes each sender moves
     * @param topology     the topology in the one grammar ({@code star}, {@code star:N},
     *                     {@code dumbbell:N}, {@code leafspine:L,S,H}, {@code fattree:k=K},
     *                     {@code file:PATH}); plain {@code star} is a star of senders + 1 hosts
     * @param linkBps      the rate of every link the topology does not give itself
     * @param bufferBytes  each switch's shared buffer
     * @param pfc          PFC on the lossless priority (3)
     * @param ecn          ECN marking at the switches and ECN-capable HCAs
     * @param recovery     the RC QPs' loss recovery
     * @param op           how the bytes move
     * @param staggerNanos the gap between one sender's start and the next's
     * @param seed         the seed of the network (ECMP, RED draws, keys, PSNs)
     * @param mtu          the path MTU
     * @param timeoutExp   the QPs' local ACK timeout exponent (4.096 µs × 2^t)
     * @param fabric       every other switch parameter
     * @param cc           the congestion control of every host (reaction and notification points)
     */
    public record Config(int senders, int sizeBytes, String topology, long linkBps, long bufferBytes, boolean pfc,
                         boolean ecn, LossRecovery recovery, Op op, long staggerNanos, long seed, PathMtu mtu,
                         int timeoutExp, FabricConfig fabric, CongestionControlScheme cc) {
        // Checks the values.
        public Config {
            if (timeoutExp < 1 || timeoutExp > 31) {
                throw new IllegalArgumentException("the local ACK timeout exponent is 1..31, not " + timeoutExp);
            }
            if (senders < 1 || sizeBytes < 1 || linkBps <= 0 || bufferBytes <= 0 || staggerNanos < 0) {
                throw new IllegalArgumentException("an incast needs at least one sender, a positive size, rate and buffer, "
                        + "and a stagger of 0 or more; got " + senders + " senders, " + sizeBytes + " B, " + linkBps
                        + " b/s, " + bufferBytes + " B, " + staggerNanos + " ns");
            }
            Objects.requireNonNull(topology, "topology");
            Objects.requireNonNull(recovery, "recovery");
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(mtu, "mtu");
            Objects.requireNonNull(fabric, "fabric");
            Objects.requireNonNull(cc, "cc");
        }

        /** As the canonical constructor, without congestion control. */
        public Config(int senders, int sizeBytes, String topology, long linkBps, long bufferBytes, boolean pfc,
                      boolean ecn, LossRecovery recovery, Op op, long staggerNanos, long seed, PathMtu mtu,
                      int timeoutExp, FabricConfig fabric) {
            this(senders, sizeBytes, topology, linkBps, bufferBytes, pfc, ecn, recovery, op, staggerNanos, seed, mtu,
                    timeoutExp, fabric, CongestionControlScheme.NONE);
        }

        /** This run with congestion control {@code scheme} on every host. */
        public Config withCc(CongestionControlScheme scheme) {
            return new Config(senders, sizeBytes, topology, linkBps, bufferBytes, pfc, ecn, recovery, op, staggerNanos,
                    seed, mtu, timeoutExp, fabric, scheme);
        }

        /**
         * 8 senders of 1 MiB on a star at 100 Gb/s, the default switch (PFC and ECN on), RDMA
         * WRITE, path MTU 1024, and the IRN-style short local ACK timeout of 4.096 µs × 2^6 =
         * 262 µs (IRN's RTO_high is 320 µs; Mittal et al., SIGCOMM 2018): a datacenter QP's, not
         * the 67 ms of rdma-core's test default, which would dominate any run that drops.
         */
        public static Config defaults() {
            return new Config(8, 1 << 20, "star", 100_000_000_000L, FabricConfig.DEFAULT.bufferBytes(), true, true,
                    LossRecovery.GO_BACK_N, Op.WRITE, 0, 1, PathMtu.MTU_1024, 6, FabricConfig.DEFAULT);
        }
    }

    /**
     * One sender's flow.
     *
     * @param host              the sending host's node id
     * @param startNanos        when its work request was posted
     * @param completionNanos   when its work completed (at the requester: the sender, or the
     *                          receiver for READ)
     * @param status            the completion's status
     * @param goodputGbps       its bytes over its whole flow
     * @param overlapGoodputGbps what it delivered while every sender was active, over that interval
     * @param retransmissions   packets its QP resent (-1 for READ: the receiver's QPs resend, counted only in all)
     * @param pausesReceived    PAUSE frames its host port received
     * @param pausedNanos       how long its host port was paused
     */
    public record Flow(int host, long startNanos, long completionNanos, WcStatus status, double goodputGbps,
                       double overlapGoodputGbps, long retransmissions, long pausesReceived, long pausedNanos) {
    }

    /**
     * The run.
     *
     * @param config             what ran
     * @param flows              one per sender, in host order
     * @param completionNanos    from the first start to the last completion
     * @param idealNanos         N·SIZE / bottleneck rate + the base RTT
     * @param baseRttNanos       a minimum-size packet's round trip in the idle fabric
     * @param goodputGbps        all bytes over the incast's completion time
     * @param overlapStartNanos  the interval in which every sender is active (empty if none)
     * @param overlapEndNanos    its end
     * @param jain               Jain's fairness index of the overlap goodputs (NaN if no overlap)
     * @param maxQueueBytes      the deepest the queue towards the receiver got
     * @param drops              frames dropped anywhere in the fabric
     * @param retransmissions    packets resent by every QP
     * @param ecnMarks           frames marked CE
     * @param pauses             PAUSE frames sent anywhere
     * @param pausedNanos        the longest any port spent paused
     * @param events             simulator events the incast took
     * @param queueTrace         the bottleneck's queue depth over time, as {@link QueueTrace} CSV
     * @param arrivals           per sender, (time ns, payload bytes) of every data packet the receiver got
     * @param rates              with congestion control, per sender, (time ns since the start, rate Gb/s)
     *                           pairs of its QP's congestion-control rate, sampled on the queue trace's
     *                           period; empty without
     */
    public record Result(Config config, List<Flow> flows, long completionNanos, long idealNanos, long baseRttNanos,
                         double goodputGbps, long overlapStartNanos, long overlapEndNanos, double jain,
                         long maxQueueBytes, long drops, long retransmissions, long ecnMarks, long pauses,
                         long pausedNanos, long events, String queueTrace, List<long[]> arrivals, List<double[]> rates) {
        /** True if every flow completed successfully. */
        public boolean allSucceeded() {
            return flows.stream().allMatch(f -> f.status() == WcStatus.SUCCESS);
        }
    }

    private IncastExperiment() {
    }

    /** The topology {@code c} names, with at least {@code senders + 1} hosts. */
    static Topology topology(Config c) {
        String spec = c.topology().equalsIgnoreCase("star") ? "star:" + (c.senders() + 1) : c.topology();
        Topology t = TopologySpec.parse(spec, c.linkBps(), c.linkBps(), 1_000);
        if (t.hostCount() < c.senders() + 1) {
            throw new IllegalArgumentException(spec + " has " + t.hostCount() + " hosts: an incast of " + c.senders()
                    + " senders needs " + (c.senders() + 1));
        }
        return t;
    }

    /**
     * Checks that the configuration's fabric can be built, without running anything.
     *
     * @throws IllegalArgumentException saying what does not fit: too few hosts, or a switch
     *     buffer too small for its ports' PFC headroom and reserves
     */
    public static void check(Config c) {
        Topology t = topology(c);
        try (SimNetwork net = new SimNetwork(c.seed())) {
            Fabric.attach(net, t, fabricConfig(c));
        }
    }

    private static FabricConfig fabricConfig(Config c) {
        return c.fabric().withBufferBytes(c.bufferBytes()).withPfc(c.pfc()).withEcn(c.ecn());
    }

    /** Runs the incast; {@code capture}, if not null, records every host link. */
    public static Result run(Config c, PcapWriter capture) {
        Topology t = topology(c);
        FabricConfig fc = fabricConfig(c);
        try (SimNetwork net = new SimNetwork(c.seed())) {
            Fabric fabric = Fabric.attach(net, t, fc);
            if (capture != null) {
                fabric.capture(capture);
            }
            int[] hosts = t.hosts();
            int receiverHost = hosts[0];
            int[] senderHosts = new int[c.senders()];
            for (int i = 0; i < c.senders(); i++) {
                senderHosts[i] = hosts[hosts.length - c.senders() + i]; // the farthest hosts: other racks, where there are racks
            }
            return new Run(c, net, fabric, receiverHost, senderHosts).run();
        }
    }

    /** One incast's objects and its measurement. */
    private static final class Run {
        private final Config c;
        private final SimNetwork net;
        private final Fabric fabric;
        private final int receiverHost;
        private final int[] senderHosts;
        private final RdmaDevice receiver;
        private final CompletionQueue receiverCq;
        private final MemoryRegion sink;
        private final List<RdmaDevice> devices = new ArrayList<>();
        private final List<CompletionQueue> cqs = new ArrayList<>();
        private final List<QueuePair> senderQps = new ArrayList<>();
        private final List<QueuePair> receiverQps = new ArrayList<>();
        private final List<MemoryRegion> sources = new ArrayList<>();
        private final Map<InetAddress, Integer> senderOf = new HashMap<>();
        private final List<long[]> arrivals = new ArrayList<>();
        private final List<int[]> arrivalCounts = new ArrayList<>();

        Run(Config c, SimNetwork net, Fabric fabric, int receiverHost, int[] senderHosts) {
            this.c = c;
            this.net = net;
            this.fabric = fabric;
            this.receiverHost = receiverHost;
            this.senderHosts = senderHosts;
            int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
            SimWire rw = fabric.host(receiverHost);
            DeviceConfig dc = DeviceConfig.defaults().withCongestionControl(CongestionControlConfig.of(c.cc()));
            receiver = RdmaDevice.open(rw, dc);
            ProtectionDomain rpd = receiver.allocPd();
            receiverCq = receiver.createCq(32 * senderHosts.length + 64); // each QP: 16 sends, 16 receives (RNIC-W003)
            sink = rpd.registerMemory(ByteBuffer.allocateDirect(senderHosts.length * c.sizeBytes()), access);
            RcOptions o = RcOptions.defaults().withMtu(c.mtu()).withLossRecovery(c.recovery()).withRetry(c.timeoutExp(), 7, 7);
            QpCaps caps = new QpCaps(16, 16, 1, 1, 0);
            for (int i = 0; i < senderHosts.length; i++) {
                SimWire w = fabric.host(senderHosts[i]);
                senderOf.put(w.localAddress().getAddress(), i);
                arrivals.add(new long[1024]);
                arrivalCounts.add(new int[1]);
                RdmaDevice d = RdmaDevice.open(w, dc);
                devices.add(d);
                ProtectionDomain pd = d.allocPd();
                CompletionQueue cq = d.createCq(128);
                cqs.add(cq);
                ByteBuffer b = ByteBuffer.allocateDirect(c.sizeBytes());
                for (int k = 0; k < c.sizeBytes(); k++) {
                    b.put(k, (byte) (i * 31 + k * 7));
                }
                MemoryRegion mr = pd.registerMemory(b, access);
                sources.add(mr);
                QueuePair qp = pd.createQp(QpInitAttributes.rc(cq, cq).withCaps(caps));
                QueuePair rqp = rpd.createQp(QpInitAttributes.rc(receiverCq, receiverCq).withCaps(caps));
                Connections.connectPair(qp, mr, 0x1000 * (i + 1), rqp, sink, 0x80000 + 0x1000 * i, o);
                senderQps.add(qp);
                receiverQps.add(rqp);
            }
            rw.addTap(new WireTap() {
                @Override
                public void onPacket(Direction d, long ts, ByteBuf p, InetSocketAddress s, InetSocketAddress dst) {
                    if (d == Direction.RECEIVED) {
                        arrived(ts, p, s);
                    }
                }
            });
        }

        /** Records a data packet's payload at the receiver, per sender. */
        private void arrived(long ts, ByteBuf p, InetSocketAddress source) {
            Integer i = senderOf.get(source.getAddress());
            if (i == null) {
                return;
            }
            Opcode op = OpcodeTable.of(p.getUnsignedByte(p.readerIndex()));
            if (op == null || !op.hasPayload()) {
                return;
            }
            int pad = p.getUnsignedByte(p.readerIndex() + 1) >>> 4 & 3;
            int payload = p.readableBytes() - op.headerLength() - pad - 4;
            if (payload <= 0) {
                return;
            }
            int[] n = arrivalCounts.get(i);
            long[] a = arrivals.get(i);
            if (2 * n[0] + 2 > a.length) {
                a = java.util.Arrays.copyOf(a, a.length * 2);
                arrivals.set(i, a);
            }
            a[2 * n[0]] = ts;
            a[2 * n[0] + 1] = payload;
            n[0]++;
        }

        /** A minimum-size packet's round trip in the idle fabric: a 0-byte WRITE and its ACK. */
        private long baseRtt() {
            QueuePair qp = senderQps.get(0);
            MemoryRegion mr = sources.get(0);
            long start = net.scheduler().nanoTime();
            qp.postSend(new SendWorkRequest().wrId(-1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(mr.address(), 0, mr.lkey()).rdma(sink.address(), sink.rkey()));
            WorkCompletion wc = new WorkCompletion();
            long[] end = {-1};
            net.scheduler().runUntil(() -> {
                if (end[0] < 0 && cqs.get(0).poll(wc)) {
                    end[0] = net.scheduler().nanoTime();
                }
                return end[0] >= 0;
            }, 1_000_000_000L);
            net.scheduler().runUntilIdle();
            for (int[] n : arrivalCounts) {
                n[0] = 0;
            }
            return end[0] - start;
        }

        Result run() {
            long baseRtt = baseRtt();
            long t0 = net.scheduler().nanoTime();
            long eventsBefore = net.scheduler().executed();
            int bottleneckSwitch = fabric.topology().neighbour(receiverHost, 0);
            int bottleneckPort = fabric.topology().peerPort(receiverHost, 0);
            long[] start = new long[senderHosts.length];
            long[] done = new long[senderHosts.length];
            WcStatus[] status = new WcStatus[senderHosts.length];
            java.util.Arrays.fill(done, -1);
            StringBuilder trace = new StringBuilder();
            long ideal = (long) Math.ceil((double) senderHosts.length * c.sizeBytes() * 8e9 / fabric.topology().links()
                    .get(fabric.topology().linkOf(receiverHost, 0)).bitsPerSecond()) + baseRtt;
            long period = Math.max(100, ideal / 400);
            QueueTrace qt = fabric.traceQueues(period, trace, bottleneckSwitch, bottleneckPort);
            RateSampler rates = c.cc() == CongestionControlScheme.NONE ? null : new RateSampler(t0, period);
            for (int i = 0; i < senderHosts.length; i++) {
                final int k = i;
                net.scheduler().schedule(i * c.staggerNanos(), () -> {
                    start[k] = net.scheduler().nanoTime();
                    post(k);
                });
            }
            WorkCompletion wc = new WorkCompletion();
            int[] finished = {0};
            boolean ok = net.scheduler().runUntil(() -> {
                CompletionQueue[] toPoll = c.op() == Op.READ ? new CompletionQueue[] {receiverCq} : cqs.toArray(new CompletionQueue[0]);
                for (CompletionQueue cq : toPoll) {
                    while (cq.poll(wc)) {
                        int k = (int) wc.wrId();
                        if (k >= 0 && k < done.length && done[k] < 0 && wc.opcode() != io.rnic.verbs.WcOpcode.RECV) {
                            done[k] = net.scheduler().nanoTime();
                            status[k] = wc.status();
                            finished[0]++;
                        }
                    }
                }
                return finished[0] == done.length;
            }, 60_000_000_000L);
            qt.stop();
            if (rates != null) {
                rates.stopped = true;
            }
            long events = net.scheduler().executed() - eventsBefore;
            if (!ok) {
                throw new IllegalStateException("the incast did not complete in 60 s of virtual time: " + finished[0] + " of "
                        + done.length + " flows");
            }
            long first = java.util.Arrays.stream(start).min().orElse(t0);
            long last = java.util.Arrays.stream(done).max().orElse(t0);
            long overlapStart = java.util.Arrays.stream(start).max().orElse(t0);
            long overlapEnd = java.util.Arrays.stream(done).min().orElse(t0);
            List<PortStats> ports = fabric.portStats();
            List<Flow> flows = new ArrayList<>();
            double sumX = 0;
            double sumX2 = 0;
            for (int i = 0; i < senderHosts.length; i++) {
                double whole = c.sizeBytes() * 8.0 / Math.max(1, done[i] - start[i]);
                double overlap = overlapEnd > overlapStart ? bytesBetween(i, overlapStart, overlapEnd) * 8.0
                        / (overlapEnd - overlapStart) : Double.NaN;
                sumX += overlap;
                sumX2 += overlap * overlap;
                // A READ's requester is the receiver, whose counters are its device's, not a flow's: -1, unknown.
                long retx = c.op() == Op.READ ? -1 : devices.get(i).counters().get(Counter.RETRANSMITTED_PKTS);
                PortStats nic = fabric.portStats(senderHosts[i], 0);
                flows.add(new Flow(senderHosts[i], start[i] - t0, done[i] - t0, status[i], whole, overlap, retx,
                        nic.pausesReceived(), nic.pausedNanos()));
            }
            double jain = overlapEnd > overlapStart ? sumX * sumX / (senderHosts.length * sumX2) : Double.NaN;
            long retransmissions = receiver.counters().get(Counter.RETRANSMITTED_PKTS)
                    + devices.stream().mapToLong(d -> d.counters().get(Counter.RETRANSMITTED_PKTS)).sum();
            return new Result(c, List.copyOf(flows), last - first, ideal, baseRtt,
                    (double) senderHosts.length * c.sizeBytes() * 8.0 / Math.max(1, last - first),
                    overlapStart - t0, overlapEnd - t0, jain,
                    fabric.portStats(bottleneckSwitch, bottleneckPort).maxQueueBytes(),
                    ports.stream().mapToLong(PortStats::drops).sum(), retransmissions,
                    ports.stream().mapToLong(PortStats::ecnMarks).sum(),
                    ports.stream().mapToLong(PortStats::pausesSent).sum(),
                    ports.stream().mapToLong(PortStats::pausedNanos).max().orElse(0), events, trace.toString(),
                    timeline(t0), rates == null ? List.of() : rates.series());
        }

        /**
         * Samples each sender QP's congestion-control rate every {@code period}: it only reads
         * (the rate as of the QP's latest packet or feedback), so the run is the same with it.
         */
        private final class RateSampler implements Runnable {
            private final long t0;
            private final long period;
            private final List<double[]> samples = new ArrayList<>();
            private int n;
            boolean stopped;

            RateSampler(long t0, long period) {
                this.t0 = t0;
                this.period = period;
                for (int i = 0; i < senderQps.size(); i++) {
                    samples.add(new double[256]);
                }
                net.scheduler().schedule(0, this);
            }

            @Override
            public void run() {
                if (stopped) {
                    return;
                }
                for (int i = 0; i < senderQps.size(); i++) {
                    double[] a = samples.get(i);
                    if (2 * n + 2 > a.length) {
                        a = java.util.Arrays.copyOf(a, a.length * 2);
                        samples.set(i, a);
                    }
                    a[2 * n] = net.scheduler().nanoTime() - t0;
                    a[2 * n + 1] = senderQps.get(i).congestionRateBitsPerSecond() / 1e9;
                }
                n++;
                net.scheduler().schedule(period, this);
            }

            List<double[]> series() {
                List<double[]> out = new ArrayList<>();
                for (double[] a : samples) {
                    out.add(java.util.Arrays.copyOf(a, 2 * n));
                }
                return out;
            }
        }

        /** Posts sender {@code k}'s work request (the receiver's, for READ). */
        private void post(int k) {
            MemoryRegion src = sources.get(k);
            long dst = sink.address() + (long) k * c.sizeBytes();
            switch (c.op()) {
                case WRITE -> senderQps.get(k).postSend(new SendWorkRequest().wrId(k).opcode(WrOpcode.RDMA_WRITE)
                        .signaled(true).sge(src.address(), c.sizeBytes(), src.lkey()).rdma(dst, sink.rkey()));
                case SEND -> {
                    receiverQps.get(k).postRecv(new RecvWorkRequest().wrId(k).sge(dst, c.sizeBytes(), sink.lkey()));
                    senderQps.get(k).postSend(new SendWorkRequest().wrId(k).opcode(WrOpcode.SEND).signaled(true)
                            .sge(src.address(), c.sizeBytes(), src.lkey()));
                }
                case READ -> receiverQps.get(k).postSend(new SendWorkRequest().wrId(k).opcode(WrOpcode.RDMA_READ)
                        .signaled(true).sge(dst, c.sizeBytes(), sink.lkey()).rdma(src.address(), src.rkey()));
                default -> throw new IllegalStateException(c.op().toString());
            }
        }

        private long bytesBetween(int i, long from, long to) {
            long[] a = arrivals.get(i);
            int n = arrivalCounts.get(i)[0];
            long b = 0;
            for (int j = 0; j < n; j++) {
                if (a[2 * j] >= from && a[2 * j] <= to) {
                    b += a[2 * j + 1];
                }
            }
            return b;
        }

        /** Per sender, (time since start, payload bytes) pairs, for plots. */
        private List<long[]> timeline(long t0) {
            List<long[]> out = new ArrayList<>();
            for (int i = 0; i < arrivals.size(); i++) {
                int n = arrivalCounts.get(i)[0];
                long[] a = java.util.Arrays.copyOf(arrivals.get(i), 2 * n);
                for (int j = 0; j < n; j++) {
                    a[2 * j] -= t0;
                }
                out.add(a);
            }
            return out;
        }
    }
}
