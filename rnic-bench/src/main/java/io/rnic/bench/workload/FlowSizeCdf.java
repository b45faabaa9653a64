package io.rnic.bench.workload;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A flow-size distribution given as points of its cumulative distribution function, read as
 * HPCC's traffic generator reads its {@code *_distribution.txt} files ({@code custom_rand.py}):
 * one {@code size_bytes cumulative_percent} pair per line, the first at 0 %, the last at 100 %,
 * sizes and percentages strictly increasing; between two points the CDF is a straight line.
 * Lines starting with {@code #} and blank lines are ignored (HPCC's files have none; the tables
 * shipped here name their source in them).
 *
 * <p>A size is drawn by inverse-CDF sampling: a uniform percentile, and the size where the
 * piecewise-linear CDF reaches it, so sizes are uniform within each segment. The mean is that
 * distribution's exact mean, the sum over segments of the segment's midpoint times its share.
 * WebSearch's is 1,711,250 B.
 */
public final class FlowSizeCdf {
    /** The shipped WebSearch table (DCTCP's web-search cluster, as HPCC ships it). */
    public static final String WEBSEARCH = "websearch";
    /** The shipped Facebook Hadoop table (Roy et al., SIGCOMM 2015, as HPCC ships it). */
    public static final String HADOOP = "hadoop";

    private final String name;
    private final double[] sizes;
    private final double[] percents;

    private FlowSizeCdf(String name, double[] sizes, double[] percents) {
        this.name = name;
        this.sizes = sizes;
        this.percents = percents;
    }

    /**
     * Parses a table.
     *
     * @param name what the table is called in messages (a file name, {@code websearch})
     * @param text the table's lines
     * @return the distribution
     * @throws IllegalArgumentException if a line is not two numbers, or the points do not make a
     *     CDF (first percent 0, last 100, both columns strictly increasing), naming the line
     */
    public static FlowSizeCdf parse(String name, String text) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(text, "text");
        List<double[]> points = new ArrayList<>();
        List<Integer> lineOf = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\\s+");
            if (f.length != 2) {
                throw new IllegalArgumentException(name + " line " + (i + 1) + ": '" + line
                        + "' is not 'size_bytes cumulative_percent' (two numbers)");
            }
            double x = number(name, i + 1, f[0], "size");
            double y = number(name, i + 1, f[1], "percent");
            if (x < 0) {
                throw new IllegalArgumentException(name + " line " + (i + 1) + ": size " + f[0] + " is negative");
            }
            if (points.isEmpty() && y != 0) {
                throw new IllegalArgumentException(name + " line " + (i + 1) + ": the first point's percent is " + f[1]
                        + "; a CDF starts at 0");
            }
            if (!points.isEmpty()) {
                double[] prev = points.get(points.size() - 1);
                int prevLine = lineOf.get(lineOf.size() - 1);
                if (x <= prev[0]) {
                    throw new IllegalArgumentException(name + " line " + (i + 1) + ": size " + f[0]
                            + " is not above line " + prevLine + "'s " + fmt(prev[0]) + "; sizes must strictly increase");
                }
                if (y <= prev[1]) {
                    throw new IllegalArgumentException(name + " line " + (i + 1) + ": percent " + f[1]
                            + " is not above line " + prevLine + "'s " + fmt(prev[1]) + "; percents must strictly increase");
                }
            }
            if (y > 100) {
                throw new IllegalArgumentException(name + " line " + (i + 1) + ": percent " + f[1] + " is above 100");
            }
            points.add(new double[] {x, y});
            lineOf.add(i + 1);
        }
        if (points.size() < 2) {
            throw new IllegalArgumentException(name + ": a CDF needs at least two points (from 'S 0' to 'S 100'), found "
                    + points.size());
        }
        double[] last = points.get(points.size() - 1);
        if (last[1] != 100) {
            throw new IllegalArgumentException(name + " line " + lineOf.get(lineOf.size() - 1) + ": the last point's percent is "
                    + fmt(last[1]) + "; a CDF ends at 100");
        }
        double[] xs = new double[points.size()];
        double[] ys = new double[points.size()];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = points.get(i)[0];
            ys[i] = points.get(i)[1];
        }
        return new FlowSizeCdf(name, xs, ys);
    }

    private static double number(String name, int line, String text, String what) {
        try {
            double v = Double.parseDouble(text);
            if (Double.isFinite(v)) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + " line " + line + ": " + what + " '" + text + "' is not a number");
    }

    private static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }

    /**
     * Reads a table from a file.
     *
     * @throws IllegalArgumentException as {@link #parse}, naming the file
     * @throws UncheckedIOException if the file cannot be read
     */
    public static FlowSizeCdf read(Path file) {
        try {
            return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read flow-size CDF " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * One of the shipped tables: {@link #WEBSEARCH} or {@link #HADOOP}.
     *
     * @throws IllegalArgumentException if {@code name} is neither
     */
    public static FlowSizeCdf builtIn(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (!n.equals(WEBSEARCH) && !n.equals(HADOOP)) {
            throw new IllegalArgumentException("no shipped flow-size table '" + name + "': " + WEBSEARCH + " or " + HADOOP);
        }
        try (InputStream in = FlowSizeCdf.class.getResourceAsStream(n + ".cdf")) {
            if (in == null) {
                throw new IllegalStateException("the " + n + ".cdf resource is missing from the rnic jar");
            }
            return parse(n, new String(in.readAllBytes(), StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The WebSearch table. */
    public static FlowSizeCdf webSearch() {
        return builtIn(WEBSEARCH);
    }

    /** The Facebook Hadoop table. */
    public static FlowSizeCdf hadoop() {
        return builtIn(HADOOP);
    }

    /** The table's name. */
    public String name() {
        return name;
    }

    /** The points' sizes, in bytes. */
    public double[] sizes() {
        return sizes.clone();
    }

    /** The points' cumulative percentages. */
    public double[] percents() {
        return percents.clone();
    }

    /** The largest size, at 100 %. */
    public double maxSize() {
        return sizes[sizes.length - 1];
    }

    /**
     * The exact mean of the piecewise-linear distribution: over the segments, the midpoint of
     * the segment's sizes times its share of the flows (as {@code custom_rand.py}'s {@code getAvg}).
     */
    public double mean() {
        double s = 0;
        for (int i = 1; i < sizes.length; i++) {
            s += (sizes[i - 1] + sizes[i]) / 2 * (percents[i] - percents[i - 1]);
        }
        return s / 100;
    }

    /**
     * The size at which the CDF reaches {@code percent}: the first point at or above it, and
     * linear interpolation from the point before (as {@code getValueFromPercentile}).
     *
     * @throws IllegalArgumentException if {@code percent} is outside [0, 100]
     */
    public double sizeAt(double percent) {
        if (!(percent >= 0 && percent <= 100)) {
            throw new IllegalArgumentException("percentile " + percent + " is outside 0..100");
        }
        for (int i = 1; i < sizes.length; i++) {
            if (percent <= percents[i]) {
                return sizes[i - 1] + (sizes[i] - sizes[i - 1]) / (percents[i] - percents[i - 1]) * (percent - percents[i - 1]);
            }
        }
        return sizes[sizes.length - 1];
    }

    /**
     * Draws a flow size: a uniform percentile from {@code random}, its size truncated to whole
     * bytes, and at least 1 byte (as HPCC's {@code traffic_gen.py}).
     */
    public long sample(SplittableRandom random) {
        return Math.max(1, (long) sizeAt(random.nextDouble() * 100));
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s (%d points, mean %.2f B, max %s B)", name, sizes.length, mean(), fmt(maxSize()));
    }
}
