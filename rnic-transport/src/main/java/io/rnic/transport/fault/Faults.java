package io.rnic.transport.fault;

/**
 * The fault models: seeded random ones with a probability per packet, and scripted ones for
 * exact scenarios. Each returns a fresh object, since scripted faults keep state.
 */
public final class Faults {
    private Faults() {
    }

    private static double probability(double p) {
        if (!(p >= 0.0 && p <= 1.0)) {
            throw new IllegalArgumentException("probability " + p + " is outside 0..1");
        }
        return p;
    }

    /** Drops each packet with probability {@code p}. */
    public static FaultModel drop(double p) {
        double q = probability(p);
        return f -> {
            if (f.random().nextDouble() < q) {
                f.drop();
            }
        };
    }

    /** Delivers each packet twice with probability {@code p}. */
    public static FaultModel duplicate(double p) {
        double q = probability(p);
        return f -> {
            if (f.random().nextDouble() < q) {
                f.duplicate();
            }
        };
    }

    /**
     * With probability {@code p}, delays a packet by a uniform extra delay in
     * {@code (0, maxExtraNanos]}, so that later packets overtake it.
     */
    public static FaultModel reorder(double p, long maxExtraNanos) {
        double q = probability(p);
        if (maxExtraNanos <= 0) {
            throw new IllegalArgumentException("maximum extra delay " + maxExtraNanos + " ns must be positive");
        }
        return f -> {
            if (f.random().nextDouble() < q) {
                f.delay(1 + f.random().nextLong(maxExtraNanos));
            }
        };
    }

    /** With probability {@code p}, flips one random bit of the packet (the ICRC catches it). */
    public static FaultModel corrupt(double p) {
        double q = probability(p);
        return f -> {
            int len = f.packet().readableBytes();
            if (len > 0 && f.random().nextDouble() < q) {
                f.flipBit(f.random().nextInt(len), f.random().nextInt(8));
            }
        };
    }

    /** With probability {@code p}, cuts the packet to a random shorter length. */
    public static FaultModel truncate(double p) {
        double q = probability(p);
        return f -> {
            int len = f.packet().readableBytes();
            if (len > 0 && f.random().nextDouble() < q) {
                f.truncate(f.random().nextInt(len));
            }
        };
    }

    /** Drops the first packet to QP {@code qp} (-1: any) with PSN {@code psn}, once. */
    public static FaultModel dropPsnOnce(int qp, int psn) {
        return dropNth(PacketMatch.psn(qp, psn), 1);
    }

    /** Drops the {@code k}-th packet (1-based) that {@code match} selects, and nothing else. */
    public static FaultModel dropNth(PacketMatch match, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("k must be at least 1, got " + k);
        }
        int[] seen = {0};
        return f -> {
            if (match.test(f) && ++seen[0] == k) {
                f.drop();
            }
        };
    }

    /** Drops the first {@code n} packets that {@code match} selects, then lets everything through. */
    public static FaultModel dropFirst(PacketMatch match, int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must not be negative, got " + n);
        }
        int[] dropped = {0};
        return f -> {
            if (dropped[0] < n && match.test(f)) {
                dropped[0]++;
                f.drop();
            }
        };
    }

    /** Drops the {@code k}-th ACK (ACKNOWLEDGE or ATOMIC ACKNOWLEDGE), once. */
    public static FaultModel dropNthAck(int k) {
        return dropNth(PacketMatch.acks(), k);
    }

    /**
     * Applies {@code fault} to the first {@code n} packets {@code match} selects, then lets
     * everything through: added to a running {@link FaultInjectingWire}, the next {@code n}
     * packets of a QP, e.g. {@code first(PacketMatch.toQp(peerQpn), 3, corrupt(1))}.
     */
    public static FaultModel first(PacketMatch match, int n, FaultModel fault) {
        if (n < 0) {
            throw new IllegalArgumentException("n must not be negative, got " + n);
        }
        java.util.Objects.requireNonNull(fault, "fault");
        int[] applied = {0};
        return f -> {
            if (applied[0] < n && match.test(f)) {
                applied[0]++;
                fault.apply(f);
            }
        };
    }

    /** Delays every packet by {@code nanos} (with {@link #first}: the next few of a QP). */
    public static FaultModel delay(long nanos) {
        if (nanos <= 0) {
            throw new IllegalArgumentException("delay " + nanos + " ns must be positive");
        }
        return f -> f.delay(nanos);
    }

    /** Holds the first packet {@code match} selects until the next packet has gone, once. */
    public static FaultModel delayPastNext(PacketMatch match) {
        boolean[] done = {false};
        return f -> {
            if (!done[0] && match.test(f)) {
                done[0] = true;
                f.holdForNext();
            }
        };
    }

    /** Applies {@code fault} only to packets {@code match} selects. */
    public static FaultModel only(PacketMatch match, FaultModel fault) {
        return f -> {
            if (match.test(f)) {
                fault.apply(f);
            }
        };
    }
}
