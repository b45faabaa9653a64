package io.rnic.bench.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IExecutionStrategy;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code rnic} command-line tool: {@code rnic <command> [args]}, on picocli. This class only
 * assembles the commands; each is a picocli {@code @Command} class extending
 * {@link RnicCommand}, and adding one is a single line in {@link #builtIn()}. Options shared by
 * several commands are declared once, in {@link Mixins}.
 *
 * <p>{@code rnic --version} is {@code rnic version}; {@code rnic help <command>} is
 * {@code rnic <command> --help}; {@code rnic generate-completion} prints a bash (and zsh) completion
 * script.
 *
 * <p>Exit statuses: whatever the command returns (0 success, 1 a check failed or problems were
 * found); 2 for a usage error (an unknown command or option, a malformed or missing value, options
 * that do not go together, unusable input), picocli's status for invalid input; 70
 * ({@code EX_SOFTWARE}) if a command fails with an unexpected exception, so that a bug is never
 * mistaken for a verdict.
 */
public final class Rnic {
    /** Exit status for a usage error: picocli's {@link CommandLine.ExitCode#USAGE}. */
    public static final int EXIT_USAGE = CommandLine.ExitCode.USAGE;
    /** Exit status for a command that failed with an unexpected exception. */
    public static final int EXIT_INTERNAL_ERROR = 70;

    private final List<Class<?>> commands;

    /**
     * A tool made of the given command classes, listed in {@code --help} in this order, followed by
     * {@code help} and {@code generate-completion}. Each run makes fresh instances, so one
     * {@code Rnic} may run on several threads at once.
     *
     * @throws IllegalArgumentException if a class is not a picocli command or two share a name
     */
    public Rnic(List<Class<?>> commands) {
        this.commands = List.copyOf(commands);
        Set<String> names = new HashSet<>(Set.of("help", "generate-completion"));
        for (Class<?> c : this.commands) {
            Command a = c.getAnnotation(Command.class);
            if (a == null || a.name().isEmpty()) {
                throw new IllegalArgumentException(c.getName() + " is not a named picocli @Command");
            }
            if (!names.add(a.name())) {
                throw new IllegalArgumentException("two commands are named " + a.name());
            }
        }
    }

    /** The commands the tool ships with, in a list the caller may extend. */
    public static List<Class<?>> builtIn() {
        return new ArrayList<>(List.of(DecodeCommand.class, DemoCommand.class, SoakCommand.class, PingpongCommand.class,
                RpingCommand.class, CmToolCommand.Ucmatose.class, CmToolCommand.Udaddy.class, PerfCommand.class,
                UdpProbeCommand.class, ExperimentCommand.class, ResCommand.class, VersionCommand.class));
    }

    /** Entry point of {@code rnic.jar}: runs the built-in commands and exits with their status. */
    public static void main(String[] args) {
        int status = new Rnic(builtIn()).run(args, System.out, System.err);
        System.out.flush();
        System.exit(status);
    }

    /** Runs {@code rnic args...}, printing to the given streams, and returns the exit status. */
    public int run(String[] args, PrintStream out, PrintStream err) {
        try {
            return commandLine(out, err).execute(args);
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** The whole command tree, fresh, writing to the given streams: what {@link #run} executes. */
    CommandLine commandLine(PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new Top());
        for (Class<?> c : commands) {
            cl.addSubcommand(c);
        }
        cl.addSubcommand(CommandLine.HelpCommand.class);
        cl.addSubcommand(AutoComplete.GenerateCompletion.class);
        // picocli's help command prints a header above its usage line; every rnic help starts "Usage: rnic <cmd>".
        UsageMessageSpec help = cl.getSubcommands().get("help").getCommandSpec().usageMessage();
        help.description("Display help information about the specified command (the same as 'rnic COMMAND --help').",
                "", "When no COMMAND is given, the usage help for rnic itself is displayed.")
                .header(new String[0]).synopsisHeading("Usage: ").descriptionHeading("%n");
        // Settings below reach the subcommands present when they are made: keep them after the adds.
        cl.setUsageHelpWidth(100);
        Converters.register(cl);
        cl.setOverwrittenOptionsAllowed(true); // the last occurrence of an option wins, as in most tools
        cl.setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        cl.setOut(writer(out));
        cl.setErr(writer(err));
        cl.setParameterExceptionHandler(new UsageErrors());
        cl.setExecutionExceptionHandler(INTERNAL_ERROR);
        cl.setExecutionStrategy(REJECT_UNKNOWN_SUBCOMMANDS);
        streams(cl, out, err);
        return cl;
    }

    private static void streams(CommandLine cl, PrintStream out, PrintStream err) {
        if (cl.getCommand() instanceof RnicCommand c) {
            c.streams(out, err);
        }
        for (CommandLine sub : cl.getSubcommands().values()) {
            streams(sub, out, err);
        }
    }

    /** A writer onto a print stream that keeps the stream's charset and flushes at each line. */
    private static PrintWriter writer(PrintStream stream) {
        return new PrintWriter(new Writer() {
            @Override
            public void write(char[] buf, int off, int len) {
                stream.print(new String(buf, off, len));
            }

            @Override
            public void flush() {
                stream.flush();
            }

            @Override
            public void close() {
                stream.flush();
            }
        }, true);
    }

    /** An unexpected exception is a bug: say so, with the stack, and exit 70. */
    private static final IExecutionExceptionHandler INTERNAL_ERROR = (ex, cmd, parseResult) -> {
        PrintWriter err = cmd.getErr();
        err.println(cmd.getCommandSpec().qualifiedName() + ": internal error: " + ex);
        ex.printStackTrace(err);
        err.flush();
        return EXIT_INTERNAL_ERROR;
    };

    /**
     * picocli lets {@code --help} win over words it did not match, so {@code rnic experiment incast
     * --help} would print experiment's help and exit 0. An unknown subcommand is refused instead,
     * help or not: the user asked about something that does not exist. (A mistyped option next to
     * {@code --help} still gets the help.)
     */
    private static final IExecutionStrategy REJECT_UNKNOWN_SUBCOMMANDS = parseResult -> {
        for (ParseResult p = parseResult; p != null; p = p.subcommand()) {
            if (p.commandSpec().subcommands().isEmpty()) {
                continue;
            }
            for (String word : p.unmatched()) {
                if (!UsageErrors.looksLikeOption(word)) {
                    throw new UnmatchedArgumentException(p.commandSpec().commandLine(), List.of(word));
                }
            }
        }
        return new CommandLine.RunLast().execute(parseResult);
    };

    /** {@code rnic} itself: without a command it prints the overview to standard error and exits 2. */
    @Command(name = "rnic", versionProvider = Top.VersionLine.class,
            description = "A pure-Java software RDMA NIC emulator and its tools.",
            footer = {"", "Run 'rnic <command> --help' (or 'rnic help <command>') for a command's options.",
                "Options that mean the same in every command: --ip, --udp-port, --icrc, --wire, --seed, --pcap, "
                        + "--transport, and -p (the TCP or rdma_cm port); the tools that clone C programs (pingpong, "
                        + "perf, rping, ucmatose, udaddy) keep those programs' own option letters."},
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {"0:success", "1:a check failed, or the command found problems", RnicCommand.USAGE_ERROR_LINE,
                RnicCommand.INTERNAL_ERROR_LINE})
    static final class Top extends RnicCommand {
        @Option(names = "--version", versionHelp = true, description = "print the version and exit (as 'rnic version')")
        boolean versionRequested;

        @Override
        protected int execute() {
            err.print(spec.commandLine().getUsageMessage());
            return EXIT_USAGE;
        }

        /** {@code rnic --version}: the line {@code rnic version} prints. */
        static final class VersionLine implements IVersionProvider {
            @Override
            public String[] getVersion() {
                return new String[] {Version.current().line()};
            }
        }
    }
}
