package io.rnic.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Poisson arrivals at a load, as HPCC's traffic_gen.py makes them, and the incast overlay. */
class WorkloadsTest {
    private static final long G100 = 100_000_000_000L;

    private static int[] hosts(int n) {
        int[] h = new int[n];
        for (int i = 0; i < n; i++) {
            h[i] = 2 * i + 1; // node ids need not be 0..n-1
        }
        return h;
    }

    private static long[] rates(int n, long bps) {
        long[] r = new long[n];
        java.util.Arrays.fill(r, bps);
        return r;
    }

    @Test
    void theMeanGapIsTrafficGensAvgInterArrival() {
        // avg_size × 8 / (bandwidth × load): WebSearch at 100G, load 0.3 and 0.5.
        assertEquals(456_333.33, Workloads.meanInterArrivalNanos(FlowSizeCdf.webSearch().mean(), G100, 0.3), 0.01);
        assertEquals(273_800.0, Workloads.meanInterArrivalNanos(FlowSizeCdf.webSearch().mean(), G100, 0.5), 0.01);
        assertEquals(32_112.2, Workloads.meanInterArrivalNanos(FlowSizeCdf.hadoop().mean(), G100, 0.3), 0.01);
    }

    @Test
    void eachHostOffersTheLoadAsPoissonArrivalsToUniformlyRandomOtherHosts() {
        int n = 16;
        int[] h = hosts(n);
        long duration = 20_000_000; // 20 ms
        double load = 0.5;
        FlowSizeCdf sizes = FlowSizeCdf.hadoop();
        List<FlowSpec> flows = Workloads.poisson(h, rates(n, G100), load, duration, sizes, 3);
        double gap = Workloads.meanInterArrivalNanos(sizes.mean(), G100, load);
        double expected = n * duration / gap; // about 16,600
        // A Poisson count has standard deviation sqrt(expected), under 1 %.
        assertEquals(expected, flows.size(), expected * 0.03, "flows in " + duration + " ns");
        int[][] pairs = new int[2 * n + 1][2 * n + 1];
        long bytes = 0;
        long last = 0;
        for (int i = 0; i < flows.size(); i++) {
            FlowSpec f = flows.get(i);
            assertEquals(i, f.id());
            assertNotEquals(f.src(), f.dst());
            assertTrue(f.startNanos() >= last && f.startNanos() < duration, "in arrival order, within the duration");
            assertEquals(3, f.priority());
            last = f.startNanos();
            pairs[f.src()][f.dst()]++;
            bytes += f.bytes();
        }
        // Every ordered pair of distinct hosts is drawn, about equally (about 69 flows each).
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int s : h) {
            for (int d : h) {
                if (s != d) {
                    min = Math.min(min, pairs[s][d]);
                    max = Math.max(max, pairs[s][d]);
                }
            }
        }
        assertTrue(min > 35 && max < 110, "pair counts from " + min + " to " + max);
        double offered = bytes * 8.0 / (n * G100 * (duration / 1e9));
        assertEquals(load, offered, load * 0.1, "the offered load");
    }

    @Test
    void theSameSeedMakesTheSameFlowsAndAnotherSeedOthers() {
        int[] h = hosts(8);
        List<FlowSpec> a = Workloads.poisson(h, rates(8, G100), 0.4, 2_000_000, FlowSizeCdf.webSearch(), 11);
        assertEquals(a, Workloads.poisson(h, rates(8, G100), 0.4, 2_000_000, FlowSizeCdf.webSearch(), 11));
        assertNotEquals(a, Workloads.poisson(h, rates(8, G100), 0.4, 2_000_000, FlowSizeCdf.webSearch(), 12));
    }

    @Test
    void aHigherLoadOnTheSameSeedMakesMoreFlows() {
        int[] h = hosts(8);
        int low = Workloads.poisson(h, rates(8, G100), 0.3, 5_000_000, FlowSizeCdf.webSearch(), 5).size();
        int high = Workloads.poisson(h, rates(8, G100), 0.6, 5_000_000, FlowSizeCdf.webSearch(), 5).size();
        assertTrue(high > 1.6 * low, low + " flows at 0.3, " + high + " at 0.6");
    }

    @Test
    void anIncastOverlayIsPeriodicBurstsOfDistinctSendersToOneReceiver() {
        int[] h = hosts(16);
        List<FlowSpec> flows = Workloads.incast(h, new Workloads.IncastOverlay(5, 65_536, 1_000_000), 3_000_000, 9);
        assertEquals(15, flows.size(), "bursts at 0.5, 1.5 and 2.5 ms of 5 senders each");
        for (int b = 0; b < 3; b++) {
            List<FlowSpec> burst = flows.subList(5 * b, 5 * b + 5);
            Set<Integer> senders = new HashSet<>();
            for (FlowSpec f : burst) {
                assertEquals(500_000 + 1_000_000L * b, f.startNanos());
                assertEquals(burst.get(0).dst(), f.dst(), "one receiver per burst");
                assertTrue(f.incast());
                assertEquals(65_536, f.bytes());
                senders.add(f.src());
            }
            assertEquals(5, senders.size(), "distinct senders");
        }
        List<FlowSpec> merged = Workloads.merge(Workloads.poisson(h, rates(16, G100), 0.3, 3_000_000,
                FlowSizeCdf.webSearch(), 9), flows);
        for (int i = 1; i < merged.size(); i++) {
            assertEquals(i, merged.get(i).id());
            assertTrue(merged.get(i).startNanos() >= merged.get(i - 1).startNanos());
        }
    }

    @Test
    void badArgumentsAreRefusedSayingWhy() {
        FlowSizeCdf w = FlowSizeCdf.webSearch();
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Workloads.poisson(hosts(1), rates(1, G100), 0.3, 1_000, w, 1)).getMessage().contains("at least two hosts"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Workloads.poisson(hosts(4), rates(4, G100), 0, 1_000, w, 1)).getMessage().contains("load must be above 0"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Workloads.incast(hosts(4), new Workloads.IncastOverlay(4, 10, 10), 100, 1)).getMessage()
                .contains("needs 5 hosts"));
        assertThrows(IllegalArgumentException.class, () -> new Workloads.IncastOverlay(0, 10, 10));
        assertThrows(IllegalArgumentException.class, () -> new FlowSpec(0, 3, 3, 3, 10, 0, false));
    }
}
