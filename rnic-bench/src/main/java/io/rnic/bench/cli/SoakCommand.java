package io.rnic.bench.cli;

import io.rnic.bench.console.Progress;
import io.rnic.bench.demo.DemoPair;
import io.rnic.bench.demo.FaultSpec;
import io.rnic.bench.soak.MixedWorkload;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RcOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.util.function.Function;

/**
 * {@code rnic soak}: a long run of the mixed RC workload (SEND, WRITE, READ, CMP_SWAP, ATOMIC WRITE, FLUSH,
 * FETCH_ADD) through seeded faults, every byte and completion verified.
 */
public final class SoakCommand extends ParsedCommand {
    private final ArgParser parser = new ArgParser("rnic soak", "[options]")
            .description("""
                    Runs N mixed RC (or XRC) operations (SEND, RDMA WRITE, RDMA READ, CMP_SWAP, FETCH_ADD, ATOMIC WRITE,
                    FLUSH; single- and
                    multi-packet) 32 deep between two emulated HCAs, through seeded loss, reordering,
                    duplication and corruption, verifies every byte and completion and that every FETCH_ADD
                    executed exactly once, and prints the retransmission, duplicate, NAK and RNR counters.
                    The defaults are the issue's soak: 10^6 operations, 5% loss, 5% reorder, 1% duplicates,
                    0.1% corruption, on the simulated network.""")
            .option("-n", "--ops", "N", "operations (default 1000000)")
            .option(null, "--wire", "sim|udp", "the simulated network (default) or UDP on loopback")
            .option(null, "--ip-a", "ADDR", "first HCA address for --wire udp (default 127.0.0.2)")
            .option(null, "--ip-b", "ADDR", "second HCA address for --wire udp (default 127.0.0.3)")
            .option(null, "--seed", "N", "seed of the workload and the faults (default 1)")
            .option(null, "--transport", "rc|xrc|rd", "RC QPs (default), an XRC initiator and a target QP delivering to "
                    + "an XRC SRQ, or RD QPs through a pair of EE contexts (WRITEs instead of ATOMIC WRITE and FLUSH)")
            .option(null, "--timeout", "T", "local ACK timeout exponent (default 10 on sim, 14 on udp)")
            .option(null, RecoveryOption.NAME, RecoveryOption.VALUES, RecoveryOption.HELP)
            .option(null, "--loss", "P", "drop probability (default 0.05)")
            .option(null, "--reorder", "P", "reorder probability (default 0.05)")
            .option(null, "--dup", "P", "duplicate probability (default 0.01)")
            .option(null, "--corrupt", "P", "corruption probability (default 0.001)")
            .epilog("Exit status: 0 every operation verified, 1 a check failed, 2 bad options.");

    @Override
    public String name() {
        return "soak";
    }

    @Override
    public String summary() {
        return "run a long verified mixed RC workload through seeded network faults";
    }

    @Override
    protected ArgParser parser() {
        return parser;
    }

    @Override
    protected int execute(ParsedArgs args, PrintStream out, PrintStream err) throws UsageException {
        long ops = args.has("--ops") ? ParsedArgs.parseInt("--ops", args.value("--ops"), 1, Integer.MAX_VALUE) : 1_000_000;
        String wire = args.has("--wire") ? args.value("--wire") : "sim";
        if (!wire.equals("sim") && !wire.equals("udp")) {
            throw new UsageException("--wire must be sim or udp, not " + wire);
        }
        boolean udp = wire.equals("udp");
        long seed = args.intValue("--seed", 0, Integer.MAX_VALUE).orElse(1);
        int timeout = args.intValue("--timeout", 1, 31).orElse(udp ? 14 : 10);
        FaultSpec given = FaultOptions.parse(args, udp);
        FaultSpec faults = new FaultSpec(args.has("--loss") ? given.loss() : 0.05, args.has("--reorder") ? given.reorder() : 0.05,
                args.has("--dup") ? given.duplicate() : 0.01, args.has("--corrupt") ? given.corrupt() : 0.001,
                given.reorderDelayNanos());
        String transport = args.has("--transport") ? args.value("--transport") : "rc";
        QpType type = switch (transport) {
            case "rc" -> QpType.RC;
            case "xrc" -> QpType.XRC_SEND;
            case "rd" -> QpType.RD;
            default -> throw new UsageException("soak's --transport must be rc, xrc or rd (the transports that retransmit), "
                    + "not " + transport);
        };
        String ipA = args.has("--ip-a") ? args.value("--ip-a") : udp ? "127.0.0.2" : "10.0.0.2";
        String ipB = args.has("--ip-b") ? args.value("--ip-b") : udp ? "127.0.0.3" : "10.0.0.3";
        out.printf("rnic soak: %d %s operations over %s, %s, seed %d, timeout %d%n", ops, transport.toUpperCase(),
                udp ? "UDP" : "the simulated network", faults, seed, timeout);
        io.rnic.verbs.LossRecovery recovery = RecoveryOption.parse(args);
        if (recovery != io.rnic.verbs.LossRecovery.GO_BACK_N) {
            if (type != QpType.RC) {
                throw new UsageException(RecoveryOption.NAME + " is RC's: --transport " + transport + " keeps go-back-N");
            }
            out.println("loss recovery: " + recovery);
        }
        RcOptions o = RcOptions.defaults().withRetry(timeout, 7, 7).withLossRecovery(recovery);
        long wall = System.nanoTime();
        try (DemoPair p = new DemoPair(udp, ipA, ipB, 4791, seed, type, o, null, udp ? faults.wrapper(seed) : Function.identity(),
                udp ? null : faults.simSetup())) {
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
