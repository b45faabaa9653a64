package io.rnic.bench.experiment;

import io.rnic.bench.plot.Axis;
import io.rnic.bench.plot.Figure;
import io.rnic.bench.plot.Panel;
import io.rnic.bench.workload.FlowSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The figures of a fabric experiment's configurations, run on the same flows: a CSV for scripts,
 * a table for people and a figure, each a pure function of the results, so a seed gives the
 * same bytes.
 *
 * <p>The buckets and the {@code all} row cover the background flows that completed; an
 * {@code incast} row covers the incast overlay's flows, if any; the fabric's counters, on the
 * {@code all} row, count everything.
 */
public final class FctReport {
    /** The CSV's definition lines (each a {@code #} comment). */
    public static final String CSV_DEFINITIONS = """
            # slowdown = max(1, FCT / ideal), clamped as HPCC's fct_analysis.py; FCT: from a flow's arrival to its work \
            completion at the requester (the source; the destination for READ), waits for a QP or memory included; ideal: \
            the flow's payload bytes at the path's bottleneck rate + the base RTT, the round trip of a minimum-size packet \
            (a 0-byte RDMA WRITE and its ACK) on the flow's path in the idle fabric (HPCC's third.cc standalone_fct also \
            counts 48 B of headers per packet and computes its RTT from the links)
            # bucket: the completed background flows sorted by size (ties by arrival) and cut into 20 equal-count groups \
            of 5 % of the flows, rows [floor(i*n/100), floor((i+5)*n/100)) as HPCC's fct_analysis.py; bucket = the \
            group's largest flow size in bytes; pNN = the group's sorted values at index floor(len*NN/100); all = every \
            completed background flow; incast = the incast overlay's completed flows
            # counters (on the all row, the whole fabric): drops = frames dropped at switch and host queues, for want of a \
            route or on links; retransmissions = packets the QPs resent; ack_timeouts = expiries of the QPs' local ACK timers that started a \
            retry; pauses = PAUSE frames sent; paused_ns = time \
            paused summed over every port and priority; ecn_marks = frames marked CE; cnps = CNPs that reached a QP; \
            failed = flows whose work completed in error; incomplete = flows not completed when the run stopped; \
            verify_failures = completed flows whose destination bytes were not exactly theirs; end_ns = the last \
            completion; events = simulator events
            """;
    /** The CSV's header row. */
    public static final String CSV_HEADER = "config,bucket,flows,p50_slowdown,p95_slowdown,p99_slowdown,avg_fct_ns,p99_fct_ns,"
            + "drops,retransmissions,ack_timeouts,pauses,paused_ns,ecn_marks,cnps,failed,incomplete,verify_failures,end_ns,events";
    /** The per-flow CSV's header row. */
    public static final String FLOWS_HEADER = "config,flow,src,dst,priority,bytes,start_ns,fct_ns,ideal_ns,slowdown,incast,outcome";

    private final String description;
    private final List<FctExperiment.Result> results;

    /**
     * A report.
     *
     * @param description one line saying what ran (topology, workload, load, seed), for the CSV's
     *                    first line and the figure's title
     * @param results     one per configuration, in order
     */
    public FctReport(String description, List<FctExperiment.Result> results) {
        this.description = Objects.requireNonNull(description, "description");
        this.results = List.copyOf(results);
    }

    /** A configuration's statistics. */
    record Stats(List<FctSummary.Bucket> buckets, FctSummary.Bucket all, FctSummary.Bucket incast) {
    }

    static Stats stats(FctExperiment.Result r) {
        List<Integer> bg = new ArrayList<>();
        List<Integer> inc = new ArrayList<>();
        List<FlowSpec> flows = r.flows();
        for (int i = 0; i < flows.size(); i++) {
            if (r.outcome()[i] == FctExperiment.COMPLETED) {
                (flows.get(i).incast() ? inc : bg).add(i);
            }
        }
        long[][] b = columns(r, bg);
        double[] bs = slowdowns(r, bg);
        long[][] c = columns(r, inc);
        return new Stats(FctSummary.buckets(b[0], b[1], bs, 5), FctSummary.overall(b[0], b[1], bs),
                inc.isEmpty() ? null : FctSummary.overall(c[0], c[1], slowdowns(r, inc)));
    }

