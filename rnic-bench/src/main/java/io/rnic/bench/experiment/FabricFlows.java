package io.rnic.bench.experiment;

import io.rnic.transport.fabric.Fabric;
import io.rnic.transport.fabric.FabricConfig;
import io.rnic.transport.fabric.FlowStats;
import io.rnic.transport.fabric.Topology;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * RC flows on a simulated fabric, for experiments: each flow is one RDMA WRITE of its size on a
 * QP pair of its own between two hosts, posted at its start time. One device per host, opened
 * when a flow first needs it. Completion times are the requester's, read as they happen in
 * virtual time; bytes delivered come from the fabric's per-flow counts.
 */
final class FabricFlows implements AutoCloseable {
    /** One flow and what became of it. */
    static final class Flow {
        final int src;
        final int dst;
        final int bytes;
        final long startNanos;
        final QueuePair qp;
        long completionNanos = -1;
        WcStatus status;

        Flow(int src, int dst, int bytes, long startNanos, QueuePair qp) {
            this.src = src;
            this.dst = dst;
            this.bytes = bytes;
            this.startNanos = startNanos;
            this.qp = qp;
        }

        boolean done() {
            return completionNanos >= 0;
        }
    }

    final SimNetwork net;
    final Fabric fabric;
    private final RcOptions options;
    private final Map<Integer, RdmaDevice> devices = new HashMap<>();
    private final Map<Integer, ProtectionDomain> pds = new HashMap<>();
    private final Map<Integer, CompletionQueue> cqs = new HashMap<>();
    final List<Flow> flows = new ArrayList<>();
    private final WorkCompletion wc = new WorkCompletion();

    FabricFlows(long seed, Topology topology, FabricConfig config, RcOptions options) {
        this.net = new SimNetwork(seed);
        this.fabric = Fabric.attach(net, topology, config);
        this.options = options;
    }

    private RdmaDevice device(int host) {
        return devices.computeIfAbsent(host, h -> {
            RdmaDevice d = RdmaDevice.open(fabric.host(h));
            pds.put(h, d.allocPd());
            cqs.put(h, d.createCq(1024));
            return d;
        });
    }

    /** Adds a flow of {@code bytes} from {@code src} to {@code dst}, posted at {@code startNanos}; returns its index. */
    int flow(int src, int dst, int bytes, long startNanos) {
        device(src);
        device(dst);
        int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
        ProtectionDomain spd = pds.get(src);
        ProtectionDomain dpd = pds.get(dst);
        MemoryRegion from = spd.registerMemory(ByteBuffer.allocateDirect(bytes), access);
        MemoryRegion to = dpd.registerMemory(ByteBuffer.allocateDirect(bytes), access);
        QpCaps caps = new QpCaps(4, 4, 1, 1, 0);
        QueuePair qp = spd.createQp(QpInitAttributes.rc(cqs.get(src), cqs.get(src)).withCaps(caps));
        QueuePair peer = dpd.createQp(QpInitAttributes.rc(cqs.get(dst), cqs.get(dst)).withCaps(caps));
        int index = flows.size();
        Connections.connectPair(qp, from, 0x1000 + 0x100 * index, peer, to, 0x80000 + 0x100 * index, options);
        Flow f = new Flow(src, dst, bytes, startNanos, qp);
        flows.add(f);
        net.scheduler().schedule(Math.max(0, startNanos - net.scheduler().nanoTime()), () -> qp.postSend(new SendWorkRequest()
                .wrId(index).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(from.address(), bytes, from.lkey())
                .rdma(to.address(), to.rkey())));
        return index;
    }

    /** Runs until every flow has completed or {@code untilNanos} of virtual time; returns whether all did. */
    boolean run(long untilNanos) {
        return net.scheduler().runUntil(() -> {
            poll();
            return flows.stream().allMatch(Flow::done);
        }, Math.max(0, untilNanos - net.scheduler().nanoTime()));
    }

    /** Runs for {@code nanos} of virtual time, collecting completions as they come. */
    void runFor(long nanos) {
        long end = net.scheduler().nanoTime() + nanos;
        net.scheduler().runUntil(() -> {
            poll();
            return false;
        }, nanos);
        if (net.scheduler().nanoTime() < end) {
            net.scheduler().runUntil(end);
        }
        poll();
    }

    private void poll() {
        for (CompletionQueue cq : cqs.values()) {
            while (cq.poll(wc)) {
                int i = (int) wc.wrId();
                if (i >= 0 && i < flows.size() && !flows.get(i).done()) {
                    flows.get(i).completionNanos = net.scheduler().nanoTime();
                    flows.get(i).status = wc.status();
                }
            }
        }
    }

    /** RoCEv2 bytes the fabric has delivered of each flow so far (BTH to ICRC, retransmissions included). */
    long[] deliveredBytes() {
        long[] out = new long[flows.size()];
        Map<Long, Long> byKey = new HashMap<>();
        for (FlowStats s : fabric.flows()) {
            byKey.merge((long) s.srcHost() << 32 | s.dstHost(), s.bytes(), Long::sum);
        }
        // Flows are told apart by their hosts; experiments give each (src, dst) pair one flow.
        for (int i = 0; i < out.length; i++) {
            Flow f = flows.get(i);
            out[i] = byKey.getOrDefault((long) f.src << 32 | f.dst, 0L);
        }
        return out;
    }

    @Override
    public void close() {
        net.close();
    }
}
