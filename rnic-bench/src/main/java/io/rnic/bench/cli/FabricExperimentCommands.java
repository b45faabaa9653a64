package io.rnic.bench.cli;

import io.rnic.bench.experiment.FabricRunConfig;
import io.rnic.bench.experiment.FctExperiment;
import io.rnic.bench.experiment.FctReport;
import io.rnic.bench.experiment.IncastExperiment;
import io.rnic.bench.experiment.IncastReport;
import io.rnic.bench.experiment.PfcExperiment;
import io.rnic.transport.fabric.FabricConfig;
import io.rnic.bench.workload.FlowSizeCdf;
import io.rnic.bench.workload.HpccFlowFile;
import io.rnic.bench.workload.Workloads;
import io.rnic.transport.fabric.Rates;
import io.rnic.transport.fabric.Topology;
import io.rnic.transport.fabric.TopologySpec;
import io.rnic.transport.pcap.PcapWriter;
import io.rnic.verbs.PathMtu;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/**
 * The experiments on a simulated fabric: {@code rnic experiment incast}, {@code rnic experiment
 * pfc} and {@code rnic experiment fabric}.
 */
final class FabricExperimentCommands {
    private FabricExperimentCommands() {
    }

    /** {@code on} or {@code off}. */
    enum OnOff {
        on, off;

        boolean value() {
            return this == on;
        }
    }

