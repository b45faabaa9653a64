package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.wire.PacketSink;
import io.rnic.core.wire.WireReceiver;
import io.rnic.transport.pcap.PcapWriter;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The fabric end to end with raw packets (the bytes are not RoCEv2 here: the fabric does not read
 * them): timing on an idle path, incast with and without PFC, ECN marking and ECT, ECMP per source
 * port and per-packet spraying, link failure and reroute, determinism.
 */
class FabricTest {
    static final long G100 = 100_000_000_000L;
    /** DSCP 26 (priority 3, lossless by default) with ECT(0): what an HCA on the fabric sends. */
    static final int ROCE_ECT = 26 << 2 | PacketSink.ECT0;
    /** DSCP 26 without ECT: a sender whose ECN is off. */
    static final int ROCE_NOT_ECT = 26 << 2;
    /** DSCP 0: priority 0, lossy. */
    static final int LOSSY_ECT = PacketSink.ECT0;

    /** What one host received. */
    static final class Arrivals implements WireReceiver {
        final List<int[]> got = new ArrayList<>(); // seq, tos, source port, time (low bits)
        final List<Long> times = new ArrayList<>();
        final SimNetwork net;

        Arrivals(SimNetwork net) {
            this.net = net;
        }

        @Override
        public void onPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination) {
            onPacket(packet, source, destination, Integer.MIN_VALUE);
        }

