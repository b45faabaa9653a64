package io.rnic.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.bench.workload.FlowSizeCdf;
import io.rnic.bench.workload.FlowSpec;
import io.rnic.bench.workload.Workloads;
import io.rnic.transport.fabric.FabricConfig;
import io.rnic.transport.fabric.Topology;
import io.rnic.verbs.LossRecovery;
import io.rnic.verbs.PathMtu;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Small FCT runs on a k=4 fat tree (16 hosts, 100 Gb/s, 1 µs links) in virtual time: a few
 * hundred flows of FB_Hadoop sizes each, real RC QPs, every byte checked.
 */
class FctExperimentTest {
    private static final long G100 = 100_000_000_000L;
    private static final Topology FAT_TREE = Topology.fatTree(4, G100, 1_000);
    private static final FabricRunConfig GBN_PFC = new FabricRunConfig("gbn+pfc", LossRecovery.GO_BACK_N, true, false, io.rnic.verbs.CongestionControlScheme.NONE);
    private static final FctExperiment.Listener QUIET = (sim, finished, total, events) -> { };

    private static List<FlowSpec> hadoop(double load, long durationNanos, long seed) {
        int[] hosts = FAT_TREE.hosts();
        long[] rates = new long[hosts.length];
        java.util.Arrays.fill(rates, G100);
        return Workloads.poisson(hosts, rates, load, durationNanos, FlowSizeCdf.hadoop(), seed);
    }

    private static FctExperiment.Settings settings(List<FlowSpec> flows, long arrivals, long bufferBytes, long seed) {
        return new FctExperiment.Settings(FAT_TREE, flows, arrivals, IncastExperiment.Op.WRITE, PathMtu.MTU_1024, seed, 4, 6,
                256, FabricConfig.DEFAULT.withBufferBytes(bufferBytes), 100_000_000L, 256L << 20);
    }

    @Test
    void everyFlowCompletesWithItsBytesInPlaceAndNoneBeatsItsIdeal() {
        List<FlowSpec> flows = hadoop(0.5, 300_000, 1);
        assertTrue(flows.size() > 200, flows.size() + " flows");
        FctExperiment.Result r = FctExperiment.run(settings(flows, 300_000, 32L << 20, 1), GBN_PFC, QUIET);
        assertEquals(flows.size(), r.completed(), r.firstError());
        assertEquals(0, r.verifyFailures(), "every byte placed where its flow put it");
        assertTrue(r.allVerified());
        assertEquals(0, r.drops(), "PFC keeps priority 3 lossless");
        assertEquals(0, r.retransmissions());
        for (int i = 0; i < flows.size(); i++) {
            // The ideal is a lower bound: the payload alone at the bottleneck rate, and an empty
            // packet's round trip; a real flow also carries headers and its last packet's hops.
            assertTrue(r.fctNanos()[i] >= r.idealNanos()[i], "flow " + i + ": FCT " + r.fctNanos()[i] + " ns, ideal "
                    + r.idealNanos()[i]);
            assertTrue(r.slowdown(i) >= 1);
        }
    }

    @Test
    void sendAndReadFlowsCompleteWithTheirBytesInPlaceToo() {
        List<FlowSpec> flows = hadoop(0.5, 60_000, 7);
        assertTrue(flows.size() > 30, flows.size() + " flows");
        for (IncastExperiment.Op op : new IncastExperiment.Op[] {IncastExperiment.Op.SEND, IncastExperiment.Op.READ}) {
            FctExperiment.Settings s = new FctExperiment.Settings(FAT_TREE, flows, 60_000, op, PathMtu.MTU_1024, 7, 4, 6, 256,
                    FabricConfig.DEFAULT, 100_000_000L, 256L << 20);
            FctExperiment.Result r = FctExperiment.run(s, GBN_PFC, QUIET);
            assertEquals(flows.size(), r.completed(), op + ": " + r.firstError());
            assertEquals(0, r.verifyFailures(), op.toString());
            for (int i = 0; i < flows.size(); i++) {
                assertTrue(r.fctNanos()[i] >= r.idealNanos()[i], op + " flow " + i);
            }
        }
    }

    @Test
    void aLoneFlowRunsCloseToItsIdeal() {
        // One 1 MB flow between pods (6 links): the ideal is 1 MB at 100 Gb/s plus the base RTT;
        // what it adds is the headers, about 6 % at MTU 1024, and one packet's store and forward per hop.
        int[] h = FAT_TREE.hosts();
        List<FlowSpec> one = List.of(new FlowSpec(0, h[0], h[h.length - 1], 3, 1 << 20, 0, false));
        FctExperiment.Result r = FctExperiment.run(settings(one, 0, 32L << 20, 2), GBN_PFC, QUIET);
        assertTrue(r.allVerified());
        double slowdown = r.slowdown(0);
        assertTrue(slowdown > 1.0 && slowdown < 1.12, "slowdown " + slowdown);
        assertTrue(r.idealNanos()[0] > (1 << 20) * 8e9 / G100 + 6 * 2 * 1_000, "the base RTT crosses 6 links twice: "
                + r.idealNanos()[0]);
    }

