package io.rnic.bench.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How every usage error is reported: {@code rnic <cmd>: <what is wrong>} on standard error,
 * picocli's suggestions for a mistyped command or option ("Did you mean: rnic decode?",
 * "Possible solutions: --quiet"), then {@code Try 'rnic <cmd> --help' for more information.}, and
 * exit status 2 (picocli's status for invalid input). Nothing goes to standard output, which
 * carries only results.
 */
final class UsageErrors implements IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        CommandSpec spec = cmd.getCommandSpec();
        PrintWriter err = cmd.getErr();
        String name = spec.qualifiedName();
        err.println(name + ": " + message(ex));
        if (!UnmatchedArgumentException.printSuggestions(ex, err) && unknownSubcommand(ex)) {
            // Nothing resembles the word: list what there is, a suggestion all the same.
            err.println("Known " + noun(spec) + "s: " + String.join(", ", visibleSubcommands(spec)));
        }
        err.println("Try '" + name + " --help' for more information.");
        err.flush();
        return spec.exitCodeOnInvalidInput();
    }

    /** The message in rnic's words where picocli's would be vaguer ("Unmatched argument at index 1"). */
    private static String message(ParameterException ex) {
        if (ex instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String arg = u.getUnmatched().get(0);
            CommandSpec spec = ex.getCommandLine().getCommandSpec();
            if (looksLikeOption(arg)) {
                int eq = arg.indexOf('=');
                return "unknown option " + (arg.startsWith("--") && eq > 0 ? arg.substring(0, eq) : arg);
            }
            if (!spec.subcommands().isEmpty()) {
                return "unknown " + noun(spec) + " '" + arg + "'";
            }
            return "unexpected argument '" + arg + "'";
        }
        return ex.getMessage();
    }

    private static boolean unknownSubcommand(ParameterException ex) {
        return ex instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()
                && !looksLikeOption(u.getUnmatched().get(0)) && !ex.getCommandLine().getCommandSpec().subcommands().isEmpty();
    }

    static boolean looksLikeOption(String arg) {
        return arg.length() > 1 && arg.startsWith("-");
    }

    /** What the subcommands of {@code spec} are: the top level's are commands, experiment's are experiments. */
    private static String noun(CommandSpec spec) {
        return spec.parent() == null ? "command" : spec.name();
    }

    private static List<String> visibleSubcommands(CommandSpec spec) {
        List<String> names = new ArrayList<>();
        for (Map.Entry<String, CommandLine> e : spec.subcommands().entrySet()) {
            if (!e.getValue().getCommandSpec().usageMessage().hidden() && !names.contains(e.getKey())) {
                names.add(e.getKey());
            }
        }
        return names;
    }
}
