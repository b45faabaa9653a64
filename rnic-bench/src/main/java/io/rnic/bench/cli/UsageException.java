package io.rnic.bench.cli;

/**
 * The command line is wrong: an unknown option, a missing or malformed value, too few or too
 * many arguments. Commands report it as a message and exit status 2 rather than a stack trace,
 * because it is the user's mistake, not the program's.
 */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message one line that says what is wrong, without the program name */
    public UsageException(String message) {
        super(message);
    }
}
