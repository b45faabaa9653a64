package io.rnic.bench.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Base of every {@code rnic} command: the look of its help (inherited by every subclass's
 * {@code @Command}), {@code -h}/{@code --help}, and the streams it writes to.
 *
 * <p>Commands write to the streams {@link Rnic#run} was given, never to {@code System.out}, so
 * that tests can run them in-process and read what they printed. A value that parsed but makes
 * no sense (or options that only make sense together) is a {@link UsageException}, reported like
 * a parse error: one line on standard error and exit status 2.
 */
@Command(abbreviateSynopsis = true, sortOptions = false, usageHelpWidth = 100, synopsisHeading = "Usage: ",
        descriptionHeading = "%n", parameterListHeading = "%nArguments:%n", optionListHeading = "%nOptions:%n",
        commandListHeading = "%nCommands:%n", exitCodeListHeading = "%nExit status:%n", synopsisSubcommandLabel = "COMMAND")
public abstract class RnicCommand implements Callable<Integer> {
    /** The exit-status line every command's help ends with for usage errors. */
    static final String USAGE_ERROR_LINE = "2:a usage error: an unknown, missing or malformed option or argument (picocli's "
            + "status for invalid input)";
    /** The exit-status line every command's help ends with for bugs. */
    static final String INTERNAL_ERROR_LINE = "70:an internal error (an unexpected exception: a bug in rnic, not a verdict)";

    /** This command as picocli built it; set by picocli. */
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean helpRequested;

    /** Where results go. */
    protected PrintStream out = System.out;
    /** Where diagnostics, progress and errors go. */
    protected PrintStream err = System.err;

    /** Sets the streams the command writes to (done by {@link Rnic} before it runs). */
    final void streams(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /**
     * Runs the command with its options set.
     *
     * @return the exit status: 0 success, 1 the command's "found problems" status, 2 unusable input
     * @throws UsageException for values that parsed but make no sense together (exit 2)
     * @throws Exception      anything unexpected: reported as an internal error, exit 70
     */
    protected abstract int execute() throws Exception;

    @Override
    public final Integer call() throws Exception {
        try {
            return execute();
        } catch (UsageException e) {
            // picocli's own parse errors and these take the same road: UsageErrors prints them.
            throw new ParameterException(spec.commandLine(), e.getMessage());
        } finally {
            out.flush();
            err.flush();
        }
    }

    /**
     * Checks that an integer option lies in {@code [min, max]}.
     *
     * @return {@code value}
     * @throws UsageException naming the option and the range
     */
    static int range(String option, int value, int min, int max) throws UsageException {
        if (value < min || value > max) {
            throw new UsageException(option + ": " + value + " is out of range " + min + ".." + max);
        }
        return value;
    }

    /** {@code value} checked by {@link #range}, or {@code otherwise} when the option was not given. */
    static int range(String option, Integer value, int min, int max, int otherwise) throws UsageException {
        return value == null ? otherwise : range(option, value, min, max);
    }
}
