package io.rnic.bench.experiment;

import io.rnic.bench.plot.Axis;
import io.rnic.bench.plot.Figure;
import io.rnic.bench.plot.Panel;
import java.util.List;
import java.util.Locale;

/**
 * An incast's figures as a table for people, a CSV for scripts and a figure: each a pure
 * function of the {@link IncastExperiment.Result}, so a seed gives the same bytes.
 */
public final class IncastReport {
    /** The comment line that opens the CSV: what its columns mean. */
    public static final String CSV_DEFINITIONS = "# goodput_gbps: a sender's bytes over its whole flow (the summary: all bytes"
            + " over the incast's completion time); overlap_goodput_gbps: a sender's bytes delivered while every sender was"
            + " active, over that interval, and jain Jain's fairness index of those; ideal_ns: N*SIZE / bottleneck rate +"
            + " the base RTT, a minimum-size packet's round trip in the idle fabric; max_queue_bytes: the deepest queue"
            + " towards the receiver; pauses and paused_ns: PAUSE frames a sender's host port received and the time it spent"
            + " paused (the summary: PAUSE frames sent in the whole fabric, and the longest any port spent paused);"
            + " retransmissions -1: not known per flow (a READ's requester is the receiver)";
    /** The CSV's header row. */
    public static final String CSV_HEADER = "sender,host,start_ns,completion_ns,ideal_ns,goodput_gbps,"
            + "overlap_goodput_gbps,jain,max_queue_bytes,drops,retransmissions,ecn_marks,pauses,paused_ns,status";

    private final IncastExperiment.Result r;

    /** A report of {@code r}. */
    public IncastReport(IncastExperiment.Result r) {
        this.r = r;
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "nan" : String.format(Locale.ROOT, "%.3f", v);
    }

    /** The CSV: the definitions, the header, one row per sender and the summary row ({@code all}). */
    public String csv() {
        StringBuilder sb = new StringBuilder(CSV_DEFINITIONS).append('\n').append(CSV_HEADER).append('\n');
        List<IncastExperiment.Flow> flows = r.flows();
        for (int i = 0; i < flows.size(); i++) {
            IncastExperiment.Flow f = flows.get(i);
            sb.append(String.format(Locale.ROOT, "%d,%d,%d,%d,,%s,%s,,,,%d,,%d,%d,%s%n", i + 1, f.host(), f.startNanos(),
                    f.completionNanos(), num(f.goodputGbps()), num(f.overlapGoodputGbps()), f.retransmissions(),
                    f.pausesReceived(), f.pausedNanos(), f.status()));
        }
        sb.append(String.format(Locale.ROOT, "all,,%d,%d,%d,%s,%s,%s,%d,%d,%d,%d,%d,%d,%s%n", 0, r.completionNanos(),
                r.idealNanos(), num(r.goodputGbps()), num(flows.stream().mapToDouble(IncastExperiment.Flow::overlapGoodputGbps).sum()),
                num(r.jain()), r.maxQueueBytes(), r.drops(), r.retransmissions(), r.ecnMarks(), r.pauses(), r.pausedNanos(),
                r.allSucceeded() ? "SUCCESS" : "FAILED"));
        return sb.toString();
    }

