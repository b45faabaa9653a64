package io.rnic.bench.cli;

import io.rnic.bench.demo.ConnectedDemo;
import io.rnic.bench.demo.DemoPair;
import io.rnic.bench.demo.DemoScenario;
import io.rnic.bench.demo.FaultSpec;
import io.rnic.bench.demo.UdDemo;
import io.rnic.bench.demo.XrcDemo;
import io.rnic.transport.udp.Gso;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RcOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code rnic demo}: two emulated HCAs run every operation of a transport (RC by default; UC;
 * UD) over UDP on loopback (or on the simulated network) and check every byte and every
 * completion.
 */
public final class DemoCommand extends ParsedCommand {
    private final ArgParser parser = new ArgParser("rnic demo", "[options]")
            .description("""
                    Opens two emulated HCAs and connects an RC queue pair between them, then runs SEND,
                    SEND_WITH_IMM, RDMA WRITE, WRITE_WITH_IMM, RDMA READ (single- and multi-packet),
                    CMP_SWAP and FETCH_ADD, checks every byte and every completion, and prints the
                    devices' counters. --transport uc runs what UC carries (SEND, WRITE); --transport ud
                    sends datagrams from one UD QP to two others, with a wrong Q_Key and one larger than
                    the port MTU among them, and checks the GRH area too. --transport xrc connects an XRC
                    initiator to a target QP that reaches two processes' XRC SRQs, runs every operation
                    against the first, SENDs, WRITE and READ against the second, and shows a request naming
                    an XRC SRQ of another domain refused and counted. --transport rd has two RD QPs on one
                    node send through one shared EE context to two RD QPs on the other: every operation,
                    both QPs' messages on the one context, an RNR NAK that suspends one message while the
                    other QP's goes through, and a Q_Key violation that abandons a message and RESYNCs the
                    context. By default the HCAs talk RoCEv2
                    over UDP on loopback: 127.0.0.2 and 127.0.0.3, port 4791.""")
            .option(null, "--wire", "udp|sim", "the network: real UDP sockets (default) or the simulated network")
            .option(null, "--ip-a", "ADDR", "address of the first HCA (default 127.0.0.2)")
            .option(null, "--ip-b", "ADDR", "address of the second HCA (default 127.0.0.3)")
            .option(null, "--udp-port", "N", "UDP port of both HCAs (default 4791)")
            .option(null, "--transport", "rc|uc|ud|xrc|rd", "the QP type (default rc)")
            .option("-m", "--mtu", "BYTES", "path MTU: 256, 512, 1024 (default), 2048 or 4096")
            .option(null, "--gso", "on|off|auto", "send runs of packets as UDP GSO super-datagrams (default off, so that "
                    + "a live capture shows each packet; auto: toward rnic wires of this process)")
            .option(null, "--pcap", "FILE", "capture every packet to FILE (pcap, checks with rnic decode)")
            .option(null, RecoveryOption.NAME, RecoveryOption.VALUES, RecoveryOption.HELP + "; rc only")
            .option(null, "--seed", "N", "seed of the starting PSNs and of the faults (default 1)")
            .option(null, "--loss", "P", "drop each packet with probability P (0..1); faults need --transport rc, xrc or rd")
            .option(null, "--reorder", "P", "delay each packet with probability P so later ones overtake it")
            .option(null, "--dup", "P", "deliver each packet twice with probability P")
            .option(null, "--corrupt", "P", "flip a bit of each packet with probability P (the ICRC catches it)")
            .epilog("Exit status: 0 every check passed, 1 a check failed, 2 bad options or the addresses could not be bound.");

    @Override
    public String name() {
        return "demo";
    }

    @Override
    public String summary() {
        return "run every operation of a transport between two emulated HCAs and verify it";
    }

    @Override
    protected ArgParser parser() {
        return parser;
    }

