package io.rnic.verbs;

/** The network a device is attached to failed: a socket could not be bound, a capture not written. */
public class WireException extends RnicException {
    private static final long serialVersionUID = 1L;

    /**
     * A wire failure.
     *
     * @param message what failed
     * @param cause the underlying I/O failure
     */
    public WireException(String message, Throwable cause) {
        super(message, cause);
    }
}
