package io.rnic.bench.cli;

import picocli.CommandLine.Command;

/** {@code rnic version} (also {@code rnic --version}): which build of rnic is running, on which Java. */
@Command(name = "version", description = {"print the version, the git commit it was built from and the Java runtime", "",
    """
        Prints the version of rnic, the git commit it was built from (when it was built in a git \
        checkout) and the version of the Java runtime running it. 'rnic --version' does the same."""},
        exitCodeList = {"0:printed", RnicCommand.USAGE_ERROR_LINE, RnicCommand.INTERNAL_ERROR_LINE})
public final class VersionCommand extends RnicCommand {
    @Override
    protected int execute() {
        out.println(Version.current().line());
        return 0;
    }
}
