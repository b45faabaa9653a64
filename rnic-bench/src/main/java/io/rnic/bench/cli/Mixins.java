package io.rnic.bench.cli;

import io.rnic.bench.demo.FaultSpec;
import io.rnic.bench.experiment.LossExperiment;
import io.rnic.transport.udp.Gso;
import io.rnic.verbs.IcrcPolicy;
import io.rnic.verbs.LossRecovery;
import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The options that mean the same in every command that takes them, each declared once here and
 * added to a command with {@code @Mixin}: the global names of README.md's table. A command that
 * needs another default for one of them says so with a {@code defaultValueProvider}
 * ({@link CommandDefaults}), so its help shows its own default.
 */
final class Mixins {
    private Mixins() {
    }

    /** {@code --wire sim|udp}. */
    static final class Wire {
        @Option(names = "--wire", paramLabel = "sim|udp", defaultValue = "udp",
                description = "the network: real UDP sockets (udp) or the simulated network in virtual time (sim) "
                        + "(default: ${DEFAULT-VALUE})")
        Choices.WireKind wire;

        boolean udp() {
            return wire == Choices.WireKind.UDP;
        }

        boolean sim() {
            return wire == Choices.WireKind.SIM;
        }
    }

    /** {@code --udp-port N}: the RoCEv2 UDP port of this process's HCAs. */
    static final class UdpPort {
        @Option(names = "--udp-port", paramLabel = "N", defaultValue = "4791", converter = Port.class,
                description = "UDP port of the emulated HCAs (default: ${DEFAULT-VALUE}, RoCEv2's)")
        int udpPort;
    }

    /** {@code --icrc strict|accept-unverifiable}. */
    static final class Icrc {
        @Option(names = "--icrc", paramLabel = "POLICY", defaultValue = "strict",
                description = "strict or accept-unverifiable: use the latter against a kernel peer, whose IPv4 "
                        + "identification (covered by the ICRC) a UDP socket cannot see (default: ${DEFAULT-VALUE})")
        Choices.IcrcMode icrc;

        IcrcPolicy policy() {
            return icrc.policy();
        }
    }

    /** {@code --gso on|off|auto}. */
    static final class GsoOption {
        @Option(names = "--gso", paramLabel = "on|off|auto", defaultValue = "auto",
                description = "whether UDP wires send runs of packets as GSO super-datagrams (default: ${DEFAULT-VALUE}): "
                        + "auto, toward rnic wires of this process; on, toward any peer (an rnic peer only: a kernel "
                        + "peer drops them); off")
        Choices.GsoMode gso;

        Gso value() {
            return gso.gso();
        }
    }

    /** {@code --cc none|dcqcn|dcqcn-mlx|timely|timely-patched}. */
    static final class Cc {
        @Option(names = "--cc", paramLabel = "SCHEME", defaultValue = "none", converter = CcScheme.class,
                description = "congestion control of the HCAs: none, dcqcn (Zhu et al. 2015, the paper's parameters), "
                        + "dcqcn-mlx (as HPCC's simulator runs ConnectX's), timely (Mittal et al. 2015) or timely-patched "
                        + "(Zhu et al. 2016); with a scheme the HCAs also answer ECN marks with CNPs (default: ${DEFAULT-VALUE})")
        io.rnic.verbs.CongestionControlScheme cc;
    }

