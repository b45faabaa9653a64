package io.rnic.bench.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code rnic} command-line tool: {@code rnic <command> [args]}. This class only dispatches;
 * each command is a {@link Command}, and adding one is a single line in {@link #builtIn()}.
 *
 * <p>{@code rnic --version} is {@code rnic version}.
 *
 * <p>Exit statuses: whatever the command returns (0 success, 1 problems found, 2 usage error or
 * unreadable input); 2 for an unknown command; 70 ({@code EX_SOFTWARE}) if a command fails with
 * an unexpected exception, so that a bug is never mistaken for a verdict.
 */
public final class Rnic {
    /** Exit status for a command that failed with an unexpected exception. */
    public static final int EXIT_INTERNAL_ERROR = 70;

    private final Map<String, Command> commands = new LinkedHashMap<>();

    /** A dispatcher over the given commands, listed in {@code --help} in this order. */
    public Rnic(List<? extends Command> commands) {
        for (Command c : commands) {
            if (this.commands.putIfAbsent(c.name(), c) != null) {
                throw new IllegalArgumentException("two commands are named " + c.name());
            }
        }
    }

    /** The commands the tool ships with. */
    public static List<Command> builtIn() {
        List<Command> list = new ArrayList<>();
        list.add(new DecodeCommand());
        list.add(new DemoCommand());
        list.add(new SoakCommand());
        list.add(new PingpongCommand());
        list.add(new RpingCommand());
        list.add(new CmToolCommand(false));
        list.add(new CmToolCommand(true));
        list.add(new PerfCommand());
        list.add(new UdpProbeCommand());
        list.add(new ExperimentCommand());
        list.add(new VersionCommand());
        return list;
    }

    /** Entry point of {@code rnic.jar}: runs the built-in commands and exits with their status. */
    public static void main(String[] args) {
        int status = new Rnic(builtIn()).run(args, System.out, System.err);
        System.out.flush();
        System.exit(status);
    }

    /** Runs {@code rnic args...}, printing to the given streams, and returns the exit status. */
    public int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.print(overview());
            return 2;
        }
        String first = args[0];
        if (first.equals("-h") || first.equals("--help")) {
            out.print(overview());
            return 0;
        }
        if (first.equals("--version")) {
            return new VersionCommand().run(Arrays.copyOfRange(args, 1, args.length), out, err);
        }
        if (first.equals("help")) {
            if (args.length == 1) {
                out.print(overview());
                return 0;
            }
            Command c = commands.get(args[1]);
            if (c == null) {
                return unknown(args[1], err);
            }
            out.print(c.usage());
            return 0;
        }
        Command c = commands.get(first);
        if (c == null) {
            return unknown(first, err);
        }
        try {
            return c.run(Arrays.copyOfRange(args, 1, args.length), out, err);
        } catch (RuntimeException e) {
            err.println("rnic " + c.name() + ": internal error: " + e);
            e.printStackTrace(err);
            return EXIT_INTERNAL_ERROR;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private int unknown(String word, PrintStream err) {
        err.println("rnic: " + (word.startsWith("-") ? "unknown option " : "unknown command ") + "'" + word + "'");
        err.println("Run 'rnic --help' for the list of commands.");
        return 2;
    }

    /** The text of {@code rnic --help}: usage and one line per command. */
    public String overview() {
        StringBuilder s = new StringBuilder();
        s.append("Usage: rnic <command> [args]\n\n");
        s.append("A pure-Java software RDMA NIC emulator and its tools.\n\n");
        s.append("Commands:\n");
        int width = commands.keySet().stream().mapToInt(String::length).max().orElse(0);
        for (Command c : commands.values()) {
            s.append("  ").append(c.name()).append(" ".repeat(width - c.name().length() + 3)).append(c.summary()).append('\n');
        }
        s.append("\nRun 'rnic <command> --help' (or 'rnic help <command>') for a command's options.\n");
        return s.toString();
    }
}
