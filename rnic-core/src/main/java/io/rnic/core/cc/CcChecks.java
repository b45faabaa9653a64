package io.rnic.core.cc;

/** Argument checks shared by the schemes; each message says what is wrong and why. */
final class CcChecks {
    private CcChecks() {
    }

    /** Time passed to one instance must not go backwards: its lazily applied timers cannot be undone. */
    static void time(long previous, long now) {
        if (now < previous) {
            throw new IllegalArgumentException("time went backwards: " + now + " ns after " + previous
                    + " ns (congestion control applies its timers up to the latest time and cannot undo them)");
        }
    }

    static void bytes(int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("packet size " + bytes + " bytes must be positive");
        }
    }

    static void rtt(long rttNanos) {
        if (rttNanos < -1) {
            throw new IllegalArgumentException("RTT sample " + rttNanos + " ns must be at least 0, or -1 for none");
        }
    }
}
