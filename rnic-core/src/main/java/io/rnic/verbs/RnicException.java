package io.rnic.verbs;

/**
 * A failure of the emulator or of what it runs on: the device, its wire, the protocol thread.
 * Every such failure is one of these (or a subclass), so an application can tell them from its
 * own mistakes, which stay {@link IllegalArgumentException} (a wrong argument, with what and
 * why) and {@link IllegalStateException} (a call the object's state does not allow).
 */
public class RnicException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure described by {@code message}.
     *
     * @param message what failed, and why as far as known
     */
    public RnicException(String message) {
        super(message);
    }

    /**
     * A failure described by {@code message}, caused by {@code cause}.
     *
     * @param message what failed
     * @param cause the underlying failure (an I/O error, an exception on the protocol thread)
     */
    public RnicException(String message, Throwable cause) {
        super(message, cause);
    }
}
