package io.rnic.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The flow-size tables and HPCC's custom_rand sampling: linear interpolation, exact mean. */
class FlowSizeCdfTest {
    @Test
    void theShippedTablesHaveTheMeansHpccsGetAvgGives() {
        // Σ midpoint × Δpercent / 100 over the segments, worked out by hand in the project's notes.
        assertEquals(1_711_250.0, FlowSizeCdf.webSearch().mean(), 1e-6);
        assertEquals(120_420.75, FlowSizeCdf.hadoop().mean(), 1e-6);
        assertEquals(12, FlowSizeCdf.webSearch().sizes().length, "HPCC's WebSearch table has 12 points");
        assertEquals(20, FlowSizeCdf.hadoop().sizes().length, "HPCC's FbHdp table has 20 points");
        assertEquals(30_000_000, FlowSizeCdf.webSearch().maxSize());
        assertEquals(10_000_000, FlowSizeCdf.hadoop().maxSize());
    }

    @Test
    void aPercentileIsInterpolatedLinearlyBetweenTheTablesPoints() {
        FlowSizeCdf w = FlowSizeCdf.webSearch();
        assertEquals(0, w.sizeAt(0));
        assertEquals(10_000, w.sizeAt(15), "a point of the table");
        assertEquals(15_000, w.sizeAt(17.5), "halfway from 10000 @ 15 % to 20000 @ 20 %");
        assertEquals(1_500_000, w.sizeAt(75), "halfway from 1 MB @ 70 % to 2 MB @ 80 %");
        assertEquals(30_000_000, w.sizeAt(100));
        assertThrows(IllegalArgumentException.class, () -> w.sizeAt(100.5));
        assertThrows(IllegalArgumentException.class, () -> w.sizeAt(Double.NaN));
    }

    @Test
    void aLargeSeededSampleHasTheTablesMeanAndShape() {
        for (FlowSizeCdf cdf : new FlowSizeCdf[] {FlowSizeCdf.webSearch(), FlowSizeCdf.hadoop()}) {
            SplittableRandom r = new SplittableRandom(42);
            int n = 400_000;
            double sum = 0;
            int atMostMedianPoint = 0;
            double[] xs = cdf.sizes();
            double[] ys = cdf.percents();
            int mid = xs.length / 2;
            for (int i = 0; i < n; i++) {
                long s = cdf.sample(r);
                assertTrue(s >= 1 && s <= cdf.maxSize(), s + " is outside 1.." + cdf.maxSize());
                sum += s;
                atMostMedianPoint += s <= xs[mid] ? 1 : 0;
            }
            double mean = sum / n;
            assertEquals(cdf.mean(), mean, cdf.mean() * 0.02, cdf.name() + ": the sampled mean is within 2 % of the table's");
            assertEquals(ys[mid] / 100, (double) atMostMedianPoint / n, 0.005,
                    cdf.name() + ": the share of sizes up to " + xs[mid] + " B is the table's " + ys[mid] + " %");
        }
    }

    @Test
    void theSameSeedDrawsTheSameSizesAndAnotherSeedOthers() {
        FlowSizeCdf w = FlowSizeCdf.webSearch();
        long[] a = draw(w, 7);
        assertArrayEquals(a, draw(w, 7));
        assertFalse(java.util.Arrays.equals(a, draw(w, 8)));
    }

    private static long[] draw(FlowSizeCdf cdf, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        long[] out = new long[1000];
        for (int i = 0; i < out.length; i++) {
            out[i] = cdf.sample(r);
        }
        return out;
    }

    @Test
    void aCustomTableIsReadFromAFileWithCommentsAndBlankLines(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("mine.cdf");
        Files.writeString(f, "# two segments\n0 0\n\n1000 50\n3000 100\n");
        FlowSizeCdf c = FlowSizeCdf.read(f);
        assertEquals(f.toString(), c.name());
        // (0 + 1000) / 2 × 50 + (1000 + 3000) / 2 × 50, over 100
        assertEquals(1250, c.mean(), 1e-9);
        assertEquals(2000, c.sizeAt(75));
    }

    @Test
    void aTableThatIsNotACdfIsRefusedNamingTheLine() {
        assertEquals("t line 1: the first point's percent is 5; a CDF starts at 0",
                refused("0 5\n10 100\n"));
        assertEquals("t line 2: the last point's percent is 90; a CDF ends at 100", refused("0 0\n10 90\n"));
        assertEquals("t line 3: size 10 is not above line 2's 10; sizes must strictly increase",
                refused("0 0\n10 50\n10 100\n"));
        assertEquals("t line 3: percent 50 is not above line 2's 50; percents must strictly increase",
                refused("0 0\n10 50\n20 50\n30 100\n"));
        assertEquals("t line 2: '10 50 x' is not 'size_bytes cumulative_percent' (two numbers)",
                refused("0 0\n10 50 x\n20 100\n"));
        assertEquals("t line 2: size 'ten' is not a number", refused("0 0\nten 50\n20 100\n"));
        assertEquals("t line 2: percent 120 is above 100", refused("0 0\n10 120\n"));
        assertEquals("t: a CDF needs at least two points (from 'S 0' to 'S 100'), found 1", refused("0 0\n"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FlowSizeCdf.builtIn("cache")).getMessage()
                .contains("websearch or hadoop"));
    }

    private static String refused(String text) {
        return assertThrows(IllegalArgumentException.class, () -> FlowSizeCdf.parse("t", text)).getMessage();
    }
}