    /** A scheme's command-line name. */
    static final class CcScheme implements ITypeConverter<io.rnic.verbs.CongestionControlScheme> {
        @Override
        public io.rnic.verbs.CongestionControlScheme convert(String value) {
            try {
                return io.rnic.verbs.CongestionControlScheme.fromCliName(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code --seed N}. */
    static final class Seed {
        @Option(names = "--seed", paramLabel = "N", defaultValue = "1", converter = NonNegative.class,
                description = "seed of everything random in the run: the simulated network, the faults, starting PSNs, "
                        + "keys, the workload; the same seed gives the same run (default: ${DEFAULT-VALUE})")
        long seed;
    }

    /** {@code --pcap FILE}. */
    static final class Pcap {
        @Option(names = "--pcap", paramLabel = "FILE",
                description = "capture the packets of this process's HCAs to FILE (pcap; check it with rnic decode)")
        Path pcap;
    }

    /** {@code --ip A.B.C.D}: the address, and RoCEv2 GID, of this process's one HCA. */
    static final class Ip {
        @Option(names = "--ip", paramLabel = "A.B.C.D",
                description = "address of this process's emulated HCA, and so its GID (default: 127.0.0.2 for a server, "
                        + "127.0.0.3 for a client, unless the command's own address options say otherwise)")
        String ip;
    }

    /** {@code --transport rc|uc|ud|xrc|rd}: one spelling of the QP type; each command takes the ones it can run. */
    static final class Transport {
        @Option(names = "--transport", paramLabel = "TYPE",
                description = "the QP type: ${COMPLETION-CANDIDATES} (default rc; the command's description says which "
                        + "it runs)")
        Choices.QpKind transport;

        /** The type given, or {@code otherwise}. */
        Choices.QpKind or(Choices.QpKind otherwise) {
            return transport == null ? otherwise : transport;
        }
    }

    /** {@code --loss-recovery gbn|reorder|sr}. */
    static final class Recovery {
        @Option(names = "--loss-recovery", paramLabel = "gbn|reorder|sr", defaultValue = "gbn",
                description = "RC loss recovery: gbn, go-back-N, the IBTA's rule (default); reorder, the reorder buffer "
                        + "with selective re-reads (standard packets, any peer); sr, selective retransmission with "
                        + "extended headers (IRN-style; Mittal et al., SIGCOMM 2018; rnic peers only)")
        LossExperiment.Mode mode;

        LossRecovery recovery() {
            return mode.recovery();
        }
    }

    /** {@code --loss --reorder --dup --corrupt}: seeded faults on every packet, both directions. */
    static final class Faults {
        @Option(names = "--loss", paramLabel = "P", defaultValue = "0", converter = Probability.class,
                description = "drop each packet with probability P (default: ${DEFAULT-VALUE})")
        double loss;

        @Option(names = "--reorder", paramLabel = "P", defaultValue = "0", converter = Probability.class,
                description = "delay each packet with probability P so that later ones overtake it "
                        + "(default: ${DEFAULT-VALUE})")
        double reorder;

        @Option(names = "--dup", paramLabel = "P", defaultValue = "0", converter = Probability.class,
                description = "deliver each packet twice with probability P (default: ${DEFAULT-VALUE})")
        double dup;

        @Option(names = "--corrupt", paramLabel = "P", defaultValue = "0", converter = Probability.class,
                description = "flip a bit of each packet with probability P, which the ICRC catches "
                        + "(default: ${DEFAULT-VALUE})")
        double corrupt;

        /**
         * The faults. Reordering needs an extra delay longer than the path: 20 µs on the simulated
         * link, 200 µs between sockets.
         */
        FaultSpec spec(boolean udp) {
            return new FaultSpec(loss, reorder, dup, corrupt, udp ? 200_000 : 20_000);
        }
    }

    /** A probability, 0 to 1. */
    static final class Probability implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            try {
                double p = Double.parseDouble(value);
                if (p >= 0 && p <= 1) {
                    return p;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new TypeConversionException("'" + value + "' is not a probability between 0 and 1");
        }
    }

    /** A UDP or TCP port, 1 to 65535. */
    static final class Port implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int p = Converters.parseInt(value);
            if (p < 1 || p > 65535) {
                throw new TypeConversionException(value + " is out of range 1..65535");
            }
            return p;
        }
    }

    /** A non-negative integer (a seed). */
    static final class NonNegative implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            long v = Converters.parseLong(value);
            if (v < 0) {
                throw new TypeConversionException(value + " is negative");
            }
            return v;
        }
    }
}
