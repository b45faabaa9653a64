package io.rnic.bench.experiment;

import java.util.Arrays;
import java.util.Locale;

/**
 * Convergence figures of an incast: each flow's goodput over the interval in which every flow is
 * active, less its first {@code warmupNanos} (the last flow's ramp), against the fair share (the
 * flows' total over that interval divided by their number); the bottleneck queue over the same
 * interval; and the longest any port was paused, as a share of the run.
 *
 * @param from        the interval's start, ns since the incast's start
 * @param to          its end
 * @param goodputGbps per flow
 * @param fairGbps    the fair share
 * @param worstDeviation the largest |goodput − fair| / fair
 * @param maxQueue    the deepest the bottleneck queue got in the interval, bytes
 * @param meanQueue   its mean over the interval's samples, bytes
 * @param pausedShare the longest paused time of any port over the incast's completion time
 */
record Convergence(long from, long to, double[] goodputGbps, double fairGbps, double worstDeviation, long maxQueue,
                   double meanQueue, double pausedShare) {

    static Convergence of(IncastExperiment.Result r, long warmupNanos) {
        return over(r, r.overlapStartNanos() + warmupNanos, r.overlapEndNanos());
    }

    /** The same figures over [{@code from}, {@code to}], ns since the incast's start. */
    static Convergence over(IncastExperiment.Result r, long from, long to) {
        int n = r.flows().size();
        double[] g = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            long[] a = r.arrivals().get(i);
            long bytes = 0;
            for (int j = 0; j + 1 < a.length; j += 2) {
                if (a[j] >= from && a[j] <= to) {
                    bytes += a[j + 1];
                }
            }
            g[i] = to > from ? bytes * 8.0 / (to - from) : Double.NaN;
            sum += g[i];
        }
        double fair = sum / n;
        double worst = 0;
        for (double x : g) {
            worst = Math.max(worst, Math.abs(x - fair) / fair);
        }
        long max = 0;
        double total = 0;
        int samples = 0;
        long t0 = -1;
        for (String line : r.queueTrace().lines().skip(1).toList()) {
            String[] c = line.split(",");
            long time = Long.parseLong(c[0]);
            if (t0 < 0) {
                t0 = time;
            }
            long q = Long.parseLong(c[3]);
            if (time - t0 >= from && time - t0 <= to) {
                max = Math.max(max, q);
                total += q;
                samples++;
            }
        }
        return new Convergence(from, to, g, fair, worst, max, samples == 0 ? 0 : total / samples,
                (double) r.pausedNanos() / Math.max(1, r.completionNanos()));
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "interval %.1f-%.1f us, goodput %s Gb/s, fair %.2f, worst deviation %.1f%%, "
                + "queue max %d B mean %.0f B, paused %.2f%%", from / 1e3, to / 1e3, Arrays.toString(
                Arrays.stream(goodputGbps).map(x -> Math.round(x * 100) / 100.0).toArray()), fairGbps, 100 * worstDeviation,
                maxQueue, meanQueue, 100 * pausedShare);
    }
}
