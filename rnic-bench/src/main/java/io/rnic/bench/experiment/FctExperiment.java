package io.rnic.bench.experiment;

import io.rnic.bench.workload.FlowSpec;
import io.rnic.core.hca.HcaLimits;
import io.rnic.transport.fabric.Fabric;
import io.rnic.transport.fabric.FabricConfig;
import io.rnic.transport.fabric.PortStats;
import io.rnic.transport.fabric.Topology;
import io.rnic.transport.pcap.PcapWriter;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimScheduler;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionChannel;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.Counter;
import io.rnic.verbs.DeviceConfig;
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
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Flow completion times of a workload on a simulated fabric, with real verbs end to end: each
 * flow is one message (RDMA WRITE, SEND, or an RDMA READ the destination issues) on an RC QP
 * between its two hosts, posted when the flow arrives; it completes when its work completion
 * does, and then every byte placed at the destination is checked against the pattern the flow
 * carries ({@link PatternTape}).
 *
 * <p><b>QPs</b> come from a pool per (source, destination, priority), as applications keep a few
 * QPs per peer: a flow takes an idle QP of the pool, or opens a new one while the pool has fewer
 * than {@link Settings#qpsPerPair}, or else is posted on the pool's QP with the fewest messages
 * outstanding, behind which it waits its turn (messages on one QP are carried in order). Only
 * if every QP of the pool has {@link #SEND_QUEUE_DEPTH} messages outstanding does the flow wait
 * for one to complete. A QP whose message fails leaves the pool.
 *
 * <p><b>Destination buffers</b> come from one bounded pool of memory ({@link DestinationMemory}),
 * registered on the destination's device as a memory region for the flow's lifetime and given
 * back only after the check; a flow that finds the pool's budget spent waits for memory.
 *
 * <p><b>Timing.</b> A flow's FCT runs from its arrival to its completion at the requester (the
 * source, or the destination for READ), waits included. Its ideal is its payload bytes at the
 * path's bottleneck rate plus the base RTT ({@link BaseRtts}). HPCC's simulator ({@code third.cc},
 * {@code qp_finish}: {@code standalone_fct}) counts 48 B of headers per packet in the bytes and
 * computes its base RTT from the links' delays and one packet's serialization per hop; here the
 * headers are left out and the RTT is measured, so the ideal is a lower bound (the tests check
 * that no flow's FCT is below it; a lone large flow runs at about 1.06 of it at MTU 1024, its
 * headers' share) and the clamp of the slowdown at 1 is kept only for HPCC's sake. Everything
 * runs in virtual time: the same
 * settings and seed give the same result, whatever the machine.
 */
public final class FctExperiment {
    /** Messages one QP may have outstanding (its send queue's depth, and its READ initiator depth). */
    static final int SEND_QUEUE_DEPTH = 16;
    /** How far virtual time runs between two progress reports. */
    private static final long SLICE_NANOS = 20_000;
    private static final long RECV_BIT = 1L << 62;

    /**
     * What every configuration of a comparison shares.
     *
     * @param topology        the fabric's topology
     * @param flows           the workload, in arrival order, ids 0, 1, ...
     * @param arrivalsNanos   the span of the arrivals (for progress reports)
     * @param op              how a flow's bytes move
     * @param mtu             the path MTU
     * @param seed            the seed of the network (ECMP, RED draws, keys) and the pattern
     * @param qpsPerPair      QPs a pool may open per (source, destination, priority)
     * @param timeoutExp      the QPs' local ACK timeout exponent (4.096 µs × 2^t)
     * @param sendWindow      request PSNs a QP may have unacknowledged (the HCA's default is 128, rxe's)
     * @param fabric          every switch parameter; PFC and path selection come from the configuration
     * @param drainLimitNanos how long past the last arrival to wait for the flows to complete
     * @param memoryBytes     the destination memory budget
     */
    public record Settings(Topology topology, List<FlowSpec> flows, long arrivalsNanos, IncastExperiment.Op op, PathMtu mtu,
                           long seed, int qpsPerPair, int timeoutExp, int sendWindow, FabricConfig fabric,
                           long drainLimitNanos, long memoryBytes) {
        /** Checks the values. */
        public Settings {
            Objects.requireNonNull(topology, "topology");
            Objects.requireNonNull(flows, "flows");
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(mtu, "mtu");
            Objects.requireNonNull(fabric, "fabric");
            flows = List.copyOf(flows);
            if (qpsPerPair < 1 || timeoutExp < 1 || timeoutExp > 31 || sendWindow < 1 || sendWindow > 1 << 23
                    || drainLimitNanos < 0 || memoryBytes <= 0 || arrivalsNanos < 0) {
                throw new IllegalArgumentException("settings out of range: " + qpsPerPair + " QPs per pair (>= 1), timeout "
                        + timeoutExp + " (1..31), send window " + sendWindow + " (1..2^23), drain limit " + drainLimitNanos
                        + " ns (>= 0), memory " + memoryBytes + " B (> 0), arrivals " + arrivalsNanos + " ns (>= 0)");
            }
            for (int i = 0; i < flows.size(); i++) {
                FlowSpec f = flows.get(i);
                if (f.id() != i || !topology.isHost(f.src()) || !topology.isHost(f.dst())) {
                    throw new IllegalArgumentException("flow " + i + " (" + f + ") must have id " + i
                            + " and two hosts of the topology");
                }
            }
        }
    }

    /** Told of the run's progress every 20 µs of virtual time; reads no clock of its own. */
    public interface Listener {
        /**
         * Where the run is.
         *
         * @param simNanos   virtual time since the first possible arrival
         * @param finished   flows completed (or failed) so far
         * @param total      flows in the workload
         * @param events     scheduler events so far
         */
        void progress(long simNanos, int finished, int total, long events);
    }

    /**
     * A run of one configuration.
     *
     * @param config          the configuration
     * @param flows           the workload
     * @param fctNanos        per flow, arrival to completion (-1: did not complete)
     * @param idealNanos      per flow, payload / bottleneck rate + base RTT
     * @param outcome         per flow: {@link #COMPLETED}, {@link #FAILED} (an error completion)
     *                        or {@link #INCOMPLETE}
     * @param verifyFailures  completed flows whose destination did not hold exactly their bytes
     * @param drops           frames dropped in the fabric: at switch and host queues, for want of
     *                        a route, or on links
     * @param retransmissions packets the QPs resent
     * @param ackTimeouts     expiries of the QPs' local ACK timers that started a retry: with no
     *                        drops, the retransmissions they caused were spurious (a queue held
     *                        the ACK longer than the timeout)
     * @param pauses          PAUSE frames sent
     * @param pausedNanos     time paused, summed over every port and priority
     * @param ecnMarks        frames marked CE
     * @param cnps            CNPs that reached a QP (handled by its congestion control, or ignored without one)
     * @param events          scheduler events of the run
     * @param endNanos        the last completion, from the first possible arrival
     * @param memoryWaits     flows that waited for destination memory
     * @param queueWaits      flows that waited because every QP of their pool was full
     * @param peakMemoryBytes the most destination memory in use at once
     * @param qps             QP pairs opened
     * @param baseRttProbes   paths measured in the idle fabric
     * @param firstError      the first error completion's status, or empty
     */
    public record Result(FabricRunConfig config, List<FlowSpec> flows, long[] fctNanos, double[] idealNanos, byte[] outcome,
                         long verifyFailures, long drops, long retransmissions, long ackTimeouts, long pauses, long pausedNanos,
                         long ecnMarks, long cnps, long events, long endNanos, long memoryWaits, long queueWaits,
                         long peakMemoryBytes, int qps, int baseRttProbes, String firstError) {
        /** Flows that completed successfully. */
        public int completed() {
            int n = 0;
            for (byte b : outcome) {
                n += b == COMPLETED ? 1 : 0;
            }
            return n;
        }

        /** Flows whose work completed in error. */
        public int failed() {
            int n = 0;
            for (byte b : outcome) {
                n += b == FAILED ? 1 : 0;
            }
            return n;
        }

        /** Flows that neither completed nor failed within the drain limit. */
        public int incomplete() {
            return flows.size() - completed() - failed();
        }

        /** True if every flow completed and every byte checked out. */
        public boolean allVerified() {
            return completed() == flows.size() && verifyFailures == 0;
        }

        /** Slowdown of flow {@code i}: max(1, FCT / ideal). */
        public double slowdown(int i) {
            return FctSummary.slowdown(fctNanos[i], idealNanos[i]);
        }
    }

    /** {@link Result#outcome}: not completed. */
    public static final byte INCOMPLETE = 0;
    /** {@link Result#outcome}: completed successfully. */
    public static final byte COMPLETED = 1;
    /** {@link Result#outcome}: completed in error. */
    public static final byte FAILED = 2;

    private FctExperiment() {
    }

    /** Runs the workload of {@code s} in configuration {@code c}. */
    public static Result run(Settings s, FabricRunConfig c, Listener listener) {
        return run(s, c, listener, null);
    }

    /**
     * Runs the workload of {@code s} in configuration {@code c}; {@code capture}, if not null,
     * records every host link (the base-RTT probes run on another, idle copy of the fabric and
     * are not in it).
     */
    public static Result run(Settings s, FabricRunConfig c, Listener listener, PcapWriter capture) {
        Objects.requireNonNull(s, "s");
        Objects.requireNonNull(c, "c");
        Objects.requireNonNull(listener, "listener");
        FabricConfig fc = fabricConfig(s, c);
        try (SimNetwork net = new SimNetwork(s.seed());
                BaseRtts rtts = new BaseRtts(s.topology(), fc, options(s, c, 3), s.seed())) {
            Fabric fabric = Fabric.attach(net, s.topology(), fc);
            if (capture != null) {
                fabric.capture(capture);
            }
            return new Engine(s, c, net, fabric, rtts).run(listener);
        }
    }

    /** The switches' configuration of a run: the settings' with the configuration's PFC and path selection. */
    static FabricConfig fabricConfig(Settings s, FabricRunConfig c) {
        return s.fabric().withPfc(c.pfc()).withSprayPerPacket(c.spray());
    }

    /**
     * Checks that the fabric of {@code s} can be built in configuration {@code c}, without
     * running anything: a switch buffer too small for the ports' PFC headroom and reserves is
     * refused here rather than in the middle of a comparison.
     *
     * @throws IllegalArgumentException saying what does not fit
     */
    public static void check(Settings s, FabricRunConfig c) {
        try (SimNetwork net = new SimNetwork(s.seed())) {
            Fabric.attach(net, s.topology(), fabricConfig(s, c));
        }
    }

    /** The QPs' options for priority {@code prio}: DSCP 8·prio + 2, which the fabric maps to priority prio. */
    static RcOptions options(Settings s, FabricRunConfig c, int prio) {
        return RcOptions.defaults().withMtu(s.mtu()).withLossRecovery(c.recovery()).withRetry(s.timeoutExp(), 7, 7)
                .withTrafficClass((8 * prio + 2) << 2);
    }

    /** The hosts' HCAs: the default configuration with the settings' send window. */
    static DeviceConfig deviceConfig(Settings s, FabricRunConfig c) {
        return DeviceConfig.defaults().withLimits(HcaLimits.defaults().withSendWindow(s.sendWindow()))
                .withCongestionControl(c.cc());
    }

    /** One host's device and what its flows use. */
    private static final class Host {
        final int node;
        RdmaDevice device;
        ProtectionDomain pd;
        CompletionQueue cq;
        MemoryRegion tape;
        boolean drainScheduled;
        Runnable drain;

        Host(int node) {
            this.node = node;
        }
    }

    /** A connected QP pair: {@code a} at the flow's source, {@code b} at its destination. */
    private static final class Conn {
        final QueuePair a;
        final QueuePair b;
        int outstanding;
        boolean broken;

        Conn(QueuePair a, QueuePair b) {
            this.a = a;
            this.b = b;
        }
    }

    /** The QP pool of one (source, destination, priority), and the flows waiting for it. */
    private static final class Pool {
        final List<Conn> conns = new ArrayList<>(2);
        final ArrayDeque<Integer> waiting = new ArrayDeque<>();
    }

    /** One run's objects and its bookkeeping. */
    private static final class Engine {
        private final Settings s;
        private final FabricRunConfig c;
        private final SimNetwork net;
        private final SimScheduler sched;
        private final Fabric fabric;
        private final BaseRtts rtts;
        private final FlowSpec[] flows;
        private final Host[] hosts;
        private final List<Host> opened = new ArrayList<>();
        private final Map<Long, Pool> pools = new HashMap<>();
        private final RcOptions[] options = new RcOptions[8];
        private final PatternTape tape;
        private final DestinationMemory memory;
        private final long[] fct;
        private final double[] ideal;
        private final byte[] outcome;
        private final Conn[] connOf;
        private final DestinationMemory.Block[] blockOf;
        private final MemoryRegion[] regionOf;
        private final ArrayDeque<Integer> memoryWaiting = new ArrayDeque<>();
        private final WorkCompletion wc = new WorkCompletion();
        private long t0;
        private int nextArrival;
        private int finished;
        private long lastCompletion;
        private long verifyFailures;
        private long memoryWaits;
        private long queueWaits;
        private int qps;
        private int psn = 0x1000;
        private String firstError = "";

        Engine(Settings s, FabricRunConfig c, SimNetwork net, Fabric fabric, BaseRtts rtts) {
            this.s = s;
            this.c = c;
            this.net = net;
            this.sched = net.scheduler();
            this.fabric = fabric;
            this.rtts = rtts;
            this.flows = s.flows().toArray(new FlowSpec[0]);
            int n = flows.length;
            this.hosts = new Host[s.topology().nodeCount()];
            this.fct = new long[n];
            java.util.Arrays.fill(fct, -1);
            this.ideal = new double[n];
            this.outcome = new byte[n];
            this.connOf = new Conn[n];
            this.blockOf = new DestinationMemory.Block[n];
            this.regionOf = new MemoryRegion[n];
            long max = 1;
            for (FlowSpec f : flows) {
                max = Math.max(max, f.bytes());
            }
            this.tape = new PatternTape(s.seed(), max);
            this.memory = new DestinationMemory(s.memoryBytes());
            for (FlowSpec f : flows) {
                host(f.src());
                host(f.dst());
                ideal[f.id()] = f.bytes() * 8e9 / rtts.bottleneckBps(f.src(), f.dst()) + rtts.rtt(f.src(), f.dst());
            }
        }

        /** Host {@code node}, its device opened the first time. */
        private Host host(int node) {
            Host h = hosts[node];
            if (h != null) {
                return h;
            }
            Host nh = new Host(node);
            nh.device = RdmaDevice.open(fabric.host(node), deviceConfig(s, c));
            nh.pd = nh.device.allocPd();
            // Completions are taken as they happen: the channel's handler runs on the simulator's
            // thread, inside the engine, so it only schedules the drain, which runs right after.
            nh.drain = () -> drain(nh);
            CompletionChannel channel = new CompletionChannel(cq -> {
                if (!nh.drainScheduled) {
                    nh.drainScheduled = true;
                    sched.schedule(0, nh.drain);
                }
            });
            nh.cq = nh.device.createCq(1 << 14, channel);
            nh.cq.requestNotify(false);
            nh.tape = nh.pd.registerMemory(tape.buffer(), AccessFlags.REMOTE_READ);
            hosts[node] = nh;
            opened.add(nh);
            return nh;
        }

        Result run(Listener listener) {
            t0 = sched.nanoTime();
            long before = sched.executed();
            if (flows.length > 0) {
                sched.schedule(flows[0].startNanos(), this::arrivals);
            }
            long limit = s.arrivalsNanos() + s.drainLimitNanos();
            if (flows.length > 0) {
                limit = Math.max(limit, flows[flows.length - 1].startNanos() + s.drainLimitNanos());
            }
            while (finished < flows.length && sched.pending() > 0 && sched.nanoTime() - t0 <= limit) {
                sched.runUntil(Math.min(sched.nanoTime() + SLICE_NANOS, t0 + limit + 1));
                listener.progress(sched.nanoTime() - t0, finished, flows.length, sched.executed() - before);
            }
            long events = sched.executed() - before;
            return result(events);
        }

        /** Every flow due now arrives; then the next arrival is scheduled. */
        private void arrivals() {
            long now = sched.nanoTime() - t0;
            while (nextArrival < flows.length && flows[nextArrival].startNanos() <= now) {
                arrive(nextArrival++);
            }
            if (nextArrival < flows.length) {
                sched.schedule(flows[nextArrival].startNanos() - now, this::arrivals);
            }
        }

        private void arrive(int i) {
            DestinationMemory.Block b = memory.take(flows[i].bytes());
            if (b == null) {
                memoryWaits++;
                memoryWaiting.add(i);
                return;
            }
            admit(i, b);
        }

        /** Flow {@code i} has its destination block: register it, mark its edges, and post or queue it. */
        private void admit(int i, DestinationMemory.Block b) {
            FlowSpec f = flows[i];
            blockOf[i] = b;
            ByteBuffer slab = memory.slab(b.slab());
            regionOf[i] = hosts[f.dst()].pd.registerMemory(slab, b.offset(), b.length(),
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            tape.poison(i, slab, b.offset(), (int) f.bytes());
            Pool pool = pools.computeIfAbsent((long) f.src() << 32 | (long) f.dst() << 3 | f.priority(), k -> new Pool());
            Conn conn = pick(pool, f);
            if (conn == null) {
                queueWaits++;
                pool.waiting.add(i);
                return;
            }
            post(i, conn);
        }

        /** An idle QP of the pool, a new one, or the least busy with room; null if all are full. */
        private Conn pick(Pool pool, FlowSpec f) {
            pool.conns.removeIf(k -> k.broken);
            Conn best = null;
            for (Conn k : pool.conns) {
                if (k.outstanding == 0) {
                    return k;
                }
                if (best == null || k.outstanding < best.outstanding) {
                    best = k;
                }
            }
            if (pool.conns.size() < s.qpsPerPair()) {
                Conn k = connect(f);
                pool.conns.add(k);
                return k;
            }
            return best != null && best.outstanding < SEND_QUEUE_DEPTH ? best : null;
        }

        private Conn connect(FlowSpec f) {
            Host src = hosts[f.src()];
            Host dst = hosts[f.dst()];
            QpCaps caps = new QpCaps(SEND_QUEUE_DEPTH, SEND_QUEUE_DEPTH, 1, 1, 0);
            QueuePair a = src.pd.createQp(QpInitAttributes.rc(src.cq, src.cq).withCaps(caps));
            QueuePair b = dst.pd.createQp(QpInitAttributes.rc(dst.cq, dst.cq).withCaps(caps));
            RcOptions o = options[f.priority()];
            if (o == null) {
                o = options[f.priority()] = options(s, c, f.priority());
            }
            Connections.connectPair(a, src.tape, psn, b, dst.tape, psn + 0x10000, o);
            psn = (psn + 0x20000) & 0xFFFFFF;
            qps++;
            return new Conn(a, b);
        }

        private void post(int i, Conn conn) {
            FlowSpec f = flows[i];
            conn.outstanding++;
            connOf[i] = conn;
            Host src = hosts[f.src()];
            MemoryRegion dst = regionOf[i];
            long from = src.tape.address() + tape.window(i);
            int len = (int) f.bytes();
            switch (s.op()) {
                case WRITE -> conn.a.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                        .sge(from, len, src.tape.lkey()).rdma(dst.address(), dst.rkey()));
                case SEND -> {
                    conn.b.postRecv(new RecvWorkRequest().wrId(i | RECV_BIT).sge(dst.address(), len, dst.lkey()));
                    conn.a.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND).signaled(true)
                            .sge(from, len, src.tape.lkey()));
                }
                case READ -> conn.b.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_READ).signaled(true)
                        .sge(dst.address(), len, dst.lkey()).rdma(from, src.tape.rkey()));
                default -> throw new IllegalStateException(s.op().toString());
            }
        }

        /** Takes every completion waiting at {@code h}; arms the CQ first, so none slips by unnoticed. */
        private void drain(Host h) {
            h.drainScheduled = false;
            h.cq.requestNotify(false);
            while (h.cq.poll(wc)) {
                long id = wc.wrId();
                if ((id & RECV_BIT) != 0) {
                    continue; // a SEND's receive: the flow completes at its requester
                }
                complete((int) id, wc.status());
            }
        }

        private void complete(int i, WcStatus status) {
            if (i < 0 || i >= flows.length || outcome[i] != INCOMPLETE) {
                return;
            }
            FlowSpec f = flows[i];
            Conn conn = connOf[i];
            conn.outstanding--;
            DestinationMemory.Block b = blockOf[i];
            if (status == WcStatus.SUCCESS) {
                outcome[i] = COMPLETED;
                if (!tape.verify(i, memory.slab(b.slab()), b.offset(), (int) f.bytes())) {
                    verifyFailures++;
                }
            } else {
                outcome[i] = FAILED;
                conn.broken = true;
                if (firstError.isEmpty()) {
                    firstError = "flow " + i + " (" + f.src() + " -> " + f.dst() + ", " + f.bytes() + " B): " + status;
                }
            }
            long now = sched.nanoTime() - t0;
            fct[i] = now - f.startNanos();
            lastCompletion = Math.max(lastCompletion, now);
            finished++;
            regionOf[i].close();
            regionOf[i] = null;
            blockOf[i] = null;
            memory.give(b);
            Pool pool = pools.get((long) f.src() << 32 | (long) f.dst() << 3 | f.priority());
            while (!pool.waiting.isEmpty()) {
                Conn k = pick(pool, flows[pool.waiting.peek()]);
                if (k == null) {
                    break;
                }
                post(pool.waiting.poll(), k);
            }
            while (!memoryWaiting.isEmpty()) {
                DestinationMemory.Block nb = memory.take(flows[memoryWaiting.peek()].bytes());
                if (nb == null) {
                    break;
                }
                admit(memoryWaiting.poll(), nb);
            }
        }

        private Result result(long events) {
            List<PortStats> ports = fabric.portStats();
            long drops = fabric.unroutedDrops() + fabric.linkLosses();
            long pauses = 0;
            long paused = 0;
            long marks = 0;
            for (PortStats p : ports) {
                drops += p.drops();
                pauses += p.pausesSent();
                marks += p.ecnMarks();
                for (PortStats.QueueStats q : p.queues()) {
                    paused += q.pausedNanos();
                }
            }
            long retx = 0;
            long timeouts = 0;
            long cnps = 0;
            for (Host h : opened) {
                retx += h.device.counters().get(Counter.RETRANSMITTED_PKTS);
                timeouts += h.device.counters().get(Counter.LOCAL_ACK_TIMEOUTS);
                cnps += h.device.counters().get(Counter.RP_CNP_HANDLED) + h.device.counters().get(Counter.RP_CNP_IGNORED);
            }
            return new Result(c, s.flows(), fct, ideal, outcome, verifyFailures, drops, retx, timeouts, pauses, paused, marks, cnps, events,
                    lastCompletion, memoryWaits, queueWaits, memory.peakInUse(), qps, rtts.probes(), firstError);
        }
    }
}
