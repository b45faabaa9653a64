package io.rnic.transport.udp;

import java.util.function.BooleanSupplier;

/**
 * Waits for a condition that other threads make true, with a bound. It yields the processor
 * between checks instead of sleeping a fixed time, and gives up after the bound.
 */
public final class Await {
    private Await() {
    }

    public static boolean until(BooleanSupplier done, long boundNanos) {
        long deadline = System.nanoTime() + boundNanos;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return done.getAsBoolean();
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return true;
    }
}
