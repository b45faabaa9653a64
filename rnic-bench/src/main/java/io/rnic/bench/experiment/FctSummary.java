package io.rnic.bench.experiment;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Flow-completion-time statistics in the layout of HPCC's {@code analysis/fct_analysis.py}:
 * <ul>
 *   <li><b>slowdown</b> = max(1, FCT / ideal): the clamp is HPCC's ({@code slow<1?1:slow});</li>
 *   <li><b>buckets</b>: the flows sorted by size (ties by arrival) and cut by count into groups of
 *       {@code step} % of the flows, group {@code i} being rows
 *       {@code [floor(i·n/100), floor((i+step)·n/100))} for i = 0, step, 2·step, ... (step 5:
 *       20 groups); a group is labelled by its largest flow size; an empty group (fewer than
 *       100/step flows) is left out;</li>
 *   <li><b>percentile</b> p of a group: its values sorted, at index floor(len·p)
 *       ({@code get_pctl}).</li>
 * </ul>
 * HPCC's script also drops the last flow of its input (a {@code [:-2]} that was meant to drop
 * only the trailing empty line); this class does not.
 */
public final class FctSummary {
    private FctSummary() {
    }

    /**
     * A group of flows.
     *
     * @param upperBytes  the largest flow size in the group (0 for an empty group)
     * @param flows       flows in the group
     * @param p50         median slowdown
     * @param p95         95th-percentile slowdown
     * @param p99         99th-percentile slowdown
     * @param avgFctNanos mean FCT
     * @param p99FctNanos 99th-percentile FCT
     */
    public record Bucket(long upperBytes, int flows, double p50, double p95, double p99, double avgFctNanos, long p99FctNanos) {
    }

    /** max(1, FCT / ideal); NaN for a flow that did not complete (FCT &lt; 0). */
    public static double slowdown(long fctNanos, double idealNanos) {
        if (fctNanos < 0) {
            return Double.NaN;
        }
        double s = fctNanos / idealNanos;
        return s < 1 ? 1 : s;
    }

    /** {@code sorted[floor(len·p)]}, HPCC's percentile. */
    public static double percentile(double[] sorted, double p) {
        return sorted[(int) (sorted.length * p)];
    }

    /** {@code sorted[floor(len·p)]}, HPCC's percentile. */
    public static long percentile(long[] sorted, double p) {
        return sorted[(int) (sorted.length * p)];
    }

    /**
     * The buckets of a set of flows.
     *
     * @param sizes      each flow's size, in arrival order
     * @param fctNanos   its FCT
     * @param slowdowns  its slowdown
     * @param stepPercent the share of flows per group, dividing 100
     * @return the non-empty groups, smallest sizes first
     */
    public static List<Bucket> buckets(long[] sizes, long[] fctNanos, double[] slowdowns, int stepPercent) {
        if (sizes.length != fctNanos.length || sizes.length != slowdowns.length) {
            throw new IllegalArgumentException("sizes, FCTs and slowdowns differ in length: " + sizes.length + ", "
                    + fctNanos.length + ", " + slowdowns.length);
        }
        if (stepPercent < 1 || 100 % stepPercent != 0) {
            throw new IllegalArgumentException("the step " + stepPercent + " % does not divide 100");
        }
        int n = sizes.length;
        int[] order = IntStream.range(0, n).boxed().sorted(Comparator.<Integer>comparingLong(i -> sizes[i])
                .thenComparingInt(i -> i)).mapToInt(Integer::intValue).toArray();
        List<Bucket> out = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i += stepPercent) {
            int l = (int) ((long) i * n / 100);
            int r = (int) ((long) (i + stepPercent) * n / 100);
            if (l < r) {
                out.add(group(Arrays.copyOfRange(order, l, r), sizes, fctNanos, slowdowns));
            }
        }
        return out;
    }

    /** All the flows as one group. */
    public static Bucket overall(long[] sizes, long[] fctNanos, double[] slowdowns) {
        return group(IntStream.range(0, sizes.length).toArray(), sizes, fctNanos, slowdowns);
    }

    private static Bucket group(int[] members, long[] sizes, long[] fctNanos, double[] slowdowns) {
        if (members.length == 0) {
            return new Bucket(0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, -1);
        }
        double[] slow = new double[members.length];
        long[] fct = new long[members.length];
        long upper = 0;
        double sum = 0;
        for (int k = 0; k < members.length; k++) {
            int m = members[k];
            slow[k] = slowdowns[m];
            fct[k] = fctNanos[m];
            upper = Math.max(upper, sizes[m]);
            sum += fctNanos[m];
        }
        Arrays.sort(slow);
        Arrays.sort(fct);
        return new Bucket(upper, members.length, percentile(slow, 0.5), percentile(slow, 0.95), percentile(slow, 0.99),
                sum / members.length, percentile(fct, 0.99));
    }
}