        @Override
        public void onPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination, int tos) {
            got.add(new int[] {packet.getInt(packet.readerIndex()), tos, source.getPort(), packet.readableBytes()});
            times.add(net.scheduler().nanoTime());
        }

        int count() {
            return got.size();
        }

        long marked() {
            return got.stream().filter(g -> (g[1] & PacketSink.ECN_MASK) == PacketSink.CE).count();
        }
    }

    static final class Net implements AutoCloseable {
        final SimNetwork net;
        final Fabric fabric;
        final SimWire[] wires;
        final Arrivals[] arrivals;

        Net(long seed, Topology t, FabricConfig c) {
            net = new SimNetwork(seed);
            fabric = Fabric.attach(net, t, c);
            int[] hosts = t.hosts();
            wires = new SimWire[t.nodeCount()];
            arrivals = new Arrivals[t.nodeCount()];
            for (int h : hosts) {
                wires[h] = fabric.host(h);
                arrivals[h] = new Arrivals(net);
                wires[h].receiver(arrivals[h]);
            }
        }

        void send(int from, int to, int seq, int size, int sourcePort, int tos) {
            ByteBuf b = Unpooled.buffer(size);
            b.writeInt(seq);
            b.writeZero(size - 4);
            wires[from].send(b, wires[from].openFlow(sourcePort), wires[to].localAddress(), tos);
        }

        void run() {
            net.scheduler().runUntilIdle();
        }

        @Override
        public void close() {
            net.close();
        }
    }

    @Test
    void aFrameCrossesAnIdleSwitchInTwoSerializationsAndTwoPropagationDelays() {
        try (Net n = new Net(1, Topology.star(2, G100, 1_000), FabricConfig.DEFAULT)) {
            n.send(0, 1, 42, 64, 0xC000, ROCE_ECT);
            n.run();
            // 64 B + 46 B of Ethernet, IPv4, UDP and FCS = 110 B; + 20 B preamble and gap = 130 B:
            // 1,040 bits at 100 Gb/s = 10.4 ns, 11 ns rounded up; twice, plus 1 us per link.
            assertEquals(1, n.arrivals[1].count());
            assertEquals(2 * 11 + 2 * 1_000, n.arrivals[1].times.get(0));
            assertEquals(ROCE_ECT, n.arrivals[1].got.get(0)[1], "an idle switch marks nothing");
            assertEquals(42, n.arrivals[1].got.get(0)[0]);
        }
    }

    /** Eight senders, 400 frames of 1 KiB each, all at once, into host 0 of a star. */
    private static Net incast(FabricConfig c, int tos) {
        Net n = new Net(3, Topology.star(9, G100, 1_000), c);
        for (int s = 1; s <= 8; s++) {
            for (int i = 0; i < 400; i++) {
                n.send(s, 0, s * 10_000 + i, 1024, 0xC000 + s, tos);
            }
        }
        n.run();
        return n;
    }

    @Test
    void anIncastOnALosslessPriorityWithPfcDropsNothing() {
        FabricConfig c = FabricConfig.DEFAULT.withBufferBytes(1 << 20); // 1 MiB: an 8:1 incast overflows it without PFC
        try (Net n = incast(c, ROCE_ECT)) {
            assertEquals(8 * 400, n.arrivals[0].count(), "every frame arrived");
            long drops = n.fabric.portStats().stream().mapToLong(PortStats::drops).sum();
            assertEquals(0, drops);
            long pauses = n.fabric.portStats().stream().mapToLong(PortStats::pausesSent).sum();
            assertTrue(pauses > 0, "the switch paused its senders");
            long paused = n.fabric.portStats().stream().filter(PortStats::host).mapToLong(PortStats::pausedNanos).max().orElse(0);
            assertTrue(paused > 0, "and the hosts' ports spent time paused");
            int[] order = n.arrivals[0].got.stream().filter(g -> g[0] / 10_000 == 1).mapToInt(g -> g[0]).toArray();
            for (int i = 1; i < order.length; i++) {
                assertTrue(order[i] > order[i - 1], "one sender's frames keep their order");
            }
        }
    }

    @Test
    void theSameIncastWithoutPfcOverflowsTheBufferAndDrops() {
        FabricConfig c = FabricConfig.DEFAULT.withBufferBytes(1 << 20).withPfc(false);
        try (Net n = incast(c, ROCE_ECT)) {
            long drops = n.fabric.portStats().stream().mapToLong(PortStats::drops).sum();
            assertTrue(drops > 0, "tail drops at the bottleneck");
            assertEquals(8 * 400 - drops, n.arrivals[0].count(), "every frame arrived or was counted dropped");
            assertEquals(0, n.fabric.portStats().stream().mapToLong(PortStats::pausesSent).sum());
        }
    }

    @Test
    void ectFramesAreMarkedCeOnTheRedCurveAndNonEctFramesNeverAre() {
        // Small thresholds, so that an incast of this size reaches them: Kmin 20 KB, Kmax 200 KB, Pmax 1.
        FabricConfig c = FabricConfig.DEFAULT.withEcnThresholds(EcnThresholds.defaults().with(G100, 20_000, 200_000, 1.0));
        try (Net ect = incast(c, ROCE_ECT); Net notEct = incast(c, ROCE_NOT_ECT)) {
            assertTrue(ect.arrivals[0].marked() > 0, "ECT frames past Kmin are marked CE");
            assertEquals(ect.arrivals[0].marked(), ect.fabric.portStats().stream().mapToLong(PortStats::ecnMarks).sum());
            assertEquals(8 * 400, notEct.arrivals[0].count(), "non-ECT frames of a lossless priority are queued, not dropped");
            assertEquals(0, notEct.arrivals[0].marked(), "and never marked");
            assertEquals(0, notEct.fabric.portStats().stream().mapToLong(PortStats::ecnMarks).sum());
        }
    }

    @Test
    void nonEctFramesOfALossyPriorityAreDroppedWhereRedWouldMarkThem() {
        // RFC 3168 §5: a router that would have marked a non-ECT packet drops it instead.
        FabricConfig c = FabricConfig.DEFAULT.withEcnThresholds(EcnThresholds.defaults().with(G100, 20_000, 200_000, 1.0));
        try (Net n = incast(c, 0)) { // DSCP 0: priority 0, lossy; not ECT
            long drops = n.fabric.portStats().stream().mapToLong(PortStats::drops).sum();
            assertTrue(drops > 0);
            assertEquals(8 * 400 - drops, n.arrivals[0].count());
            assertEquals(0, n.arrivals[0].marked());
        }
    }

    @Test
    void theControlPriorityIsNeverMarked() {
        FabricConfig c = FabricConfig.DEFAULT.withEcnThresholds(EcnThresholds.defaults().with(G100, 0, 1, 1.0));
        try (Net n = incast(c, 56 << 2 | PacketSink.ECT0)) { // DSCP 56: priority 7
            assertEquals(0, n.arrivals[0].marked());
        }
    }

    /** A leaf-spine of 2 leaves, 4 spines, 4 hosts per leaf: hosts 0-3 on leaf 8, 4-7 on leaf 9, spines 10-13. */
    private static Topology leafSpine() {
        return Topology.leafSpine(2, 4, 4, G100, G100, 1_000);
    }

    /** Frames leaf 8 sent up each of its four spine ports (its ports 4..7). */
    private static long[] uplinkFrames(Net n) {
        long[] f = new long[4];
        for (int s = 0; s < 4; s++) {
            f[s] = n.fabric.portStats(8, 4 + s).txFrames();
        }
        return f;
    }

    @Test
    void ecmpKeepsEachSourcePortOnOnePathAndSpreadsSourcePortsOverThePaths() {
        try (Net n = new Net(5, leafSpine(), FabricConfig.DEFAULT)) {
            for (int i = 0; i < 50; i++) {
                n.send(0, 4, i, 256, 0xC123, ROCE_ECT); // one QP's flow: one source port
            }
            n.run();
            long[] one = uplinkFrames(n);
            assertEquals(1, java.util.Arrays.stream(one).filter(v -> v > 0).count(), "one flow takes one spine: " +
                    java.util.Arrays.toString(one));
            assertEquals(50, java.util.Arrays.stream(one).sum());
            for (int i = 0; i < 50; i++) {
                assertEquals(i, n.arrivals[4].got.get(i)[0], "in order");
            }
        }
        try (Net n = new Net(5, leafSpine(), FabricConfig.DEFAULT)) {
            for (int port = 0; port < 64; port++) {
                n.send(0, 4, port, 256, 0xC000 + port * 97, ROCE_ECT); // 64 QPs' flows
            }
            n.run();
            long[] many = uplinkFrames(n);
            assertEquals(4, java.util.Arrays.stream(many).filter(v -> v > 0).count(), "64 flows use all four spines: "
                    + java.util.Arrays.toString(many));
        }
    }

    @Test
    void perPacketSprayingUsesEveryPathAndReordersOneFlow() {
        try (Net n = new Net(5, leafSpine(), FabricConfig.DEFAULT.withSprayPerPacket(true))) {
            // Another flow first keeps one spine's queue busy, so sprayed frames overtake each other.
            for (int i = 0; i < 200; i++) {
                n.send(1, 5, 100_000 + i, 4096, 0xC777, ROCE_ECT);
            }
            for (int i = 0; i < 200; i++) {
                n.send(0, 4, i, 1024, 0xC123, ROCE_ECT);
            }
            n.run();
            assertEquals(4, java.util.Arrays.stream(uplinkFrames(n)).filter(v -> v > 0).count());
            int[] seqs = n.arrivals[4].got.stream().mapToInt(g -> g[0]).toArray();
            assertEquals(200, seqs.length);
            boolean reordered = false;
            for (int i = 1; i < seqs.length; i++) {
                reordered |= seqs[i] < seqs[i - 1];
            }
            assertTrue(reordered, "spraying one flow over paths of different queues reorders it");
        }
    }

    @Test
    void aFailedLinkLosesWhatCrossesItUntilTheRoutesConvergeThenTrafficGoesAround() {
        Topology t = leafSpine();
        // Find the link between leaf 8 and spine 10.
        int link = -1;
        for (int i = 0; i < t.links().size(); i++) {
            Topology.Link l = t.links().get(i);
            if (l.a() == 8 && l.b() == 10 || l.a() == 10 && l.b() == 8) {
                link = i;
            }
        }
        try (Net n = new Net(5, t, FabricConfig.DEFAULT)) {
            n.fabric.linkDown(link, 10_000);
            // One frame per microsecond from 64 flows, from t=0 to t=400 us.
            for (int us = 0; us < 400; us++) {
                final int k = us;
                n.net.scheduler().schedule(us * 1_000L, () -> n.send(0, 4, k, 256, 0xC000 + (k % 64) * 97, ROCE_ECT));
            }
            n.run();
            long lost = n.fabric.linkLosses() + n.fabric.unroutedDrops();
            assertTrue(lost > 0, "frames routed to the dead link before convergence are lost");
            assertEquals(400 - lost, n.arrivals[4].count());
            long afterConvergence = n.arrivals[4].got.stream().filter(g -> g[0] >= 10 + 100 + 5).count();
            assertEquals(400 - 115, afterConvergence, "every frame sent after the routes converged arrives");
        }
    }

    @Test
    void theSameSeedGivesTheSameCaptureAndCounts() throws Exception {
        byte[][] pcap = new byte[2][];
        String[] stats = new String[2];
        for (int run = 0; run < 2; run++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (PcapWriter w = new PcapWriter(out);
                 Net n = new Net(9, Topology.star(5, G100, 1_000),
                         FabricConfig.DEFAULT.withBufferBytes(1 << 20).withEcnThresholds(
                                 EcnThresholds.defaults().with(G100, 20_000, 200_000, 0.5)))) {
                n.fabric.capture(w);
                for (int s = 1; s <= 4; s++) {
                    for (int i = 0; i < 300; i++) {
                        n.send(s, 0, s * 1000 + i, 1024, 0xC000 + s, ROCE_ECT);
                    }
                }
                n.run();
                stats[run] = n.fabric.portStats().toString() + n.fabric.flows();
                w.flush();
            }
            pcap[run] = out.toByteArray();
        }
        assertArrayEquals(pcap[0], pcap[1]);
        assertEquals(stats[0], stats[1]);
        assertTrue(stats[0].contains("ecnMarks=") && pcap[0].length > 4 * 300 * 1024);
    }

    @Test
    void flowsAreCountedPerSourcePort() {
        try (Net n = new Net(1, Topology.star(3, G100, 1_000), FabricConfig.DEFAULT)) {
            for (int i = 0; i < 10; i++) {
                n.send(1, 0, i, 100, 0xC001, ROCE_ECT);
                n.send(2, 0, i, 200, 0xC002, ROCE_ECT);
            }
            n.run();
            List<FlowStats> f = n.fabric.flows();
            assertEquals(2, f.size());
            assertEquals(new FlowStats(1, 0, 0xC001, 4791, 10, 1000, f.get(0).firstNanos(), f.get(0).lastNanos()), f.get(0));
            assertEquals(2000, f.get(1).bytes());
            assertTrue(f.get(0).lastNanos() > f.get(0).firstNanos());
        }
    }

    @Test
    void multicastCopiesReachEveryMemberOnceAndNotTheSender() throws Exception {
        try (Net n = new Net(1, leafSpine(), FabricConfig.DEFAULT)) {
            java.net.InetAddress group = java.net.InetAddress.getByName("239.1.2.3");
            Set<Integer> members = new HashSet<>(List.of(0, 1, 4, 7));
            for (int m : members) {
                n.fabric.join(group, m);
            }
            ByteBuf b = Unpooled.buffer(64).writeInt(77).writeZero(60);
            n.wires[0].send(b, n.wires[0].openFlow(0xC000), new InetSocketAddress(group, 4791), ROCE_ECT);
            n.run();
            for (int h : t().hosts()) {
                int expected = members.contains(h) && h != 0 ? 1 : 0;
                assertEquals(expected, n.arrivals[h].count(), "host " + h);
            }
        }
    }

    private static Topology t() {
        return leafSpine();
    }

    @Test
    void aSlowReceiverPausesItsSwitchAndTheCongestionSpreadsToTheSender() {
        try (Net n = new Net(1, Topology.star(2, G100, 1_000), FabricConfig.DEFAULT.withBufferBytes(1 << 20))) {
            n.fabric.slowReceiver(0, G100 / 4, 32 * 1024);
            for (int i = 0; i < 2000; i++) {
                n.send(1, 0, i, 1024, 0xC001, ROCE_ECT);
            }
            n.run();
            assertEquals(2000, n.arrivals[0].count(), "nothing lost");
            assertTrue(n.fabric.portStats(0, 0).pausesSent() > 0, "the receiving host paused its switch");
            assertTrue(n.fabric.portStats(2, 1).pausesSent() > 0, "the switch, filling up, paused the sender");
            assertFalse(n.fabric.portStats(1, 0).pausedNanos() == 0, "the sender's port spent time paused");
        }
    }
}