    private static long[][] columns(FctExperiment.Result r, List<Integer> which) {
        long[] sizes = new long[which.size()];
        long[] fct = new long[which.size()];
        for (int k = 0; k < sizes.length; k++) {
            sizes[k] = r.flows().get(which.get(k)).bytes();
            fct[k] = r.fctNanos()[which.get(k)];
        }
        return new long[][] {sizes, fct};
    }

    private static double[] slowdowns(FctExperiment.Result r, List<Integer> which) {
        double[] s = new double[which.size()];
        for (int k = 0; k < s.length; k++) {
            s[k] = r.slowdown(which.get(k));
        }
        return s;
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static String row(String config, String bucket, FctSummary.Bucket b) {
        return String.format(Locale.ROOT, "%s,%s,%d,%s,%s,%s,%s,%s", config, bucket, b.flows(), num(b.p50()), num(b.p95()),
                num(b.p99()), b.flows() == 0 ? "" : String.format(Locale.ROOT, "%.0f", b.avgFctNanos()),
                b.flows() == 0 ? "" : Long.toString(b.p99FctNanos()));
    }

    /** The CSV: what ran, the definitions, the header, then per configuration its buckets, its incast row and all. */
    public String csv() {
        StringBuilder sb = new StringBuilder("# ").append(description).append('\n').append(CSV_DEFINITIONS)
                .append(CSV_HEADER).append('\n');
        for (FctExperiment.Result r : results) {
            String config = csvField(r.config().label());
            Stats st = stats(r);
            for (FctSummary.Bucket b : st.buckets()) {
                sb.append(row(config, Long.toString(b.upperBytes()), b)).append(",,,,,,,,,,,,\n");
            }
            if (st.incast() != null) {
                sb.append(row(config, "incast", st.incast())).append(",,,,,,,,,,,,\n");
            }
            sb.append(row(config, "all", st.all())).append(String.format(Locale.ROOT, ",%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d%n",
                    r.drops(), r.retransmissions(), r.ackTimeouts(), r.pauses(), r.pausedNanos(), r.ecnMarks(), r.cnps(), r.failed(),
                    r.incomplete(), r.verifyFailures(), r.endNanos(), r.events()));
        }
        return sb.toString();
    }

    /** One row per flow and configuration. */
    public String flowsCsv() {
        StringBuilder sb = new StringBuilder("# ").append(description).append('\n').append(FLOWS_HEADER).append('\n');
        for (FctExperiment.Result r : results) {
            String config = csvField(r.config().label());
            for (FlowSpec f : r.flows()) {
                int i = f.id();
                byte o = r.outcome()[i];
                sb.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%d,%s,%.1f,%s,%d,%s%n", config, i, f.src(), f.dst(),
                        f.priority(), f.bytes(), f.startNanos(), o == FctExperiment.INCOMPLETE ? "" : Long.toString(r.fctNanos()[i]),
                        r.idealNanos()[i], o == FctExperiment.COMPLETED ? num(r.slowdown(i)) : "", f.incast() ? 1 : 0,
                        o == FctExperiment.COMPLETED ? "completed" : o == FctExperiment.FAILED ? "failed" : "incomplete"));
            }
        }
        return sb.toString();
    }

    /** A label with a comma or quote is quoted, as RFC 4180 says. */
    private static String csvField(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    /** The table printed to standard output. */
    public String table() {
        StringBuilder sb = new StringBuilder();
        for (FctExperiment.Result r : results) {
            Stats st = stats(r);
            sb.append(String.format(Locale.ROOT, "== %s: %d flows, %d completed%s, %d failed, %d incomplete; last completion at %.3f ms%n",
                    r.config().label(), r.flows().size(), r.completed(),
                    r.verifyFailures() == 0 ? " (every byte checked)" : " (" + r.verifyFailures() + " FAILED the byte check)",
                    r.failed(), r.incomplete(), r.endNanos() / 1e6));
            if (st.all().flows() > 0) {
                sb.append(String.format(Locale.ROOT, "   FCT avg %.1f us, p99 %.1f us; slowdown p50 %.2f, p95 %.2f, p99 %.2f%n",
                        st.all().avgFctNanos() / 1e3, st.all().p99FctNanos() / 1e3, st.all().p50(), st.all().p95(), st.all().p99()));
            }
            sb.append(String.format(Locale.ROOT, "   drops %d, retransmissions %d (local ACK timeouts %d), PAUSE frames %d, paused %.1f us "
                    + "(all ports), ECN marks %d, CNPs %d; %d events%n", r.drops(), r.retransmissions(), r.ackTimeouts(), r.pauses(), r.pausedNanos() / 1e3,
                    r.ecnMarks(), r.cnps(), r.events()));
            if (r.memoryWaits() > 0 || r.queueWaits() > 0) {
                sb.append(String.format(Locale.ROOT, "   %d flows waited for destination memory, %d for a QP%n", r.memoryWaits(),
                        r.queueWaits()));
            }
            if (!r.firstError().isEmpty()) {
                sb.append("   first error: ").append(r.firstError()).append('\n');
            }
            if (!st.buckets().isEmpty()) {
                sb.append(String.format(Locale.ROOT, "   %12s %7s %8s %8s %8s %12s%n", "size<=[B]", "flows", "p50", "p95", "p99",
                        "p99 FCT[us]"));
                for (FctSummary.Bucket b : st.buckets()) {
                    sb.append(String.format(Locale.ROOT, "   %12d %7d %8.2f %8.2f %8.2f %12.1f%n", b.upperBytes(), b.flows(), b.p50(),
                            b.p95(), b.p99(), b.p99FctNanos() / 1e3));
                }
            }
            if (st.incast() != null) {
                sb.append(String.format(Locale.ROOT, "   incast flows: %d, slowdown p50 %.2f, p99 %.2f, FCT p99 %.1f us%n",
                        st.incast().flows(), st.incast().p50(), st.incast().p99(), st.incast().p99FctNanos() / 1e3));
            }
        }
        return sb.toString();
    }

    /**
     * The figure: median, 95th- and 99th-percentile slowdown against flow size (the bucket's
     * largest), both on logarithmic axes, one line per configuration.
     *
     * @throws IllegalStateException if no configuration completed any background flow
     */
    public String svg() {
        Figure f = new Figure("FCT slowdown by flow size: " + description);
        String[] titles = {"median slowdown", "95th-percentile slowdown", "99th-percentile slowdown"};
        Panel[] panels = new Panel[3];
        for (int p = 0; p < 3; p++) {
            panels[p] = f.panel(titles[p], Axis.log("flow size (bytes)"), Axis.log("slowdown (FCT / ideal FCT)"));
        }
        boolean any = false;
        for (FctExperiment.Result r : results) {
            List<FctSummary.Bucket> b = stats(r).buckets();
            if (b.isEmpty()) {
                continue;
            }
            any = true;
            double[] x = new double[b.size()];
            double[][] y = new double[3][b.size()];
            for (int i = 0; i < x.length; i++) {
                x[i] = b.get(i).upperBytes();
                y[0][i] = b.get(i).p50();
                y[1][i] = b.get(i).p95();
                y[2][i] = b.get(i).p99();
            }
            for (int p = 0; p < 3; p++) {
                panels[p].series(r.config().label(), x, y[p]);
            }
        }
        if (!any) {
            throw new IllegalStateException("no configuration completed a background flow: nothing to plot");
        }
        return f.svg();
    }
}
