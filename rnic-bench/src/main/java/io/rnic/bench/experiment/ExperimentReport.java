package io.rnic.bench.experiment;

import io.rnic.bench.plot.Axis;
import io.rnic.bench.plot.Figure;
import io.rnic.bench.plot.Interval;
import io.rnic.bench.plot.Panel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The results of a loss experiment as a table for people, a CSV for scripts and an SVG figure of
 * goodput against loss; each a pure function of the results, so a seed gives the same bytes.
 *
 * <p>A point is one (mode, operation, loss) combination, run with one or more seeds. With one
 * seed per point the table shows each run; with several it shows each point's mean and the
 * half-width of its 95 % confidence interval (Student's t), and the figure draws the interval as
 * an error bar. The CSV always has one row per run (mode, operation, loss, seed), so that a
 * script can aggregate as it likes.
 */
public final class ExperimentReport {
    /** The CSV's header row: one row per run; {@code seed} last, so the older columns keep their places. */
    public static final String CSV_HEADER = "mode,op,loss,goodput_fraction,packets_sent,retransmissions_per_loss,p50_us,"
            + "p99_us,seed";

    /**
     * One run, with its goodput as a fraction of the lossless run of the same mode, operation and
     * seed.
     *
     * @param result          the run's numbers
     * @param goodputFraction goodput over the lossless run's
     * @param seed            the run's seed
     */
    public record Row(LossExperiment.Result result, double goodputFraction, long seed) { }

    /** The runs of one (operation, mode, loss) point. */
    private record Key(LossExperiment.Op op, LossExperiment.Mode mode, double loss) { }

    private final Map<Key, List<Row>> points = new LinkedHashMap<>();

    /**
     * Adds a run.
     *
     * @param r        the run
     * @param lossless the lossless run of the same mode, operation and seed (its goodput is 1.0)
     * @param seed     the seed both ran with
     */
    public void add(LossExperiment.Result r, LossExperiment.Result lossless, long seed) {
        Row row = new Row(r, lossless.goodput() == 0 ? 0 : r.goodput() / lossless.goodput(), seed);
        points.computeIfAbsent(new Key(r.op(), r.mode(), r.loss()), k -> new ArrayList<>()).add(row);
    }

    /** Every run, point by point (operation, mode, loss, in the order first added), seeds in order. */
    public List<Row> rows() {
        List<Row> all = new ArrayList<>();
        points.values().forEach(all::addAll);
        return all;
    }

    /** The most seeds any point has. */
    private int seedsPerPoint() {
        return points.values().stream().mapToInt(List::size).max().orElse(0);
    }

    /**
     * The table: one row per run with one seed per point, else one row per point of means and
     * 95 % half-widths, written {@code mean +- half-width} (ASCII, for any terminal's charset).
     */
    public String table() {
        return (seedsPerPoint() > 1 ? meanTable() : runTable()) + perMode();
    }

    private String runTable() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-8s %-9s %7s %11s %9s %9s %7s %9s %8s %10s %10s%n", "mode", "op", "loss",
                "goodput", "fraction", "packets", "lost", "retx/loss", "timeouts", "p50[us]", "p99[us]"));
        for (Row row : rows()) {
            LossExperiment.Result r = row.result();
            sb.append(String.format(Locale.ROOT, "%-8s %-9s %7s %6.2f Gb/s %9.3f %9d %7d %9.2f %8d %10.1f %10.1f%n",
                    r.mode().label(), r.op().label(), loss(r.loss()), r.goodput() * 8 / 1e9, row.goodputFraction(),
                    r.packetsSent(), r.lost(), r.retransmissionsPerLoss(), r.timeouts(), r.p50Micros(), r.p99Micros()));
        }
        return sb.toString();
    }

    private String meanTable() {
        List<String[]> cells = new ArrayList<>();
        cells.add(new String[] {"mode", "op", "loss", "goodput[Gb/s]", "fraction", "packets", "lost", "retx/loss", "timeouts",
            "p50[us]", "p99[us]"});
        for (Map.Entry<Key, List<Row>> e : points.entrySet()) {
            List<Row> runs = e.getValue();
            Key k = e.getKey();
            cells.add(new String[] {k.mode().label(), k.op().label(), loss(k.loss()),
                pm(interval(runs, r -> r.result().goodput() * 8 / 1e9), "%.2f"), pm(interval(runs, Row::goodputFraction), "%.3f"),
                String.format(Locale.ROOT, "%.0f", interval(runs, r -> r.result().packetsSent()).mean()),
                String.format(Locale.ROOT, "%.1f", interval(runs, r -> r.result().lost()).mean()),
                pm(interval(runs, r -> r.result().retransmissionsPerLoss()), "%.2f"),
                String.format(Locale.ROOT, "%.1f", interval(runs, r -> r.result().timeouts()).mean()),
                pm(interval(runs, r -> r.result().p50Micros()), "%.1f"), pm(interval(runs, r -> r.result().p99Micros()), "%.1f")});
        }
        int[] width = new int[cells.get(0).length];
        for (String[] row : cells) {
            for (int c = 0; c < row.length; c++) {
                width[c] = Math.max(width[c], row[c].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "# %d seeds per point: mean +- half-width of the 95%% confidence interval "
                + "(Student's t); packets, lost and timeouts are means%n", seedsPerPoint()));
        for (String[] row : cells) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < row.length; c++) {
                // the two names left-aligned, the numbers right-aligned, as in the one-seed table
                String cell = c < 2 ? row[c] + " ".repeat(width[c] - row[c].length())
                        : " ".repeat(width[c] - row[c].length()) + row[c];
                line.append(c == 0 ? "" : "  ").append(cell);
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }

    private static Interval interval(List<Row> runs, ToDoubleFunction<Row> value) {
        return Interval.of(runs.stream().mapToDouble(value).toArray());
    }

    private static String pm(Interval i, String format) {
        return String.format(Locale.ROOT, format + " +- " + format, i.mean(), i.halfWidth());
    }

    /**
     * Packets resent per packet lost, per mode over all its lossy runs: the mode's total
     * retransmissions over its total losses (a comment line, after the table).
     */
    String perMode() {
        Map<LossExperiment.Mode, long[]> totals = new LinkedHashMap<>();
        for (Row row : rows()) {
            LossExperiment.Result r = row.result();
            long[] t = totals.computeIfAbsent(r.mode(), k -> new long[2]);
            t[0] += r.retransmissions();
            t[1] += r.lost();
        }
        StringBuilder sb = new StringBuilder("# packets resent per packet lost, all runs of a mode:");
        String sep = " ";
        for (var e : totals.entrySet()) {
            long[] t = e.getValue();
            sb.append(sep).append(e.getKey().label()).append(' ');
            sb.append(t[1] == 0 ? "- (nothing lost)"
                    : String.format(Locale.ROOT, "%.2f (%d for %d)", (double) t[0] / t[1], t[0], t[1]));
            sep = ", ";
        }
        return sb.append('\n').toString();
    }

    /** The CSV: {@link #CSV_HEADER}, then one line per run. */
    public String csv() {
        StringBuilder sb = new StringBuilder(CSV_HEADER).append('\n');
        for (Row row : rows()) {
            LossExperiment.Result r = row.result();
            sb.append(String.format(Locale.ROOT, "%s,%s,%s,%.4f,%d,%.3f,%.1f,%.1f,%d%n", r.mode().label(), r.op().label(),
                    loss(r.loss()), row.goodputFraction(), r.packetsSent(), r.retransmissionsPerLoss(), r.p50Micros(),
                    r.p99Micros(), row.seed()));
        }
        return sb.toString();
    }

    private static String loss(double p) {
        return String.format(Locale.ROOT, "%s", p == 0 ? "0" : Double.toString(p));
    }

    /** True if some point has a loss above 0, which the figure's logarithmic axis can show. */
    public boolean hasLossyPoints() {
        return points.keySet().stream().anyMatch(k -> k.loss() > 0);
    }

    /**
     * Goodput against loss: one panel per operation, one series per mode, loss on a logarithmic
     * axis. Goodput is a fraction of the same mode's lossless run, which is therefore 1 by
     * definition and, at loss 0, has no place on a logarithmic axis: the figure leaves it out and
     * its title says so. With several seeds per point a series shows means with 95 % error bars.
     *
     * @param subtitle what the run was (seeds, messages), appended to the title
     * @throws IllegalStateException if no point has a loss above 0
     */
    public Figure figure(String subtitle) {
        if (!hasLossyPoints()) {
            throw new IllegalStateException("a figure of goodput against loss needs a loss probability above 0");
        }
        boolean intervals = seedsPerPoint() > 1;
        Figure f = new Figure("Goodput under random loss, as a fraction of each mode's lossless run (loss 0, not on the "
                + "log axis)" + (subtitle.isEmpty() ? "" : "; " + subtitle));
        Axis x = Axis.log("loss probability per packet (both directions)");
        Axis y = Axis.linear("goodput / lossless goodput");
        Map<LossExperiment.Op, Map<LossExperiment.Mode, List<Map.Entry<Key, List<Row>>>>> byOp = new LinkedHashMap<>();
        for (Map.Entry<Key, List<Row>> e : points.entrySet()) {
            if (e.getKey().loss() > 0) {
                byOp.computeIfAbsent(e.getKey().op(), k -> new LinkedHashMap<>())
                        .computeIfAbsent(e.getKey().mode(), k -> new ArrayList<>()).add(e);
            }
        }
        for (var op : byOp.entrySet()) {
            Panel panel = f.panel(op.getKey().label(), x, y);
            for (var mode : op.getValue().entrySet()) {
                List<Map.Entry<Key, List<Row>>> pts = new ArrayList<>(mode.getValue());
                pts.sort(Map.Entry.comparingByKey((a, b) -> Double.compare(a.loss(), b.loss())));
                double[] xs = pts.stream().mapToDouble(p -> p.getKey().loss()).toArray();
                Interval[] ys = pts.stream().map(p -> interval(p.getValue(), Row::goodputFraction)).toArray(Interval[]::new);
                if (intervals) {
                    panel.series(mode.getKey().label(), xs, ys);
                } else {
                    panel.series(mode.getKey().label(), xs, java.util.Arrays.stream(ys).mapToDouble(Interval::mean).toArray());
                }
            }
        }
        return f;
    }
}
