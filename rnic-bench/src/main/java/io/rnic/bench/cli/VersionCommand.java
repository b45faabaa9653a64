package io.rnic.bench.cli;

import java.io.PrintStream;

/** {@code rnic version} (also {@code rnic --version}): which build of rnic is running, on which Java. */
public final class VersionCommand extends ParsedCommand {
    private final ArgParser parser = new ArgParser("rnic version", "[options]")
            .description("""
                    Prints the version of rnic, the git commit it was built from (when it was built in a git
                    checkout) and the version of the Java runtime running it. 'rnic --version' does the same.""");

    @Override
    public String name() {
        return "version";
    }

    @Override
    public String summary() {
        return "print the version, the git commit it was built from and the Java runtime";
    }

    @Override
    protected ArgParser parser() {
        return parser;
    }

    @Override
    protected int execute(ParsedArgs args, PrintStream out, PrintStream err) {
        out.println(Version.current().line());
        return 0;
    }
}
