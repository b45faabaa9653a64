package io.rnic.bench.cli;

import java.io.PrintStream;

/**
 * One {@code rnic} sub-command. The dispatcher ({@link Rnic}) knows commands only through this
 * interface, so a new command is one class plus one entry in {@link Rnic#builtIn()}.
 *
 * <p>Commands write to the streams they are given, never to {@code System.out}, so that tests
 * can run them in-process and read what they printed. Most commands extend
 * {@link ParsedCommand}, which gives them {@code --help} and uniform usage errors.
 */
public interface Command {
    /** The word that selects the command: {@code rnic <name> ...}. */
    String name();

    /** One line for {@code rnic --help}. */
    String summary();

    /** The full help text printed by {@code rnic <name> --help}, ending with a newline. */
    String usage();

    /**
     * Runs the command.
     *
     * @param args the arguments after the command name
     * @return the process exit status: 0 success, 1 the command's "found problems" status, 2
     *         a usage error or unusable input
     */
    int run(String[] args, PrintStream out, PrintStream err);
}
