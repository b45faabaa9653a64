package io.rnic.bench.cli;

import io.rnic.bench.console.Progress;
import io.rnic.bench.experiment.ExperimentReport;
import io.rnic.bench.experiment.LossExperiment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code rnic experiment}: experiments on the simulated network in virtual time, one subcommand
 * each: {@code loss} ({@link Loss}), and on a simulated fabric {@code incast}, {@code pfc} and {@code fabric}.
 */
@Command(name = "experiment", description = {"run an experiment on the simulated network: loss, incast, pfc, fabric", "",
    "Each experiment is a subcommand with its own options: 'rnic experiment loss --help'."},
        subcommands = {ExperimentCommand.Loss.class, FabricExperimentCommands.Incast.class, FabricExperimentCommands.Pfc.class,
            FabricExperimentCommands.FabricFct.class},
        exitCodeList = {"0:done", "1:a run failed its checks", RnicCommand.USAGE_ERROR_LINE, RnicCommand.INTERNAL_ERROR_LINE})
public final class ExperimentCommand extends RnicCommand {
    /** Without an experiment: the list of them on standard error, exit 2. */
    @Override
    protected int execute() {
        err.print(spec.commandLine().getUsageMessage());
        return Rnic.EXIT_USAGE;
    }

    /**
     * {@code rnic experiment loss}: the RC loss recovery modes side by side under random loss.
     * Every (mode, operation, loss) point runs with {@code --seeds} seeds; the table, the CSV and
     * the figure are pure functions of the runs, so a seed gives the same bytes.
     */
    @Command(name = "loss", description = {"compare the RC loss recovery modes under random loss", "",
        """
            Runs every combination of loss recovery mode, operation and loss probability between two \
            emulated HCAs on the simulated network, and prints goodput as a fraction of the same mode's \
            lossless run, packets sent, retransmissions per lost packet and completion-time p50/p99, \
            then the packets resent per packet lost of each mode over all its runs.""", "",
        """
            Modes: gbn, the IBTA's go-back-N; reorder, the reorder buffer with selective re-reads \
            (standard packets); sr, selective retransmission with extended headers (IRN-style; Mittal \
            et al., SIGCOMM 2018). The network and QP settings are fixed and printed; the same seed \
            gives the same table, byte for byte.""", "",
        """
            --seeds N runs each point with the seeds S, S+1, ... S+N-1 (S is --seed): the table then \
            shows each point's mean +- the half-width of its 95%% confidence interval, and the figure \
            draws it as an error bar. The CSV has one row per run (mode, op, loss, ..., seed) either \
            way. The figure (--plot) has one panel per operation and a logarithmic loss axis; the \
            lossless run is each mode's reference (goodput 1), so it is not on that axis."""},
            exitCodeList = {"0:done", "1:a run failed its checks, or a file could not be written", RnicCommand.USAGE_ERROR_LINE,
                RnicCommand.INTERNAL_ERROR_LINE})
    public static final class Loss extends RnicCommand {
        @Option(names = "--loss", paramLabel = "P", split = ",", defaultValue = "0,0.001,0.01,0.05",
                converter = LossProbability.class, description = "drop probabilities (default: ${DEFAULT-VALUE})")
        List<Double> losses;

        @Option(names = "--modes", paramLabel = "M", split = ",", defaultValue = "gbn,reorder,sr",
                description = "loss recovery modes: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
        List<LossExperiment.Mode> modes;

        @Option(names = "--ops", paramLabel = "OP", split = ",", defaultValue = "write64k,send4k,read64k",
                description = "operations: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
        List<LossExperiment.Op> ops;

        @Option(names = "--messages", paramLabel = "N",
                defaultValue = "" + LossExperiment.Settings.DEFAULT_MESSAGES,
                description = "messages per run (default: ${DEFAULT-VALUE})")
        int messages;

        @Mixin
        Mixins.Seed seed;

        @Option(names = "--seeds", paramLabel = "N", defaultValue = "1",
                description = "run each point with N seeds, --seed and the N-1 after it (default: ${DEFAULT-VALUE})")
        int seeds;

        @Option(names = "--csv", paramLabel = "FILE", description = "also write one CSV row per run to FILE")
        Path csv;

        @Option(names = "--plot", paramLabel = "FILE.svg", description = "also draw goodput against loss as an SVG figure")
        Path plot;

        @Override
        protected int execute() throws UsageException {
            List<Double> losses = new ArrayList<>(new LinkedHashSet<>(this.losses));
            int seeds = range("--seeds", this.seeds, 1, 1000);
            int messages = range("--messages", this.messages, 1, 1_000_000);
            if (plot != null && losses.stream().noneMatch(p -> p > 0)) {
                throw new UsageException("--plot draws goodput against loss on a logarithmic axis: give a --loss above 0");
            }
            long first = seed.seed;
            LossExperiment experiment = new LossExperiment(LossExperiment.Settings.defaults().withMessages(messages));
            out.println("# rnic experiment loss, " + (seeds == 1 ? "seed " + first
                    : "seeds " + first + ".." + (first + seeds - 1)));
            out.println("# " + experiment.settings().describe().replace("\n", "\n# "));
            ExperimentReport report = new ExperimentReport();
            int runs = ops.size() * modes.size() * seeds * (losses.size() + (losses.contains(0.0) ? 0 : 1));
            try (Progress progress = Progress.on(err)) {
                progress.start("runs", runs, "runs");
                int done = 0;
                for (LossExperiment.Op op : ops) {
                    for (LossExperiment.Mode mode : modes) {
                        for (long s = first; s < first + seeds; s++) {
                            LossExperiment.Result lossless = experiment.run(mode, op, 0, s);
                            progress.update(++done);
                            for (double loss : losses) {
                                if (loss != 0) {
                                    progress.update(++done);
                                }
                                report.add(loss == 0 ? lossless : experiment.run(mode, op, loss, s), lossless, s);
                            }
                        }
                    }
                }
            } catch (IllegalStateException e) {
                err.println("rnic experiment loss: " + e.getMessage());
                return 1;
            }
            out.print(report.table());
            boolean written = csv == null || write(csv, report.csv());
            if (plot != null) {
                String what = String.format(Locale.ROOT, "%s, %d messages per run", seeds == 1 ? "seed " + first
                        : seeds + " seeds, mean and 95% CI", messages);
                written &= write(plot, report.figure(what).svg());
            }
            return written ? 0 : 1;
        }

        /** Writes {@code text} to {@code file}, or says on standard error why it could not. */
        private boolean write(Path file, String text) {
            try {
                Files.writeString(file, text, StandardCharsets.UTF_8);
                return true;
            } catch (IOException e) {
                String why = e instanceof NoSuchFileException ? "no such directory"
                        : e instanceof AccessDeniedException ? "permission denied" : String.valueOf(e.getMessage());
                err.println("rnic experiment loss: cannot write " + file + ": " + why);
                return false;
            }
        }
    }

    /** A drop probability for the loss experiment: 0 (the reference) up to, not including, 1. */
    static final class LossProbability implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            double p;
            try {
                p = Double.parseDouble(value.strip());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a probability");
            }
            if (!(p >= 0 && p < 1)) {
                throw new TypeConversionException(value + " is not in [0, 1)");
            }
            return p;
        }
    }
}
