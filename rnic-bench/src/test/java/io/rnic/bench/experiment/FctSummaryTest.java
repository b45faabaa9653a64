package io.rnic.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The slowdown and HPCC's fct_analysis.py bucketing, against values worked out by hand. */
class FctSummaryTest {
    @Test
    void slowdownIsFctOverIdealClampedAtOne() {
        assertEquals(1.5, FctSummary.slowdown(15_000, 10_000));
        assertEquals(1.0, FctSummary.slowdown(10_000, 10_000));
        assertEquals(1.0, FctSummary.slowdown(8_000, 10_000), "fct_analysis.py: slow<1?1:slow");
        assertTrue(Double.isNaN(FctSummary.slowdown(-1, 10_000)), "a flow that did not complete has none");
    }

    @Test
    void aPercentileIsTheSortedValueAtFloorOfLengthTimesP() {
        double[] v = new double[100];
        for (int i = 0; i < 100; i++) {
            v[i] = i + 1;
        }
        assertEquals(51, FctSummary.percentile(v, 0.5), "get_pctl: sorted[int(100 * 0.5)]");
        assertEquals(96, FctSummary.percentile(v, 0.95));
        assertEquals(100, FctSummary.percentile(v, 0.99));
        assertEquals(7, FctSummary.percentile(new double[] {3, 7}, 0.5), "of two values, the larger");
        assertEquals(5, FctSummary.percentile(new long[] {5}, 0.99));
    }

    @Test
    void bucketsAreFivePercentOfTheFlowsByCountSortedBySizeWithHpccsRowBounds() {
        // 30 flows, sizes 30, 29, ..., 1 in arrival order; FCT = 10 × size, ideal = 5 × size, so
        // every slowdown is 2 except flow size 7's, made 4.
        int n = 30;
        long[] sizes = new long[n];
        long[] fct = new long[n];
        double[] slow = new double[n];
        for (int i = 0; i < n; i++) {
            sizes[i] = n - i;
            fct[i] = 10 * sizes[i];
            slow[i] = FctSummary.slowdown(fct[i], 5.0 * sizes[i]);
        }
        slow[n - 7] = 4;
        List<FctSummary.Bucket> b = FctSummary.buckets(sizes, fct, slow, 5);
        // Rows [floor(i·30/100), floor((i+5)·30/100)): [0,1), [1,3), [3,4), [4,6), ... 1, 2, 1, 2 flows.
        assertEquals(20, b.size());
        assertEquals(new FctSummary.Bucket(1, 1, 2, 2, 2, 10, 10), b.get(0));
        assertEquals(new FctSummary.Bucket(3, 2, 2, 2, 2, 25, 30), b.get(1), "sizes 2 and 3: avg FCT 25, p99 the larger");
        assertEquals(new FctSummary.Bucket(4, 1, 2, 2, 2, 40, 40), b.get(2));
        assertEquals(new FctSummary.Bucket(6, 2, 2, 2, 2, 55, 60), b.get(3));
        assertEquals(new FctSummary.Bucket(7, 1, 4, 4, 4, 70, 70), b.get(4), "row 6 alone: size 7, slowdown 4");
        assertEquals(new FctSummary.Bucket(9, 2, 2, 2, 2, 85, 90), b.get(5));
        assertEquals(30, b.get(19).upperBytes());
        int total = 0;
        for (FctSummary.Bucket x : b) {
            total += x.flows();
        }
        assertEquals(n, total, "every flow in exactly one bucket (HPCC's script drops its last; this does not)");
        FctSummary.Bucket all = FctSummary.overall(sizes, fct, slow);
        assertEquals(30, all.flows());
        assertEquals(155, all.avgFctNanos(), 1e-9, "10 × mean size 15.5");
        assertEquals(300, all.p99FctNanos());
        assertEquals(2, all.p50());
        assertEquals(4, all.p99(), "sorted[int(30 × 0.99)] = sorted[29], the one slowdown of 4");
    }

    @Test
    void equalSizesKeepArrivalOrderAndFewFlowsLeaveEmptyBucketsOut() {
        long[] sizes = {5, 5, 5};
        long[] fct = {10, 20, 30};
        double[] slow = {1, 2, 3};
        List<FctSummary.Bucket> b = FctSummary.buckets(sizes, fct, slow, 5);
        // 3 flows: floor(i·3/100) first changes at i = 30, 65 and 95: rows [0,1), [1,2), [2,3), the rest empty.
        assertEquals(3, b.size());
        assertEquals(1, b.get(0).p50(), "the first arrival first");
        assertEquals(3, b.get(2).p50());
        assertThrows(IllegalArgumentException.class, () -> FctSummary.buckets(sizes, fct, slow, 7));
        assertThrows(IllegalArgumentException.class, () -> FctSummary.buckets(sizes, new long[2], slow, 5));
    }
}
