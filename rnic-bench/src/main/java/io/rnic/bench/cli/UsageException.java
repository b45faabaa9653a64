package io.rnic.bench.cli;

/**
 * The command line parsed but makes no sense: a value out of range, options that do not go
 * together. Commands throw it from {@link RnicCommand#execute()}; it is reported like picocli's
 * own parse errors (a message and exit status 2) rather than as a stack trace, because it is the
 * user's mistake, not the program's.
 */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message one line that says what is wrong, without the program name */
    public UsageException(String message) {
        super(message);
    }
}
