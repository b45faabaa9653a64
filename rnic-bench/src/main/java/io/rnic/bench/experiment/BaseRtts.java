package io.rnic.bench.experiment;

import io.rnic.transport.fabric.Fabric;
import io.rnic.transport.fabric.FabricConfig;
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
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Base round-trip times, measured: a minimum-size packet (a 0-byte RDMA WRITE) and its ACK
 * between two hosts of an idle copy of the fabric, timed from the post to the work completion.
 * One measurement serves every pair of hosts whose path is alike: the same sequence of link
 * rates and delays from source to destination. In a topology whose equal-cost paths between two
 * hosts differ in rates or delays the value is that of one of them (the one through the
 * lowest-numbered ports).
 */
final class BaseRtts implements AutoCloseable {
    private final Topology topology;
    private final SimNetwork idle;
    private final Fabric fabric;
    private final RcOptions options;
    private final Map<Integer, RdmaDevice> devices = new HashMap<>();
    private final Map<Integer, MemoryRegion> regions = new HashMap<>();
    private final Map<Integer, CompletionQueue> cqs = new HashMap<>();
    private final Map<Integer, int[]> distanceTo = new HashMap<>();
    private final Map<String, Long> measured = new HashMap<>();
    private int probes;

    /** Probes on an idle copy of a fabric of {@code topology} with {@code config}, QPs with {@code options}. */
    BaseRtts(Topology topology, FabricConfig config, RcOptions options, long seed) {
        this.topology = topology;
        this.idle = new SimNetwork(seed);
        this.fabric = Fabric.attach(idle, topology, config);
        this.options = options;
    }

    /** The base RTT between {@code src} and {@code dst}, in nanoseconds. */
    long rtt(int src, int dst) {
        return measured.computeIfAbsent(signature(src, dst), k -> probe(src, dst));
    }

    /** Probes measured so far (one per kind of path). */
    int probes() {
        return probes;
    }

    /** The slowest link's rate on the path from {@code src} to {@code dst}. */
    long bottleneckBps(int src, int dst) {
        long min = Long.MAX_VALUE;
        for (int link : path(src, dst)) {
            min = Math.min(min, topology.links().get(link).bitsPerSecond());
        }
        return min;
    }

    /** The path's links' rates and delays, in order: pairs with the same one have the same base RTT. */
    String signature(int src, int dst) {
        StringBuilder s = new StringBuilder();
        for (int link : path(src, dst)) {
            Topology.Link l = topology.links().get(link);
            s.append(l.bitsPerSecond()).append('/').append(l.delayNanos()).append(' ');
        }
        return s.toString();
    }

    /**
     * A shortest path's links from {@code src} to {@code dst} (through switches only), taking at
     * each node the lowest-numbered port that leads one hop closer.
     */
    int[] path(int src, int dst) {
        int[] dist = distanceTo.computeIfAbsent(dst, this::distances);
        if (dist[src] < 0) {
            throw new IllegalArgumentException("host " + dst + " cannot be reached from host " + src + " in " + topology);
        }
        int[] links = new int[dist[src]];
        int at = src;
        for (int hop = 0; hop < links.length; hop++) {
            for (int p = 0; p < topology.portCount(at); p++) {
                int next = topology.neighbour(at, p);
                if (dist[next] == dist[at] - 1) {
                    links[hop] = topology.linkOf(at, p);
                    at = next;
                    break;
                }
            }
        }
        return links;
    }

    /** Hops from every node to {@code dst}, through switches only (-1: unreachable). */
    private int[] distances(int dst) {
        int[] dist = new int[topology.nodeCount()];
        Arrays.fill(dist, -1);
        dist[dst] = 0;
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        queue.add(dst);
        while (!queue.isEmpty()) {
            int n = queue.poll();
            if (n != dst && topology.isHost(n)) {
                continue; // a host is an end, never a hop
            }
            for (int m : topology.neighbours(n)) {
                if (dist[m] < 0) {
                    dist[m] = dist[n] + 1;
                    queue.add(m);
                }
            }
        }
        return dist;
    }

    private RdmaDevice device(int host) {
        return devices.computeIfAbsent(host, h -> {
            RdmaDevice d = RdmaDevice.open(fabric.host(h));
            ProtectionDomain pd = d.allocPd();
            regions.put(h, pd.registerMemory(ByteBuffer.allocateDirect(64), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE));
            cqs.put(h, d.createCq(16));
            return d;
        });
    }

    private long probe(int src, int dst) {
        device(src);
        device(dst);
        MemoryRegion a = regions.get(src);
        MemoryRegion b = regions.get(dst);
        QpCaps caps = new QpCaps(2, 2, 1, 1, 0);
        QueuePair qa = a.pd().createQp(QpInitAttributes.rc(cqs.get(src), cqs.get(src)).withCaps(caps));
        QueuePair qb = b.pd().createQp(QpInitAttributes.rc(cqs.get(dst), cqs.get(dst)).withCaps(caps));
        Connections.connectPair(qa, a, 0x100 + probes, qb, b, 0x200 + probes, options);
        probes++;
        long start = idle.scheduler().nanoTime();
        qa.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true).sge(a.address(), 0, a.lkey())
                .rdma(b.address(), b.rkey()));
        WorkCompletion wc = new WorkCompletion();
        long[] end = {-1};
        idle.scheduler().runUntil(() -> {
            if (end[0] < 0 && cqs.get(src).poll(wc)) {
                end[0] = wc.status() == WcStatus.SUCCESS ? idle.scheduler().nanoTime() : -2;
            }
            return end[0] != -1;
        }, 1_000_000_000L);
        idle.scheduler().runUntilIdle();
        if (end[0] < 0) {
            throw new IllegalStateException("the base-RTT probe from host " + src + " to host " + dst
                    + " did not complete in the idle fabric");
        }
        return end[0] - start;
    }

    @Override
    public void close() {
        idle.close();
    }
}
