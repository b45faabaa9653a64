package io.rnic.bench.cli;

import java.io.PrintStream;

/**
 * Base of the commands whose arguments an {@link ArgParser} describes. It owns the behaviour
 * every command must share, so no command can get it wrong: {@code --help} prints the usage to
 * standard output and exits 0; a usage error prints one message plus a hint to standard error
 * and exits 2.
 */
public abstract class ParsedCommand implements Command {
    /** The option declarations; built once per command instance. */
    protected abstract ArgParser parser();

    /**
     * Runs the command with parsed arguments.
     *
     * @throws UsageException for a value that parsed but makes no sense (reported like a parse
     *                        error, exit 2)
     */
    protected abstract int execute(ParsedArgs args, PrintStream out, PrintStream err) throws UsageException;

    @Override
    public String usage() {
        return parser().usage();
    }

    @Override
    public final int run(String[] args, PrintStream out, PrintStream err) {
        try {
            ParsedArgs parsed = parser().parse(args);
            if (parsed.helpRequested()) {
                out.print(usage());
                out.flush();
                return 0;
            }
            return execute(parsed, out, err);
        } catch (UsageException e) {
            err.println(parser().program() + ": " + e.getMessage());
            err.println("Try '" + parser().program() + " --help' for more information.");
            return 2;
        }
    }
}
