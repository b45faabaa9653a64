package io.rnic.core.time;

/**
 * The only source of time the protocol core sees. The simulated network supplies virtual time;
 * an HCA on a real wire supplies its event loop's monotonic clock. Protocol logic never reads
 * {@code System.nanoTime()} itself, so a scenario with seconds of timeouts runs in microseconds.
 */
@FunctionalInterface
public interface Clock {
    /** Monotonic time in nanoseconds; only differences are meaningful. */
    long nanoTime();
}
