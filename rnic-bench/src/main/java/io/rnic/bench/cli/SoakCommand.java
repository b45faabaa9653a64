package io.rnic.bench.cli;

import io.rnic.bench.console.Progress;
import io.rnic.bench.demo.DemoPair;
import io.rnic.bench.demo.FaultSpec;
import io.rnic.bench.soak.MixedWorkload;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RcOptions;
import java.io.IOException;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code rnic soak}: a long run of the mixed RC workload (SEND, WRITE, READ, CMP_SWAP, ATOMIC WRITE, FLUSH,
 * FETCH_ADD) through seeded faults, every byte and completion verified.
 */
@Command(name = "soak", description = {"run a long verified mixed RC workload through seeded network faults", "",
    """
        Runs N mixed RC (or XRC, or RD) operations (SEND, RDMA WRITE, RDMA READ, CMP_SWAP, FETCH_ADD, \
        ATOMIC WRITE, FLUSH; single- and multi-packet) 32 deep between two emulated HCAs, through \
        seeded loss, reordering, duplication and corruption, verifies every byte and completion and \
        that every FETCH_ADD executed exactly once, and prints the retransmission, duplicate, NAK \
        and RNR counters. The defaults are a long soak: 10^6 operations, 5%% loss, 5%% reordering, \
        1%% duplicates, 0.1%% corruption, on the simulated network.""", "",
    """
        --transport takes rc (default), xrc (an XRC initiator and a target QP delivering to an XRC \
        SRQ) or rd (RD QPs through a pair of EE contexts; WRITEs instead of ATOMIC WRITE and FLUSH): \
        the transports that retransmit. Both HCAs live in this one process, so their addresses are \
        --ip-a and --ip-b."""},
        defaultValueProvider = SoakCommand.Defaults.class,
        exitCodeList = {"0:every operation verified", "1:a check failed", RnicCommand.USAGE_ERROR_LINE, RnicCommand.INTERNAL_ERROR_LINE})
public final class SoakCommand extends RnicCommand {
    /** soak's defaults for shared options: the simulated network, and faults on. */
    static final class Defaults extends CommandDefaults {
        Defaults() {
            super(Map.of("--wire", "sim", "--loss", "0.05", "--reorder", "0.05", "--dup", "0.01", "--corrupt", "0.001"));
        }
    }

    @Option(names = {"-n", "--ops"}, paramLabel = "N", defaultValue = "1000000",
            description = "operations (default: ${DEFAULT-VALUE})")
    int ops;

    @Mixin
    Mixins.Cc cc;

    @Mixin
    Mixins.Wire wire;

    @Option(names = "--ip-a", paramLabel = "ADDR",
            description = "first HCA's address (default 127.0.0.2 over UDP, 10.0.0.2 on the simulated network)")
    String ipA;

    @Option(names = "--ip-b", paramLabel = "ADDR",
            description = "second HCA's address (default 127.0.0.3 over UDP, 10.0.0.3 on the simulated network)")
    String ipB;

    @Mixin
    Mixins.Seed seed;

    @Mixin
    Mixins.Transport transport;

    @Option(names = "--timeout", paramLabel = "T",
            description = "local ACK timeout exponent, 4.096 us x 2^T (default 10 on sim, 14 on udp)")
    Integer timeout;

    @Mixin
    Mixins.Recovery recoveryOption;

    @Mixin
    Mixins.Faults faultOptions;

    @Override
    protected int execute() throws UsageException {
        long ops = range("--ops", this.ops, 1, Integer.MAX_VALUE);
        boolean udp = wire.udp();
        long seed = this.seed.seed;
        int timeout = range("--timeout", this.timeout, 1, 31, udp ? 14 : 10);
        FaultSpec faults = faultOptions.spec(udp);
        Choices.QpKind kind = transport.or(Choices.QpKind.RC);
        QpType type = switch (kind) {
            case RC, XRC, RD -> kind.type();
            default -> throw new UsageException("soak's --transport must be rc, xrc or rd (the transports that retransmit), "
                    + "not " + kind);
        };
        String ipA = this.ipA != null ? this.ipA : udp ? "127.0.0.2" : "10.0.0.2";
        String ipB = this.ipB != null ? this.ipB : udp ? "127.0.0.3" : "10.0.0.3";
        out.printf("rnic soak: %d %s operations over %s, %s, seed %d, timeout %d%n", ops, kind.toString().toUpperCase(),
                udp ? "UDP" : "the simulated network", faults, seed, timeout);
        io.rnic.verbs.LossRecovery recovery = recoveryOption.recovery();
        if (recovery != io.rnic.verbs.LossRecovery.GO_BACK_N) {
            if (type != QpType.RC) {
                throw new UsageException("--loss-recovery is RC's: --transport " + kind + " keeps go-back-N");
            }
            out.println("loss recovery: " + recovery);
        }
        RcOptions o = RcOptions.defaults().withRetry(timeout, 7, 7).withLossRecovery(recovery);
        long wall = System.nanoTime();
        try (DemoPair p = new DemoPair(udp, ipA, ipB, 4791, seed, type, o, null, udp ? faults.wrapper(seed) : Function.identity(),
                udp ? null : faults.simSetup(), io.rnic.transport.udp.Gso.OFF, cc.cc)) {
            MixedWorkload.Result r;
            try (Progress progress = Progress.on(err)) {
                r = new MixedWorkload(p, seed).run(ops, progress);
            }
            double secs = (System.nanoTime() - wall) / 1e9;
            out.printf("%d operations (%d SEND, %d WRITE, %d READ, %d CMP_SWAP, %d FETCH_ADD, %d ATOMIC_WRITE, %d FLUSH) "
                    + "in %.1f s%s%n", r.ops(), r.sends(), r.writes(), r.reads(), r.compareSwaps(), r.fetchAdds(),
                    r.atomicWrites(), r.flushes(), secs,
                    p.sim() == null ? "" : String.format(", %.3f s of virtual time", p.sim().scheduler().nanoTime() / 1e9));
            DemoCommand.printCounters(out, "requester", p.a.counters().nonZero());
            DemoCommand.printCounters(out, "responder", p.b.counters().nonZero());
            if (!r.ok()) {
                out.println("FAILED: " + r.firstFailure());
                return 1;
            }
            out.println("every operation verified; FETCH_ADD applied exactly once each");
            return 0;
        } catch (IllegalStateException | IllegalArgumentException | IOException e) {
            err.println("rnic soak: " + e.getMessage());
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }
}