    @Override
    protected int execute(ParsedArgs args, PrintStream out, PrintStream err) throws UsageException {
        String wire = args.has("--wire") ? args.value("--wire") : "udp";
        if (!wire.equals("udp") && !wire.equals("sim")) {
            throw new UsageException("--wire must be udp or sim, not " + wire);
        }
        String ipA = args.has("--ip-a") ? args.value("--ip-a") : "127.0.0.2";
        String ipB = args.has("--ip-b") ? args.value("--ip-b") : "127.0.0.3";
        int port = args.intValue("--udp-port", 1, 65535).orElse(4791);
        String transport = args.has("--transport") ? args.value("--transport") : "rc";
        QpType type = switch (transport) {
            case "rc" -> QpType.RC;
            case "uc" -> QpType.UC;
            case "ud" -> QpType.UD;
            case "xrc" -> QpType.XRC_SEND;
            case "rd" -> QpType.RD;
            default -> throw new UsageException("demo's --transport must be rc, uc, ud, xrc or rd, not " + transport);
        };
        int mtuBytes = args.intValue("--mtu", 256, 4096).orElse(1024);
        PathMtu mtu;
        try {
            mtu = PathMtu.ofBytes(mtuBytes);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--mtu must be 256, 512, 1024, 2048 or 4096, not " + mtuBytes);
        }
        long seed = args.has("--seed") ? parseLong(args.value("--seed")) : 1;
        Path pcap = args.has("--pcap") ? Path.of(args.value("--pcap")) : null;
        boolean udp = wire.equals("udp");
        FaultSpec faults = FaultOptions.parse(args, udp);
        if (!faults.isNone() && !io.rnic.core.engine.TransportPolicy.of(type).ack().acked()) {
            throw new UsageException("--loss, --reorder, --dup and --corrupt need --transport rc, xrc or rd: " + transport
                    + " does not retransmit, so the demo's checks would fail by design");
        }
        io.rnic.verbs.LossRecovery recovery = RecoveryOption.parse(args);
        if (recovery != io.rnic.verbs.LossRecovery.GO_BACK_N && type != QpType.RC) {
            throw new UsageException(RecoveryOption.NAME + " is RC's: --transport " + transport + " keeps its own rules");
        }
        out.printf("rnic demo: two HCAs over %s, %s <-> %s port %d, MTU %d%s%s%n",
                udp ? "UDP" : "the simulated network", ipA, ipB, port, mtu.bytes(),
                faults.isNone() ? "" : ", faults: " + faults + " (seed " + seed + ")",
                recovery == io.rnic.verbs.LossRecovery.GO_BACK_N ? "" : ", loss recovery " + recovery);
        DemoPair pair;
        try {
            pair = new DemoPair(udp, ipA, ipB, port, seed, type, RcOptions.defaults().withMtu(mtu).withLossRecovery(recovery),
                    pcap,
                    udp ? faults.wrapper(seed) : Function.identity(), udp ? null : faults.simSetup(),
                    WireOptions.gso(args, Gso.OFF));
        } catch (IllegalStateException | IllegalArgumentException | IOException e) {
            err.println("rnic demo: cannot open the HCAs: " + e.getMessage());
            return 2;
        }
        int failed;
        try (pair) {
            DemoScenario demo = switch (type) {
                case UD -> new UdDemo(pair, out);
                case XRC_SEND -> new XrcDemo(pair, out, !faults.isNone());
                case RD -> new io.rnic.bench.demo.RdDemo(pair, out, !faults.isNone());
                default -> new ConnectedDemo(pair, out, !faults.isNone());
            };
            out.println(demo.describe());
            failed = demo.run();
            out.printf("%d checks passed, %d failed%n", demo.passed(), demo.failed());
            printCounters(out, "HCA " + ipA, pair.a.counters().nonZero());
            printCounters(out, "HCA " + ipB, pair.b.counters().nonZero());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("rnic demo: interrupted");
            return 1;
        } catch (IOException e) {
            err.println("rnic demo: " + e.getMessage());
            return 1;
        }
        if (pcap != null) {
            out.println("capture written to " + pcap + " (check it: rnic decode " + pcap + ")");
        }
        return failed == 0 ? 0 : 1;
    }

    static void printCounters(PrintStream out, String who, Map<String, Long> counters) {
        StringBuilder sb = new StringBuilder("  ");
        counters.forEach((k, v) -> sb.append(k).append('=').append(v).append(' '));
        out.println(who + " counters:");
        out.println(sb.toString().stripTrailing());
    }

    private static long parseLong(String s) throws UsageException {
        try {
            return Long.decode(s);
        } catch (NumberFormatException e) {
            throw new UsageException("--seed must be a number, not " + s);
        }
    }
}
