package io.rnic.bench.cli;

import io.rnic.bench.experiment.ExperimentReport;
import io.rnic.bench.experiment.LossExperiment;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code rnic experiment loss}: seed 002's loss recovery modes side by side under random loss,
 * on the simulated network in virtual time.
 */
public final class ExperimentCommand extends ParsedCommand {
    private final ArgParser parser = new ArgParser("rnic experiment", "loss [options]")
            .description("""
                    Runs every combination of loss recovery mode, operation and loss probability between two
                    emulated HCAs on the simulated network, and prints goodput as a fraction of the same mode's
                    lossless run, packets sent, retransmissions per lost packet and completion-time p50/p99,
                    then the packets resent per packet lost of each mode over all its runs.
                    Modes: gbn (the specification's go-back-N), reorder (a reorder buffer and selective
                    re-reads, standard packets), sr (selective retransmission with an extended header,
                    IRN-style). The network and QP settings are fixed and printed; the same seed gives
                    the same table, byte for byte.""")
            .positionals("EXPERIMENT", 1, 1)
            .option(null, "--loss", "P,...", "drop probabilities (default 0,0.001,0.01,0.05)")
            .option(null, "--modes", "M,...", "gbn, reorder, sr (default all three)")
            .option(null, "--ops", "OP,...", "write64k, send4k, read64k (default all three)")
            .option(null, "--seed", "N", "seed of the faults (default 1)")
            .option(null, "--csv", "FILE", "also write the rows as CSV")
            .option(null, "--plot", "FILE.svg", "also draw goodput against loss as SVG")
            .epilog("Exit status: 0 done, 1 a run failed its checks, 2 bad options.");

    @Override
    public String name() {
        return "experiment";
    }

    @Override
    public String summary() {
        return "compare the loss recovery modes under random loss (experiment loss)";
    }

    @Override
    protected ArgParser parser() {
        return parser;
    }

    @Override
    protected int execute(ParsedArgs args, PrintStream out, PrintStream err) throws UsageException {
        if (!args.positionals().get(0).equals("loss")) {
            throw new UsageException("unknown experiment '" + args.positionals().get(0) + "': the one there is is 'loss'");
        }
        List<Double> losses = new ArrayList<>();
        for (String s : list(args, "--loss", "0,0.001,0.01,0.05")) {
            double p;
            try {
                p = Double.parseDouble(s);
            } catch (NumberFormatException e) {
                throw new UsageException("--loss: '" + s + "' is not a probability");
            }
            if (!(p >= 0 && p < 1)) {
                throw new UsageException("--loss: " + s + " is not in [0, 1)");
            }
            if (!losses.contains(p)) {
                losses.add(p);
            }
        }
        List<LossExperiment.Mode> modes = new ArrayList<>();
        for (String s : list(args, "--modes", "gbn,reorder,sr")) {
            LossExperiment.Mode m = LossExperiment.Mode.parse(s);
            if (m == null) {
                throw new UsageException("--modes: '" + s + "' is not gbn, reorder or sr");
            }
            modes.add(m);
        }
        List<LossExperiment.Op> ops = new ArrayList<>();
        for (String s : list(args, "--ops", "write64k,send4k,read64k")) {
            LossExperiment.Op o = LossExperiment.Op.parse(s);
            if (o == null) {
                throw new UsageException("--ops: '" + s + "' is not write64k, send4k or read64k");
            }
            ops.add(o);
        }
        long seed = args.has("--seed") ? ParsedArgs.parseInt("--seed", args.value("--seed"), 0, Integer.MAX_VALUE) : 1;

        LossExperiment experiment = new LossExperiment(LossExperiment.Settings.defaults());
        out.println("# rnic experiment loss, seed " + seed);
        out.println("# " + experiment.settings().describe().replace("\n", "\n# "));
        ExperimentReport report = new ExperimentReport();
        try {
            for (LossExperiment.Op op : ops) {
                for (LossExperiment.Mode mode : modes) {
                    LossExperiment.Result lossless = experiment.run(mode, op, 0, seed);
                    for (double loss : losses) {
                        report.add(loss == 0 ? lossless : experiment.run(mode, op, loss, seed), lossless);
                    }
                }
            }
        } catch (IllegalStateException e) {
            err.println("rnic experiment: " + e.getMessage());
            return 1;
        }
        out.print(report.table());
        try {
            if (args.has("--csv")) {
                Files.writeString(Path.of(args.value("--csv")), report.csv(), StandardCharsets.UTF_8);
            }
            if (args.has("--plot")) {
                Files.writeString(Path.of(args.value("--plot")), report.svg(), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            err.println("rnic experiment: cannot write: " + e.getMessage());
            return 1;
        }
        return 0;
    }

    private static List<String> list(ParsedArgs args, String option, String defaults) {
        String v = args.has(option) ? args.value(option) : defaults;
        List<String> out = new ArrayList<>();
        for (String s : v.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }
}
