package io.rnic.transport.fabric;

import java.util.SplittableRandom;

/**
 * A full-duplex link of a fabric: its two ends, rate and propagation delay, whether it is up, and
 * the per-frame loss its topology gives it (HPCC's topology files' error rate), drawn from a
 * random source seeded from the network's seed and the link's index.
 */
final class FabricLink {
    final int index;
    final long bitsPerSecond;
    final long delayNanos;
    private final double lossRate;
    private final SplittableRandom random;
    private boolean up = true;
    private long lost;
    private long lostDown;
    private long lostInFlight;

    FabricLink(int index, long bitsPerSecond, long delayNanos, double lossRate, long seed) {
        this.index = index;
        this.bitsPerSecond = bitsPerSecond;
        this.delayNanos = delayNanos;
        this.lossRate = lossRate;
        this.random = lossRate > 0 ? new SplittableRandom(seed) : null;
    }

    boolean isUp() {
        return up;
    }

    void up(boolean on) {
        this.up = on;
    }

    /** Whether a frame put on the link now reaches the other end; counts those that do not. */
    boolean carries() {
        if (!up) {
            lostDown++;
            return false;
        }
        if (random != null && random.nextDouble() < lossRate) {
            lost++;
            return false;
        }
        return true;
    }

    /** A frame that was on the link when it went down. */
    void lostInFlight() {
        lostInFlight++;
    }

    /** Frames the link's error rate dropped. */
    long randomLosses() {
        return lost;
    }

    /** Frames sent onto the link while it was down, or on it when it went down. */
    long downLosses() {
        return lostDown + lostInFlight;
    }
}