    @Test
    void theSameSeedGivesTheSameCsvByteForByte() {
        List<FlowSpec> flows = hadoop(0.5, 150_000, 3);
        String a = new FctReport("t", List.of(FctExperiment.run(settings(flows, 150_000, 32L << 20, 3), GBN_PFC, QUIET))).csv();
        List<FlowSpec> again = hadoop(0.5, 150_000, 3);
        FctReport b = new FctReport("t", List.of(FctExperiment.run(settings(again, 150_000, 32L << 20, 3), GBN_PFC, QUIET)));
        assertEquals(a, b.csv());
        assertTrue(a.contains("\ngbn+pfc,all,"), a);
        int columns = FctReport.CSV_HEADER.split(",").length;
        a.lines().filter(l -> !l.startsWith("#")).forEach(l -> assertEquals(columns, l.split(",", -1).length, l));
    }

    @Test
    void aHigherLoadOnTheSameSeedSlowsTheTailDown() {
        double[] p99 = new double[2];
        double[] load = {0.2, 0.8};
        for (int i = 0; i < 2; i++) {
            List<FlowSpec> flows = hadoop(load[i], 200_000, 4);
            FctExperiment.Result r = FctExperiment.run(settings(flows, 200_000, 32L << 20, 4), GBN_PFC, QUIET);
            assertTrue(r.allVerified());
            p99[i] = FctReport.stats(r).all().p99();
        }
        assertTrue(p99[1] > 1.5 * p99[0], "p99 slowdown " + p99[0] + " at load 0.2, " + p99[1] + " at 0.8");
    }

    @Test
    void withoutPfcASmallBufferDropsAndEachLossRecoveryStillDeliversEveryFlow() {
        // An incast of 8 x 64 KB every 100 µs on top of the background, into a 1 MB switch buffer.
        List<FlowSpec> flows = Workloads.merge(hadoop(0.5, 200_000, 5),
                Workloads.incast(FAT_TREE.hosts(), new Workloads.IncastOverlay(8, 65_536, 100_000), 200_000, 5));
        FctExperiment.Settings s = settings(flows, 200_000, 1L << 20, 5);
        FctExperiment.Result pfc = FctExperiment.run(s, GBN_PFC, QUIET);
        assertEquals(0, pfc.drops());
        FctReport.Stats st = FctReport.stats(pfc);
        assertEquals(16, st.incast().flows(), "two bursts of 8, reported apart from the background");
        assertEquals(flows.size() - 16, st.all().flows());
        assertEquals(flows.size() - 16, st.buckets().stream().mapToInt(FctSummary.Bucket::flows).sum());
        assertTrue(pfc.pauses() > 0, "the incasts pause their senders");
        long[] retx = new long[2];
        LossRecovery[] modes = {LossRecovery.GO_BACK_N, LossRecovery.SELECTIVE};
        for (int m = 0; m < 2; m++) {
            FctExperiment.Result r = FctExperiment.run(s, new FabricRunConfig("nopfc", modes[m], false, false, io.rnic.verbs.CongestionControlScheme.NONE), QUIET);
            assertTrue(r.allVerified(), modes[m] + ": " + r.completed() + " of " + flows.size() + "; " + r.firstError());
            assertTrue(r.drops() > 0, modes[m] + " drops");
            assertTrue(r.retransmissions() > 0, modes[m] + " retransmits");
            assertEquals(0, r.pauses());
            retx[m] = r.retransmissions() * 1000 / r.drops();
        }
        assertTrue(retx[1] < retx[0], "selective retransmission resends fewer packets per drop than go-back-N: "
                + retx[1] / 1000.0 + " against " + retx[0] / 1000.0);
    }

    @Test
    void withDcqcnTheHcasAnswerEcnMarksWithCnpsAndEveryFlowStillCompletes() {
        // The incast overlay fills the bottleneck past the RED thresholds (ECN on by default on a fabric).
        List<FlowSpec> flows = Workloads.merge(hadoop(0.5, 200_000, 6),
                Workloads.incast(FAT_TREE.hosts(), new Workloads.IncastOverlay(8, 65_536, 100_000), 200_000, 6));
        FctExperiment.Settings s = settings(flows, 200_000, 32L << 20, 6);
        FctExperiment.Result none = FctExperiment.run(s, GBN_PFC, QUIET);
        assertEquals(0, none.cnps(), "without congestion control no HCA sends a CNP");
        FctExperiment.Result dcqcn = FctExperiment.run(s, new FabricRunConfig("gbn+pfc+dcqcn", LossRecovery.GO_BACK_N,
                true, false, io.rnic.verbs.CongestionControlScheme.DCQCN), QUIET);
        assertTrue(dcqcn.allVerified(), dcqcn.completed() + " of " + flows.size() + "; " + dcqcn.firstError());
        assertTrue(dcqcn.ecnMarks() > 0, "marks");
        assertTrue(dcqcn.cnps() > 0, "CNPs reached the senders: " + dcqcn.cnps());
        assertTrue(dcqcn.cnps() <= dcqcn.ecnMarks(), "at most one CNP per marked packet");
    }
}