    /** A rate such as {@code 100G}, {@code 400G}, {@code 25G} (ns-3's {@code 100Gbps} too). */
    static final class Rate implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return Rates.parseRate(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A byte count, plain or with K, M or G (binary multiples: 1M = 1,048,576). */
    static final class Bytes implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            String v = value.strip().toUpperCase(Locale.ROOT).replace("IB", "").replace("B", "");
            long unit = v.endsWith("K") ? 1L << 10 : v.endsWith("M") ? 1L << 20 : v.endsWith("G") ? 1L << 30 : 1;
            String digits = unit == 1 ? v : v.substring(0, v.length() - 1);
            try {
                long n = Long.parseLong(digits) * unit;
                if (n <= 0) {
                    throw new NumberFormatException();
                }
                return n;
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a positive byte count: use a number, "
                        + "optionally with K, M or G (1M = 1048576)");
            }
        }
    }

    /**
     * {@code rnic experiment incast}: N hosts move SIZE bytes each into one host of a fabric at once.
     */
    @Command(name = "incast", description = {"an N-to-1 incast of RC QPs on a simulated fabric", "",
        """
            N hosts each move SIZE bytes into one host at once (or --stagger apart) on RC QPs: by RDMA \
            WRITE (default), SEND, or an RDMA READ the receiving host issues. The fabric's switches have \
            shared buffers, ECN marking and PFC (see docs/fabric.md). Prints each sender's goodput over \
            its whole flow and over the interval in which every sender is active, Jain's fairness index \
            over that interval, the incast's completion time beside the ideal (N*SIZE / bottleneck rate \
            + the base RTT, a minimum-size packet's round trip in the idle fabric), the bottleneck's \
            deepest queue, and the drops, retransmissions, ECN marks and PAUSE frames.""", "",
        """
            With PFC on, the lossless priority drops nothing; with PFC off and a small buffer the fabric \
            drops and the QPs' own retransmission recovers: go-back-N, the reorder buffer, or selective \
            retransmission with extended headers (IRN-style; Mittal et al., SIGCOMM 2018). The QPs use \
            the short local ACK timeout of 4.096 us x 2^6 = 262 us. The same seed gives the same CSV \
            and figure."""},
            exitCodeList = {"0:every flow completed", "1:a flow failed, or a file could not be written",
                RnicCommand.USAGE_ERROR_LINE, RnicCommand.INTERNAL_ERROR_LINE})
    static final class Incast extends RnicCommand {
        @Option(names = "--senders", paramLabel = "N", defaultValue = "8", description = "senders (default: ${DEFAULT-VALUE})")
        int senders;

        @Option(names = "--size", paramLabel = "BYTES", defaultValue = "1M", converter = Bytes.class,
                description = "bytes each sender moves, e.g. 64K, 1M (default: ${DEFAULT-VALUE})")
        long size;

        @Option(names = "--topology", paramLabel = "SPEC", defaultValue = "star",
                description = "star (N+1 hosts on one switch), or " + TopologySpec.FORMS
                        + "; the receiver is the first host, the senders the last N (default: ${DEFAULT-VALUE})")
        String topology;

        @Option(names = "--link", paramLabel = "RATE", defaultValue = "100G", converter = Rate.class,
                description = "the rate of every link the topology does not set itself (default: 100G)")
        long link;

        @Option(names = "--buffer", paramLabel = "BYTES", defaultValue = "32M", converter = Bytes.class,
                description = "each switch's shared buffer (default: 32M, HPCC's)")
        long buffer;

        @Option(names = "--pfc", paramLabel = "on|off", defaultValue = "on",
                description = "PFC on the lossless priority 3 (default: ${DEFAULT-VALUE})")
        OnOff pfc;

        @Option(names = "--ecn", paramLabel = "on|off", defaultValue = "on",
                description = "ECN marking at the switches, ECN-capable HCAs (default: ${DEFAULT-VALUE})")
        OnOff ecn;

        @Mixin
        Mixins.Recovery recovery;

        @Option(names = "--op", paramLabel = "write|send|read", defaultValue = "write",
                description = "how the bytes move (default: ${DEFAULT-VALUE})")
        String op;

        @Option(names = "--stagger", paramLabel = "MICROS", defaultValue = "0",
                description = "start the senders this many microseconds apart (default: ${DEFAULT-VALUE})")
        double staggerMicros;

        @Option(names = "--mtu", paramLabel = "BYTES", defaultValue = "1024",
                description = "path MTU: 256, 512, 1024, 2048 or 4096 (default: ${DEFAULT-VALUE})")
        int mtu;

        @Mixin
        Mixins.Seed seed;

        @Mixin
        Mixins.Cc cc;

        @Mixin
        Mixins.Pcap pcap;

        @Option(names = "--csv", paramLabel = "FILE", description = "also write the CSV (one row per sender, then all)")
        Path csv;

        @Option(names = "--plot", paramLabel = "FILE.svg",
                description = "also draw the bottleneck queue and each sender's throughput over time (with --cc, "
                        + "each sender's congestion-control rate too)")
        Path plot;

        @Override
        protected int execute() throws UsageException {
            range("--senders", senders, 1, 4096);
            if (size > Integer.MAX_VALUE / Math.max(1, senders)) {
                throw new UsageException("--size: " + senders + " x " + size + " bytes does not fit the receiver's one region");
            }
            if (staggerMicros < 0) {
                throw new UsageException("--stagger: " + staggerMicros + " is negative");
            }
            IncastExperiment.Op o;
            try {
                o = IncastExperiment.Op.valueOf(op.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new UsageException("--op must be write, send or read, not " + op);
            }
            PathMtu m;
            try {
                m = PathMtu.ofBytes(mtu);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--mtu must be 256, 512, 1024, 2048 or 4096, not " + mtu);
            }
            IncastExperiment.Config c = new IncastExperiment.Config(senders, (int) size, topology, link, buffer, pfc.value(),
                    ecn.value(), recovery.recovery(), o, Math.round(staggerMicros * 1_000), seed.seed, m, 6,
                    FabricConfig.DEFAULT, cc.cc);
            try {
                IncastExperimentTopologyCheck.check(c);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            try {
                IncastExperiment.check(c);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--buffer: " + e.getMessage());
            }
            IncastExperiment.Result r;
            long wall = System.nanoTime();
            try (PcapWriter w = pcap.pcap == null ? null : new PcapWriter(pcap.pcap)) {
                r = IncastExperiment.run(c, w);
            } catch (IOException e) {
                err.println("rnic experiment incast: cannot write " + pcap.pcap + ": " + e.getMessage());
                return 1;
            }
            IncastReport report = new IncastReport(r);
            out.printf("# rnic experiment incast: %d senders x %d B by %s on %s, link %s, buffer %d B, PFC %s, ECN %s, "
                    + "loss recovery %s, seed %d%s%n", senders, size, op, topology, Rates.formatRate(link), buffer, pfc, ecn,
                    recovery.mode.label(), seed.seed,
                    cc.cc == io.rnic.verbs.CongestionControlScheme.NONE ? "" : ", congestion control " + cc.cc.cliName());
            out.print(report.table());
            err.printf("(%d simulator events in %.2f s of wall time)%n", r.events(), (System.nanoTime() - wall) / 1e9);
            boolean ok = write(csv, report.csv()) & write(plot, plot == null ? "" : report.svg());
            return ok && r.allSucceeded() ? 0 : 1;
        }

        private boolean write(Path file, String text) {
            if (file == null) {
                return true;
            }
            try {
                Files.writeString(file, text, StandardCharsets.UTF_8);
                return true;
            } catch (IOException e) {
                err.println("rnic experiment incast: cannot write " + file + ": " + e.getMessage());
                return false;
            }
        }
    }

    /** Checks a configuration's topology before the run, for a usage error rather than a crash. */
    static final class IncastExperimentTopologyCheck {
        private IncastExperimentTopologyCheck() {
        }

        static void check(IncastExperiment.Config c) {
            String spec = c.topology().equalsIgnoreCase("star") ? "star:" + (c.senders() + 1) : c.topology();
            var t = TopologySpec.parse(spec, c.linkBps(), c.linkBps(), 1_000);
            if (t.hostCount() < c.senders() + 1) {
                throw new IllegalArgumentException("--topology " + spec + " has " + t.hostCount() + " hosts: " + c.senders()
                        + " senders and a receiver need " + (c.senders() + 1));
            }
        }
    }

    /** A duration such as {@code 10ms}, {@code 100us}, {@code 1s}, {@code 500ns} (a number and a unit), in nanoseconds. */
    static final class Duration implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            String v = value.strip().toLowerCase(Locale.ROOT);
            String[][] units = {{"ns", "1"}, {"us", "1000"}, {"µs", "1000"}, {"ms", "1000000"}, {"s", "1000000000"}};
            for (String[] u : units) {
                if (v.endsWith(u[0])) {
                    try {
                        double n = Double.parseDouble(v.substring(0, v.length() - u[0].length()).strip()) * Long.parseLong(u[1]);
                        if (n >= 0 && n < 1e18) {
                            return Math.round(n);
                        }
                    } catch (NumberFormatException e) {
                        break;
                    }
                }
            }
            throw new TypeConversionException("'" + value + "' is not a duration: a number and ns, us, ms or s (e.g. 10ms)");
        }
    }

    /**
     * {@code rnic experiment fabric}: a datacenter workload on a simulated fabric, with flow
     * completion times, slowdowns by flow size, and the fabric's counters, for one configuration
     * or several on the same flows.
     */
    @Command(name = "fabric", description = {"flow completion times of a datacenter workload on a simulated fabric", "",
        """
            Flows arrive as Poisson processes from every host at --load of its link rate, to uniformly \
            random other hosts, with sizes drawn from a published distribution (websearch: DCTCP's web \
            search cluster; hadoop: Facebook's Hadoop cluster, Roy et al. SIGCOMM 2015; both as HPCC's \
            simulator ships them), or from your CDF file (lines 'size_bytes cumulative_percent' from 0 \
            to 100, read with linear interpolation), or replayed from a flow file in HPCC's format \
            (first line the count, then 'src dst pg dport size start_seconds'; pg is the PFC priority, \
            dport 200 marks incast flows). --incast adds periodic N-to-1 bursts.""", "",
        """
            Each flow is one message on an RC QP between its two hosts: an RDMA WRITE (default), a \
            SEND, or an RDMA READ the destination issues. QPs come from a pool per host pair, at most \
            --qps-per-pair of them; a flow takes an idle QP, or opens one, or else queues on the least \
            busy (messages on one QP are carried in order). Every byte is checked at the destination \
            when the flow completes. The QPs use the short local ACK timeout of 4.096 us x 2^6 = 262 us \
            (--ack-timeout) and 7 retries; without congestion control, queues can hold an ACK longer, \
            and a QP whose retries run out fails its flow.""", "",
        """
            Per flow: FCT from arrival to the work completion, and slowdown = max(1, FCT / ideal), the \
            ideal being the payload at the path's bottleneck rate plus the base RTT (a minimum-size \
            packet's round trip on the path, measured in the idle fabric). The CSV has, per \
            configuration, the p50/p95/p99 slowdown and the average and p99 FCT of 20 equal-count \
            buckets of flows sorted by size (as HPCC's fct_analysis.py; a bucket is named by its \
            largest size), and a row 'all' with the fabric's drops, retransmissions and the local ACK \
            timeouts that started them, PAUSE frames, time paused, ECN marks and CNPs. The figure draws slowdown against flow size on log axes, \
            one line per configuration.""", "",
        """
            --compare runs several configurations on the same flows and seed: a comma-separated list \
            whose entries join with + one item of each group gbn|reorder|sr (go-back-N, the reorder \
            buffer, selective retransmission IRN-style), pfc|nopfc and ecmp|spray (per-flow ECMP or \
            per-packet spraying); a group an entry leaves out takes the option's value, and the entry is \
            the configuration's name in the CSV and figure. Example: --compare "gbn+pfc, sr+nopfc, \
            gbn+nopfc, sr+pfc". Progress goes to standard error every few seconds. --pcap captures the \
            host links of one configuration. The same seed gives the same CSV, byte for byte."""},
            exitCodeList = {"0:every flow of every configuration completed with its bytes in place",
                "1:a flow failed, did not complete, or its bytes were wrong; or a file could not be written",
                RnicCommand.USAGE_ERROR_LINE, RnicCommand.INTERNAL_ERROR_LINE})
    static final class FabricFct extends RnicCommand {
        @Option(names = "--topology", paramLabel = "SPEC", defaultValue = "fattree:k=4",
                description = "the fabric: " + TopologySpec.FORMS + " (default: ${DEFAULT-VALUE}; fattree:k=8 is 128 hosts)")
        String topology;

        @Option(names = "--link", paramLabel = "RATE", defaultValue = "100G", converter = Rate.class,
                description = "the rate of every link the topology does not set itself (default: 100G)")
        long link;

        @Option(names = "--workload", paramLabel = "KIND", defaultValue = "websearch",
                description = "websearch, hadoop, cdf:PATH (a flow-size CDF) or flows:PATH (an HPCC flow file) "
                        + "(default: ${DEFAULT-VALUE})")
        String workload;

        @Option(names = "--load", paramLabel = "FRACTION", defaultValue = "0.5",
                description = "offered load per host, a fraction of its link rate, above 0 up to 1 (default: ${DEFAULT-VALUE})")
        double load;

        @Option(names = "--duration", paramLabel = "TIME", defaultValue = "10ms", converter = Duration.class,
                description = "how long flows arrive, e.g. 10ms, 100us; the run then drains until every flow "
                        + "completes (default: 10ms)")
        long duration;

        @Option(names = "--incast", paramLabel = "N:SIZE:PERIOD",
                description = "also, every PERIOD (from PERIOD/2), N random hosts each send SIZE bytes to one random "
                        + "other host, e.g. 16:64K:1ms (default: none)")
        String incast;

        @Option(names = "--pfc", paramLabel = "on|off", defaultValue = "on",
                description = "PFC on the lossless priority 3 (default: ${DEFAULT-VALUE})")
        OnOff pfc;

        @Mixin
        Mixins.Recovery recovery;

        @Option(names = "--routing", paramLabel = "ecmp|spray", defaultValue = "ecmp",
                description = "path selection at the switches: ecmp, a hash of each flow's addresses and UDP ports; "
                        + "spray, a random path per packet (default: ${DEFAULT-VALUE})")
        String routing;

        @Option(names = "--op", paramLabel = "write|send|read", defaultValue = "write",
                description = "how a flow's bytes move (default: ${DEFAULT-VALUE})")
        String op;

        @Option(names = "--mtu", paramLabel = "BYTES", defaultValue = "1024",
                description = "path MTU: 256, 512, 1024, 2048 or 4096 (default: ${DEFAULT-VALUE})")
        int mtu;

        @Option(names = "--buffer", paramLabel = "BYTES", defaultValue = "32M", converter = Bytes.class,
                description = "each switch's shared buffer (default: 32M, HPCC's)")
        long buffer;

        @Option(names = "--qps-per-pair", paramLabel = "N", defaultValue = "4",
                description = "QPs a host may open to one peer (per priority) (default: ${DEFAULT-VALUE})")
        int qpsPerPair;

        @Option(names = "--send-window", paramLabel = "PSNS", defaultValue = "256",
                description = "request packets a QP may have unacknowledged (default: ${DEFAULT-VALUE}, enough for a lone "
                        + "flow to run at line rate across a fat tree at 100 Gb/s and MTU 1024; the HCA's own default, 128 "
                        + "as rxe's, holds it to about 58 Gb/s there)")
        int sendWindow;

        @Option(names = "--ack-timeout", paramLabel = "EXP", defaultValue = "6",
                description = "the QPs' local ACK timeout, 4.096 us x 2^EXP, EXP 1..31 (default: ${DEFAULT-VALUE}, 262 us, "
                        + "IRN's short timeout)")
        int ackTimeout;

        @Option(names = "--drain-limit", paramLabel = "TIME", defaultValue = "1s", converter = Duration.class,
                description = "stop waiting for flows this long after the last arrival (default: 1s of simulated time)")
        long drainLimit;

        @Option(names = "--memory", paramLabel = "BYTES", converter = Bytes.class,
                description = "destination buffer memory for flows in flight; past it, flows wait for memory "
                        + "(default: 4G, or 3/4 of the JVM's direct memory if less)")
        Long memory;

        @Option(names = "--compare", paramLabel = "LIST",
                description = "run several configurations on the same flows, e.g. \"gbn+pfc, sr+nopfc\"; items: "
                        + FabricCompare.ITEMS + " (default: the one the options describe)")
        String compare;

        @Mixin
        Mixins.Cc cc;

        @Mixin
        Mixins.Seed seed;

        @Mixin
        Mixins.Pcap pcap;

        @Option(names = "--csv", paramLabel = "FILE", description = "also write the buckets and counters as CSV")
        Path csv;

        @Option(names = "--write-flows", paramLabel = "FILE",
                description = "also write the workload's flows in HPCC's flow-file format, starting at 2 s as its "
                        + "traffic_gen.py does, for --workload flows:FILE here or HPCC's simulator")
        Path writeFlows;

        @Option(names = "--flows-csv", paramLabel = "FILE", description = "also write one CSV row per flow and configuration")
        Path flowsCsv;

        @Option(names = "--plot", paramLabel = "FILE.svg", description = "also draw slowdown against flow size")
        Path plot;

        @Override
        protected int execute() throws UsageException {
            IncastExperiment.Op o;
            try {
                o = IncastExperiment.Op.valueOf(op.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new UsageException("--op must be write, send or read, not " + op);
            }
            PathMtu m;
            try {
                m = PathMtu.ofBytes(mtu);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--mtu must be 256, 512, 1024, 2048 or 4096, not " + mtu);
            }
            if (!routing.equals("ecmp") && !routing.equals("spray")) {
                throw new UsageException("--routing must be ecmp or spray, not " + routing);
            }
            if (!(load > 0 && load <= 1)) {
                throw new UsageException("--load: " + load + " is not above 0 and at most 1");
            }
            range("--qps-per-pair", qpsPerPair, 1, 64);
            range("--ack-timeout", ackTimeout, 1, 31);
            boolean spray = routing.equals("spray");
            List<FabricRunConfig> configs = compare == null
                    ? List.of(new FabricRunConfig(FabricCompare.label(recovery.mode, pfc.value(), spray, cc.cc),
                            recovery.recovery(), pfc.value(), spray, cc.cc))
                    : FabricCompare.parse(compare, recovery.mode, pfc.value(), spray, cc.cc);
            Topology t;
            try {
                t = TopologySpec.parse(topology, link, link, 1_000);
            } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
                throw new UsageException("--topology: " + e.getMessage());
            }
            FabricWorkload w = workload(t);
            long mem = memory != null ? memory : Math.min(4L << 30, FabricWorkload.directMemoryLimit() / 4 * 3);
            FctExperiment.Settings settings;
            try {
                settings = new FctExperiment.Settings(t, w.flows(), w.arrivalsNanos(), o, m, seed.seed, qpsPerPair, ackTimeout,
                        sendWindow, FabricConfig.DEFAULT.withBufferBytes(buffer), drainLimit, mem);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            if (pcap.pcap != null && configs.size() > 1) {
                throw new UsageException("--pcap captures one configuration: give --compare one entry, or leave it out");
            }
            for (FabricRunConfig c : configs) {
                try {
                    FctExperiment.check(settings, c);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--buffer: " + e.getMessage());
                }
            }
            if (!w.note().isEmpty()) {
                err.println("rnic experiment fabric: " + w.note());
            }
            if (writeFlows != null && !write(writeFlows, () -> HpccFlowFile.format(w.flows(), HpccFlowFile.HPCC_OFFSET_NANOS))) {
                return 1;
            }
            String description = String.format(Locale.ROOT, "%s, %s links, %s, %s, MTU %d, buffer %d B, ACK timeout %.0f us, "
                    + "seed %d", topology, Rates.formatRate(link), w.description(), op, mtu, buffer, 4.096 * (1L << ackTimeout),
                    seed.seed);
            out.println("# rnic experiment fabric: " + description);
            List<FctExperiment.Result> results = new java.util.ArrayList<>();
            try (PcapWriter capture = pcap.pcap == null ? null : new PcapWriter(pcap.pcap)) {
                for (int i = 0; i < configs.size(); i++) {
                    results.add(runOne(settings, configs.get(i), i + 1, configs.size(), capture));
                }
            } catch (IOException e) {
                err.println("rnic experiment fabric: cannot write " + pcap.pcap + ": " + e.getMessage());
                return 1;
            }
            FctReport report = new FctReport(description, results);
            out.print(report.table());
            boolean ok = results.stream().allMatch(FctExperiment.Result::allVerified);
            ok &= write(csv, report::csv) & write(flowsCsv, report::flowsCsv);
            if (plot != null) {
                try {
                    ok &= write(plot, report::svg);
                } catch (IllegalStateException e) {
                    err.println("rnic experiment fabric: no figure: " + e.getMessage());
                    ok = false;
                }
            }
            return ok ? 0 : 1;
        }

        /** Runs one configuration, reporting progress on standard error every few seconds of wall time. */
        private FctExperiment.Result runOne(FctExperiment.Settings s, FabricRunConfig c, int index, int count,
                PcapWriter capture) {
            long wallStart = System.nanoTime();
            long cpuStart = threadCpuNanos();
            long[] lastReport = {wallStart};
            String name = count == 1 ? c.label() : c.label() + " (" + index + "/" + count + ")";
            FctExperiment.Result r = FctExperiment.run(s, c, (sim, finished, total, events) -> {
                long now = System.nanoTime();
                if (now - lastReport[0] >= PROGRESS_NANOS) {
                    lastReport[0] = now;
                    err.printf(Locale.ROOT, "rnic experiment fabric: %s: simulated %.3f ms of %.3f ms of arrivals%s, "
                            + "%d of %d flows done, %.1f M events, %.1f s wall%n", name, sim / 1e6, s.arrivalsNanos() / 1e6,
                            sim > s.arrivalsNanos() ? " (draining)" : "", finished, total, events / 1e6,
                            (now - wallStart) / 1e9);
                    err.flush();
                }
            }, capture);
            double wall = (System.nanoTime() - wallStart) / 1e9;
            double cpu = (threadCpuNanos() - cpuStart) / 1e9;
            // CPU time beside wall time: on a shared machine the wall clock also counts other processes' turns.
            err.printf(Locale.ROOT, "rnic experiment fabric: %s: %d of %d flows completed, last completion at %.3f ms simulated; "
                    + "%.2f s wall (%.2f s CPU), %.1f simulated us per wall s, %.2f M events/s (%d events)%n", name,
                    r.completed(), s.flows().size(), r.endNanos() / 1e6, wall, cpu, r.endNanos() / 1e3 / wall,
                    r.events() / 1e6 / wall, r.events());
            return r;
        }

        /** This thread's CPU time, or 0 where the JVM does not measure it. */
        private static long threadCpuNanos() {
            java.lang.management.ThreadMXBean b = java.lang.management.ManagementFactory.getThreadMXBean();
            return b.isCurrentThreadCpuTimeSupported() ? b.getCurrentThreadCpuTime() : 0;
        }

        /** The flows the options describe. */
        private FabricWorkload workload(Topology t) throws UsageException {
            var parse = spec.commandLine().getParseResult();
            Workloads.IncastOverlay overlay = null;
            if (incast != null) {
                overlay = FabricWorkload.parseIncast(incast);
            }
            try {
                if (workload.startsWith("flows:")) {
                    for (String opt : new String[] {"--load", "--duration", "--incast"}) {
                        if (parse.hasMatchedOption(opt)) {
                            throw new UsageException(opt + " does not go with a flow file: the file gives every flow");
                        }
                    }
                    return FabricWorkload.replay(Path.of(workload.substring("flows:".length())), t);
                }
                FlowSizeCdf sizes;
                if (workload.startsWith("cdf:")) {
                    sizes = FlowSizeCdf.read(Path.of(workload.substring("cdf:".length())));
                } else if (workload.equals(FlowSizeCdf.WEBSEARCH) || workload.equals(FlowSizeCdf.HADOOP)) {
                    sizes = FlowSizeCdf.builtIn(workload);
                } else {
                    throw new UsageException("--workload must be websearch, hadoop, cdf:PATH or flows:PATH, not " + workload);
                }
                return FabricWorkload.poisson(t, sizes, load, duration, overlay, seed.seed);
            } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
                throw new UsageException("--workload: " + e.getMessage());
            }
        }

        private boolean write(Path file, java.util.function.Supplier<String> text) {
            if (file == null) {
                return true;
            }
            try {
                Files.writeString(file, text.get(), StandardCharsets.UTF_8);
                return true;
            } catch (IOException e) {
                err.println("rnic experiment fabric: cannot write " + file + ": " + e.getMessage());
                return false;
            }
        }
    }

    /** How often a fabric run reports its progress, in wall time. */
    static final long PROGRESS_NANOS = 2_000_000_000L;

    /** {@code rnic experiment pfc}: PFC's three pathologies, each with its figures and a verdict. */
    @Command(name = "pfc", description = {"PFC's pathologies on a simulated fabric: head-of-line blocking, deadlock, storm",
        "",
        """
            hol: a victim flow to an idle host shares an upstream link with a 5:1 incast; PFC's PAUSE for \
            the incast blocks the victim (the verdict holds when the victim gets under half its throughput \
            without PFC). deadlock: flows two hops round a ring of five switches form a cyclic buffer \
            dependency; a deadlock watchdog finds a cycle of at least three queues all paused longer than \
            --detect, and nothing moves again. storm: a host keeps sending PAUSE; the pauses spread and \
            stall the other flows until the PFC watchdog stops honouring them. Each scenario prints its \
            figures and a verdict line. Real RC QPs throughout; the same seed gives the same figures."""},
            exitCodeList = {"0:every verdict held", "1:a verdict did not hold", RnicCommand.USAGE_ERROR_LINE,
                RnicCommand.INTERNAL_ERROR_LINE})
    static final class Pfc extends RnicCommand {
        @Parameters(paramLabel = "SCENARIO", arity = "0..3", description = "hol, deadlock, storm (default: all three)")
        List<String> scenarios;

        @Option(names = "--detect", paramLabel = "MICROS", defaultValue = "1000",
                description = "the deadlock watchdog's time: a cycle paused longer is a deadlock (default: ${DEFAULT-VALUE})")
        long detectMicros;

        @Mixin
        Mixins.Seed seed;

        @Override
        protected int execute() throws UsageException {
            List<String> which = scenarios == null || scenarios.isEmpty() ? List.of("hol", "deadlock", "storm") : scenarios;
            for (String s : which) {
                if (!List.of("hol", "deadlock", "storm").contains(s)) {
                    throw new UsageException("unknown scenario '" + s + "': hol, deadlock or storm");
                }
            }
            if (detectMicros <= 0) {
                throw new UsageException("--detect: " + detectMicros + " must be positive");
            }
            boolean all = true;
            for (String s : which) {
                PfcExperiment.Verdict v = switch (s) {
                    case "hol" -> PfcExperiment.headOfLineBlocking(seed.seed);
                    case "deadlock" -> PfcExperiment.deadlock(seed.seed, detectMicros * 1_000);
                    default -> PfcExperiment.storm(seed.seed);
                };
                out.print(v.text());
                all &= v.holds();
            }
            return all ? 0 : 1;
        }
    }
}