    /** The table printed to standard output. */
    public String table() {
        IncastExperiment.Config c = r.config();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-6s %5s %12s %14s %10s %12s %8s %7s %12s %s%n", "sender", "host", "start[us]",
                "complete[us]", "goodput", "overlap", "retx", "pauses", "paused[us]", "status"));
        List<IncastExperiment.Flow> flows = r.flows();
        for (int i = 0; i < flows.size(); i++) {
            IncastExperiment.Flow f = flows.get(i);
            sb.append(String.format(Locale.ROOT, "%-6d %5d %12.3f %14.3f %5.2f Gb/s %7s Gb/s %8s %7d %12.3f %s%n", i + 1, f.host(),
                    f.startNanos() / 1e3, f.completionNanos() / 1e3, f.goodputGbps(), num2(f.overlapGoodputGbps()),
                    f.retransmissions() < 0 ? "-" : Long.toString(f.retransmissions()), f.pausesReceived(), f.pausedNanos() / 1e3,
                    f.status()));
        }
        sb.append(String.format(Locale.ROOT, "%nincast of %d x %d B (%s): completed in %.3f us; ideal %.3f us (N*SIZE/rate + base RTT %.3f us)%n",
                flows.size(), c.sizeBytes(), c.op().name().toLowerCase(Locale.ROOT), r.completionNanos() / 1e3,
                r.idealNanos() / 1e3, r.baseRttNanos() / 1e3));
        sb.append(String.format(Locale.ROOT, "goodput %.2f Gb/s; while all were active (%.3f-%.3f us): Jain's index %s%n",
                r.goodputGbps(), r.overlapStartNanos() / 1e3, r.overlapEndNanos() / 1e3, num(r.jain())));
        sb.append(String.format(Locale.ROOT, "bottleneck queue max %d B; drops %d, retransmissions %d, ECN marks %d, PAUSE frames %d, "
                + "longest paused %.3f us%n", r.maxQueueBytes(), r.drops(), r.retransmissions(), r.ecnMarks(), r.pauses(),
                r.pausedNanos() / 1e3));
        return sb.toString();
    }

    private static String num2(double v) {
        return Double.isNaN(v) ? "nan" : String.format(Locale.ROOT, "%5.2f", v);
    }

    /**
     * The figure: the queue towards the receiver over time, and each sender's throughput at the
     * receiver over time (in 50 bins of the incast's duration); with congestion control, each
     * sender's rate over time too.
     */
    public String svg() {
        Figure f = new Figure(String.format(Locale.ROOT, "Incast of %d x %d B (%s, PFC %s, ECN %s, %s%s)", r.flows().size(),
                r.config().sizeBytes(), r.config().op().name().toLowerCase(Locale.ROOT), r.config().pfc() ? "on" : "off",
                r.config().ecn() ? "on" : "off", r.config().recovery(),
                r.config().cc() == io.rnic.verbs.CongestionControlScheme.NONE ? "" : ", CC " + r.config().cc().cliName()));
        List<double[]> q = queue();
        Panel queue = f.panel("Queue towards the receiver", Axis.linear("time (µs)"), Axis.linear("queue (KB)"));
        queue.line("bottleneck queue", q.get(0), q.get(1));
        Panel rate = f.panel("Throughput at the receiver, per sender", Axis.linear("time (µs)"), Axis.linear("throughput (Gb/s)"));
        int bins = 50;
        double span = Math.max(1, r.completionNanos() + r.flows().stream().mapToLong(IncastExperiment.Flow::startNanos).min().orElse(0));
        double width = span / bins;
        for (int i = 0; i < r.arrivals().size(); i++) {
            double[] x = new double[bins];
            double[] y = new double[bins];
            long[] a = r.arrivals().get(i);
            for (int j = 0; j + 1 < a.length; j += 2) {
                int b = (int) Math.min(bins - 1, a[j] / width);
                y[b] += a[j + 1];
            }
            for (int b = 0; b < bins; b++) {
                x[b] = (b + 0.5) * width / 1e3;
                y[b] = y[b] * 8 / width; // bytes per ns * 8 = Gb/s
            }
            rate.line("sender " + (i + 1), x, y);
        }
        if (!r.rates().isEmpty()) {
            Panel cc = f.panel("Congestion-control rate per sender (" + r.config().cc().cliName() + ")",
                    Axis.linear("time (µs)"), Axis.linear("rate (Gb/s)"));
            for (int i = 0; i < r.rates().size(); i++) {
                double[] a = r.rates().get(i);
                int k = 0;
                double[] x = new double[a.length / 2];
                double[] y = new double[a.length / 2];
                for (int j = 0; j + 1 < a.length; j += 2) {
                    if (Double.isFinite(a[j + 1])) { // before its QP is ready to send it has no rate
                        x[k] = a[j] / 1e3;
                        y[k++] = a[j + 1];
                    }
                }
                if (k > 0) {
                    cc.line("sender " + (i + 1), java.util.Arrays.copyOf(x, k), java.util.Arrays.copyOf(y, k));
                }
            }
        }
        return f.svg();
    }

    /** The queue trace as (time µs, KB) columns. */
    private List<double[]> queue() {
        List<String> lines = r.queueTrace().lines().skip(1).toList();
        double[] t = new double[Math.max(1, lines.size())];
        double[] kb = new double[t.length];
        long t0 = -1;
        for (int i = 0; i < lines.size(); i++) {
            String[] c = lines.get(i).split(",");
            long time = Long.parseLong(c[0]);
            if (t0 < 0) {
                t0 = time;
            }
            t[i] = (time - t0) / 1e3;
            kb[i] = Long.parseLong(c[3]) / 1e3;
        }
        return List.of(t, kb);
    }
}
