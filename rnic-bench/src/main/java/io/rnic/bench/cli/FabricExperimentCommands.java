package io.rnic.bench.cli;

import io.rnic.bench.experiment.IncastExperiment;
import io.rnic.bench.experiment.IncastReport;
import io.rnic.bench.experiment.PfcExperiment;
import io.rnic.transport.fabric.FabricConfig;
import io.rnic.transport.fabric.Rates;
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

/** The experiments on a simulated fabric: {@code rnic experiment incast} and {@code rnic experiment pfc}. */
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
