package io.rnic.bench.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The results of a loss experiment as a table for people, a CSV for scripts and an SVG plot of
 * goodput against loss; each a pure function of the results, so a seed gives the same bytes.
 */
public final class ExperimentReport {
    /** The CSV's header row. */
    public static final String CSV_HEADER = "mode,op,loss,goodput_fraction,packets_sent,retransmissions_per_loss,p50_us,p99_us";

    /** A result with its goodput as a fraction of the same mode's and operation's lossless run. */
    public record Row(LossExperiment.Result result, double goodputFraction) { }

    private final List<Row> rows = new ArrayList<>();

    public void add(LossExperiment.Result r, LossExperiment.Result lossless) {
        rows.add(new Row(r, lossless.goodput() == 0 ? 0 : r.goodput() / lossless.goodput()));
    }

    public List<Row> rows() {
        return rows;
    }

    /** The table, one row per mode × operation × loss. */
    public String table() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-8s %-9s %7s %11s %9s %9s %7s %9s %8s %10s %10s%n", "mode", "op", "loss",
                "goodput", "fraction", "packets", "lost", "retx/loss", "timeouts", "p50[us]", "p99[us]"));
        for (Row row : rows) {
            LossExperiment.Result r = row.result();
            sb.append(String.format(Locale.ROOT, "%-8s %-9s %7s %6.2f Gb/s %9.3f %9d %7d %9.2f %8d %10.1f %10.1f%n",
                    r.mode().label(), r.op().label(), loss(r.loss()), r.goodput() * 8 / 1e9, row.goodputFraction(),
                    r.packetsSent(), r.lost(), r.retransmissionsPerLoss(), r.timeouts(), r.p50Micros(), r.p99Micros()));
        }
        sb.append(perMode());
        return sb.toString();
    }

    /**
     * Packets resent per packet lost, per mode over all its lossy runs: the mode's total
     * retransmissions over its total losses (a comment line, after the table).
     */
    String perMode() {
        Map<LossExperiment.Mode, long[]> totals = new LinkedHashMap<>();
        for (Row row : rows) {
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

    /** The CSV: {@link #CSV_HEADER}, then one line per row. */
    public String csv() {
        StringBuilder sb = new StringBuilder(CSV_HEADER).append('\n');
        for (Row row : rows) {
            LossExperiment.Result r = row.result();
            sb.append(String.format(Locale.ROOT, "%s,%s,%s,%.4f,%d,%.3f,%.1f,%.1f%n", r.mode().label(), r.op().label(),
                    loss(r.loss()), row.goodputFraction(), r.packetsSent(), r.retransmissionsPerLoss(), r.p50Micros(),
                    r.p99Micros()));
        }
        return sb.toString();
    }

    private static String loss(double p) {
        return String.format(Locale.ROOT, "%s", p == 0 ? "0" : Double.toString(p));
    }

    /**
     * Goodput fraction against loss, one line per mode, one panel per operation; the loss values
     * sit at evenly spaced, labelled ticks (0, 0.001, 0.01 and 0.05 are unreadable on a linear
     * axis, and 0 has no place on a logarithmic one). An SVG a browser opens.
     */
    public String svg() {
        Map<LossExperiment.Op, Map<LossExperiment.Mode, List<Row>>> byOp = new LinkedHashMap<>();
        List<Double> losses = new ArrayList<>();
        for (Row row : rows) {
            LossExperiment.Result r = row.result();
            byOp.computeIfAbsent(r.op(), k -> new LinkedHashMap<>()).computeIfAbsent(r.mode(), k -> new ArrayList<>()).add(row);
            if (!losses.contains(r.loss())) {
                losses.add(r.loss());
            }
        }
        losses.sort(Double::compare);
        int panelW = 320;
        int panelH = 240;
        int left = 50;
        int top = 40;
        int width = left + byOp.size() * (panelW + 30) + 110;
        int height = top + panelH + 60;
        String[] colours = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"11\">%n", width, height));
        sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\">Goodput under random loss, as a "
                + "fraction of the same mode's lossless run (rnic experiment loss)</text>%n", left));
        int panel = 0;
        for (var opEntry : byOp.entrySet()) {
            int x0 = left + panel * (panelW + 30);
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>%n", x0, top - 6,
                    opEntry.getKey().label()));
            sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                    + "stroke=\"#888\"/>%n", x0, top, panelW, panelH));
            for (int k = 0; k <= 4; k++) {
                double f = k / 4.0;
                int y = top + panelH - (int) Math.round(f * panelH);
                sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#eee\"/>"
                        + "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.2f</text>%n", x0, y, x0 + panelW, y, x0 - 4, y + 4, f));
            }
            for (int i = 0; i < losses.size(); i++) {
                int x = x0 + xAt(i, losses.size(), panelW);
                sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", x,
                        top + panelH + 16, loss(losses.get(i))));
            }
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">loss probability</text>%n",
                    x0 + panelW / 2, top + panelH + 34));
            int c = 0;
            for (var modeEntry : opEntry.getValue().entrySet()) {
                StringBuilder points = new StringBuilder();
                for (Row row : modeEntry.getValue()) {
                    int x = x0 + xAt(losses.indexOf(row.result().loss()), losses.size(), panelW);
                    int y = top + panelH - (int) Math.round(Math.min(1.2, row.goodputFraction()) / 1.0 * panelH);
                    points.append(x).append(',').append(Math.max(top, y)).append(' ');
                }
                String colour = colours[c % colours.length];
                sb.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                        + "points=\"%s\"/>%n", colour, points.toString().trim()));
                if (panel == byOp.size() - 1) {
                    int ly = top + 14 + c * 16;
                    int lx = x0 + panelW + 12;
                    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                            + "stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">%s</text>%n", lx, ly - 4, lx + 18, ly - 4, colour,
                            lx + 22, ly, modeEntry.getKey().label()));
                }
                c++;
            }
            panel++;
        }
        sb.append("</svg>\n");
        return sb.toString();
    }

    /** Losses are spread evenly by rank: 0, 0.001, 0.01, 0.05 are then readable side by side. */
    private static int xAt(int index, int count, int width) {
        return count == 1 ? width / 2 : 12 + (int) Math.round(index * (width - 24.0) / (count - 1));
    }
}
