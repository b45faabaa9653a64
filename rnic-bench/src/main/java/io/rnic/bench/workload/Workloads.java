package io.rnic.bench.workload;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Workloads of flows, generated from a seed: the same seed gives the same flows, never the wall
 * clock.
 *
 * <p><b>Poisson arrivals</b> ({@link #poisson}), as HPCC's {@code traffic_gen.py}: every host is
 * an independent Poisson source offering {@code load} of its link's rate, so its flows arrive
 * with exponential gaps of mean {@code mean_size × 8 / (load × rate)}; each flow's destination is
 * drawn uniformly from the other hosts and its size from the CDF. Unlike the generator, arrivals
 * start at time 0 rather than 2 s, and a host's last arrival before the end is kept (the
 * generator drops it).
 *
 * <p><b>Incast overlay</b> ({@link #incast}): every period, starting half a period in, one
 * receiver drawn uniformly from the hosts and {@code senders} distinct other hosts, each sending
 * it the same number of bytes at once.
 */
public final class Workloads {
    private Workloads() {
    }

    /**
     * Periodic N-to-1 bursts on top of the background workload.
     *
     * @param senders     hosts sending in each burst
     * @param bytes       what each sends
     * @param periodNanos the time from one burst to the next
     */
    public record IncastOverlay(int senders, long bytes, long periodNanos) {
        /** Checks the values. */
        public IncastOverlay {
            if (senders < 1 || bytes < 1 || bytes > FlowSpec.MAX_BYTES || periodNanos < 1) {
                throw new IllegalArgumentException("an incast overlay needs at least one sender, 1.." + FlowSpec.MAX_BYTES
                        + " bytes and a positive period; got " + senders + ", " + bytes + " B, " + periodNanos + " ns");
            }
        }
    }

    /**
     * The mean gap between two arrivals at one host offering {@code load} of a link of
     * {@code linkBps} with flows of {@code meanBytes}: {@code meanBytes × 8 / (load × linkBps)}
     * seconds, as {@code traffic_gen.py}'s {@code avg_inter_arrival} (WebSearch at 100 Gb/s and
     * load 0.3: 456,333 ns).
     *
     * @return the gap in nanoseconds
     */
    public static double meanInterArrivalNanos(double meanBytes, long linkBps, double load) {
        return meanBytes * 8 / (load * linkBps) * 1e9;
    }

    /**
     * Poisson arrivals from every host.
     *
     * @param hosts         the hosts' node ids
     * @param hostBps       each host's link rate, in the same order
     * @param load          the offered load as a fraction of each host's link rate, above 0
     * @param durationNanos arrivals fall in [0, duration)
     * @param sizes         the flow-size distribution
     * @param seed          the seed
     * @return the flows in arrival order (ties: by source host), ids 0, 1, ...
     */
    public static List<FlowSpec> poisson(int[] hosts, long[] hostBps, double load, long durationNanos, FlowSizeCdf sizes,
            long seed) {
        Objects.requireNonNull(sizes, "sizes");
        if (hosts.length < 2 || hostBps.length != hosts.length) {
            throw new IllegalArgumentException("Poisson arrivals need at least two hosts, each with a rate; got "
                    + hosts.length + " hosts and " + hostBps.length + " rates");
        }
        if (!(load > 0) || !Double.isFinite(load) || durationNanos < 0) {
            throw new IllegalArgumentException("the load must be above 0 and the duration not negative, got " + load
                    + " and " + durationNanos + " ns");
        }
        double mean = sizes.mean();
        List<FlowSpec> flows = new ArrayList<>();
        for (int i = 0; i < hosts.length; i++) {
            // One stream per host: its arrivals do not depend on how many the other hosts drew.
            SplittableRandom r = new SplittableRandom(mix(seed, 0x504F4953L, hosts[i]));
            double gap = meanInterArrivalNanos(mean, hostBps[i], load);
            double t = exponential(r, gap);
            while (t < durationNanos) {
                int d = r.nextInt(hosts.length - 1);
                int dst = hosts[d >= i ? d + 1 : d];
                long bytes = Math.min(FlowSpec.MAX_BYTES, sizes.sample(r));
                flows.add(new FlowSpec(0, hosts[i], dst, 3, bytes, (long) t, false));
                t += exponential(r, gap);
            }
        }
        return numbered(flows);
    }

    /**
     * The flows of an incast overlay over {@code durationNanos}: bursts at (k + 1/2) × period.
     *
     * @param hosts the hosts' node ids
     * @return the flows in arrival order, ids 0, 1, ...
     * @throws IllegalArgumentException if there are fewer than {@code senders + 1} hosts
     */
    public static List<FlowSpec> incast(int[] hosts, IncastOverlay overlay, long durationNanos, long seed) {
        if (hosts.length < overlay.senders() + 1) {
            throw new IllegalArgumentException("an incast of " + overlay.senders() + " senders needs "
                    + (overlay.senders() + 1) + " hosts; the topology has " + hosts.length);
        }
        SplittableRandom r = new SplittableRandom(mix(seed, 0x494E4341L, 0));
        List<FlowSpec> flows = new ArrayList<>();
        for (long t = overlay.periodNanos() / 2; t < durationNanos; t += overlay.periodNanos()) {
            int[] order = hosts.clone();
            // A partial Fisher-Yates shuffle: order[0] is the receiver, the next N the senders.
            for (int i = 0; i <= overlay.senders(); i++) {
                int j = i + r.nextInt(order.length - i);
                int x = order[i];
                order[i] = order[j];
                order[j] = x;
            }
            for (int s = 1; s <= overlay.senders(); s++) {
                flows.add(new FlowSpec(0, order[s], order[0], 3, overlay.bytes(), t, true));
            }
        }
        return numbered(flows);
    }

    /** Both workloads as one, in arrival order (ties: background first, then by source host), ids 0, 1, ... */
    public static List<FlowSpec> merge(List<FlowSpec> a, List<FlowSpec> b) {
        List<FlowSpec> all = new ArrayList<>(a.size() + b.size());
        all.addAll(a);
        all.addAll(b);
        return numbered(all);
    }

    /** Sorted by (start, incast last, source, destination, id) and numbered in that order. */
    private static List<FlowSpec> numbered(List<FlowSpec> flows) {
        List<FlowSpec> sorted = new ArrayList<>(flows);
        sorted.sort(Comparator.comparingLong(FlowSpec::startNanos).thenComparing(FlowSpec::incast)
                .thenComparingInt(FlowSpec::src).thenComparingInt(FlowSpec::dst).thenComparingInt(FlowSpec::id));
        List<FlowSpec> out = new ArrayList<>(sorted.size());
        for (int i = 0; i < sorted.size(); i++) {
            out.add(sorted.get(i).withId(i));
        }
        return out;
    }

    /** An exponential draw of mean {@code mean}: -ln(1 - U) × mean, as {@code traffic_gen.py}'s poisson(). */
    private static double exponential(SplittableRandom r, double mean) {
        return -Math.log(1 - r.nextDouble()) * mean;
    }

    /** SplitMix64's finaliser over the seed, a stream name and an index: independent seeds per stream. */
    static long mix(long seed, long stream, long index) {
        long z = seed * 0x9E3779B97F4A7C15L + stream * 0xBF58476D1CE4E5B9L + index * 0x94D049BB133111EBL;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
