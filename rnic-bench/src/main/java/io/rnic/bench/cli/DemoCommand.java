package io.rnic.bench.cli;

import io.rnic.bench.demo.ConnectedDemo;
import io.rnic.bench.demo.DemoPair;
import io.rnic.bench.demo.DemoScenario;
import io.rnic.bench.demo.FaultSpec;
import io.rnic.bench.demo.UdDemo;
import io.rnic.bench.demo.XrcDemo;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RcOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code rnic demo}: two emulated HCAs run every operation of a transport (RC by default; UC;
 * UD) over UDP on loopback (or on the simulated network) and check every byte and every
 * completion.
 */
@Command(name = "demo", description = {"run every operation of a transport between two emulated HCAs and verify it", "",
    """
        Opens two emulated HCAs and connects an RC queue pair between them, then runs SEND, \
        SEND_WITH_IMM, RDMA WRITE, WRITE_WITH_IMM, RDMA READ (single- and multi-packet), \
        CMP_SWAP and FETCH_ADD, checks every byte and every completion, and prints the \
        devices' counters. --transport uc runs what UC carries (SEND, WRITE); --transport ud \
        sends datagrams from one UD QP to two others, with a wrong Q_Key and one larger than \
        the port MTU among them, and checks the GRH area too. --transport xrc connects an XRC \
        initiator to a target QP that reaches two processes' XRC SRQs, runs every operation \
        against the first, SENDs, WRITE and READ against the second, and shows a request naming \
        an XRC SRQ of another domain refused and counted. --transport rd has two RD QPs on one \
        node send through one shared EE context to two RD QPs on the other: every operation, \
        both QPs' messages on the one context, an RNR NAK that suspends one message while the \
        other QP's goes through, and a Q_Key violation that abandons a message and RESYNCs the \
        context.""", "",
    """
        By default the HCAs talk RoCEv2 over UDP on loopback: 127.0.0.2 and 127.0.0.3, port 4791. \
        Both HCAs live in this one process, so the addresses are --ip-a and --ip-b rather than the \
        one-HCA --ip of the tools that run one side each. GSO is off by default here so that a live \
        capture shows each packet. Faults (--loss, --reorder, --dup, --corrupt) need --transport \
        rc, xrc or rd: the others do not retransmit."""},
        defaultValueProvider = DemoCommand.Defaults.class,
        exitCodeList = {"0:every check passed", "1:a check failed",
            "2:a usage error (an unknown, missing or malformed option, options that do not go together), or the "
                    + "addresses could not be bound", RnicCommand.INTERNAL_ERROR_LINE})
public final class DemoCommand extends RnicCommand {
    /** demo's defaults for shared options: no GSO, so that a capture shows each packet. */
    static final class Defaults extends CommandDefaults {
        Defaults() {
            super(Map.of("--gso", "off"));
        }
    }

    @Mixin
    Mixins.Cc cc;

    @Mixin
    Mixins.Wire wire;

    @Option(names = "--ip-a", paramLabel = "ADDR", defaultValue = "127.0.0.2",
            description = "address of the first HCA (default: ${DEFAULT-VALUE})")
    String ipA;

    @Option(names = "--ip-b", paramLabel = "ADDR", defaultValue = "127.0.0.3",
            description = "address of the second HCA (default: ${DEFAULT-VALUE})")
    String ipB;

    @Mixin
    Mixins.UdpPort udpPort;

    @Mixin
    Mixins.Transport transport;

    @Option(names = {"-m", "--mtu"}, paramLabel = "BYTES", defaultValue = "1024",
            description = "path MTU: 256, 512, 1024, 2048 or 4096 (default: ${DEFAULT-VALUE})")
    int mtuBytes;

    @Mixin
    Mixins.GsoOption gso;

    @Mixin
    Mixins.Pcap pcap;

    @Mixin
    Mixins.Recovery recovery;

    @Mixin
    Mixins.Seed seed;

    @Mixin
    Mixins.Faults faultOptions;

    @Override
    protected int execute() throws UsageException {
        String ipA = this.ipA;
        String ipB = this.ipB;
        int port = udpPort.udpPort;
        Choices.QpKind kind = transport.or(Choices.QpKind.RC);
        QpType type = kind.type();
        PathMtu mtu;
        try {
            mtu = PathMtu.ofBytes(range("--mtu", mtuBytes, 256, 4096));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--mtu must be 256, 512, 1024, 2048 or 4096, not " + mtuBytes);
        }
        long seed = this.seed.seed;
        Path pcap = this.pcap.pcap;
        boolean udp = wire.udp();
        FaultSpec faults = faultOptions.spec(udp);
        if (!faults.isNone() && !io.rnic.core.engine.TransportPolicy.of(type).ack().acked()) {
            throw new UsageException("--loss, --reorder, --dup and --corrupt need --transport rc, xrc or rd: " + kind
                    + " does not retransmit, so the demo's checks would fail by design");
        }
        io.rnic.verbs.LossRecovery recovery = this.recovery.recovery();
        if (recovery != io.rnic.verbs.LossRecovery.GO_BACK_N && type != QpType.RC) {
            throw new UsageException("--loss-recovery is RC's: --transport " + kind + " keeps its own rules");
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
                    gso.value(), cc.cc);
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
}
