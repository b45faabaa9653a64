package io.rnic.bench.rdmacm;

import java.io.PrintStream;
import java.util.function.LongSupplier;

/**
 * Says on stderr, once, that a wait is taking long: what the program waits for and from whom.
 * The programs wait as librdmacm's do (60 s for a peer, forever for a client), and a wait for a
 * peer that is not there or died used to be silent for all of it; one line after a few seconds
 * tells the user what is missing, and the wait goes on as before.
 */
final class WaitNotice {
    /** How long a wait lasts before it is mentioned. */
    static final long DEFAULT_AFTER_NANOS = 5_000_000_000L;

    private final String program;
    private final PrintStream err;
    private final long afterNanos;
    private final LongSupplier clock;

    /**
     * @param program    the name the lines start with
     * @param err        where they go
     * @param afterNanos how long a wait lasts before its line
     * @param clock      the time in nanoseconds ({@code System::nanoTime}; a test's own)
     */
    WaitNotice(String program, PrintStream err, long afterNanos, LongSupplier clock) {
        if (afterNanos <= 0) {
            throw new IllegalArgumentException("a wait is mentioned after a positive time, not " + afterNanos + " ns");
        }
        this.program = program;
        this.err = err;
        this.afterNanos = afterNanos;
        this.clock = clock;
    }

    /**
     * Starts a wait.
     *
     * @param what what is awaited ("RDMA_CM_EVENT_ESTABLISHED", "5 receive completions")
     * @param from whom from ("127.0.0.2:7174", "any client on port 7471")
     * @return the wait: {@link Wait#check()} it while waiting
     */
    Wait begin(String what, Object from) {
        return new Wait(what, from, clock.getAsLong());
    }

    /** An address as the programs print one (no host name lookup, no leading slash). */
    static String describe(Object from) {
        if (from instanceof java.net.InetSocketAddress a && a.getAddress() != null) {
            return a.getAddress().getHostAddress() + ":" + a.getPort();
        }
        if (from instanceof java.net.InetAddress a) {
            return a.getHostAddress();
        }
        return String.valueOf(from);
    }

    /** One wait: its line is printed by the first {@link #check()} after the notice time. */
    final class Wait {
        private final String what;
        private final Object from;
        private final long start;
        private boolean said;

        private Wait(String what, Object from, long start) {
            this.what = what;
            this.from = from;
            this.start = start;
        }

        /** Prints the line if the wait has lasted long enough and it has not been printed yet. */
        void check() {
            long waited = clock.getAsLong() - start;
            if (!said && waited >= afterNanos) {
                said = true;
                err.printf("%s: waiting for %s from %s (%d s so far)%n", program, what, describe(from),
                        waited / 1_000_000_000L);
            }
        }

        /** How long until the line is due (0 if due or printed): a blocking wait sleeps no longer, then checks. */
        long untilNotice() {
            return said ? Long.MAX_VALUE : Math.max(0, afterNanos - (clock.getAsLong() - start));
        }

        /** True once the line was printed. */
        boolean said() {
            return said;
        }
    }
}
