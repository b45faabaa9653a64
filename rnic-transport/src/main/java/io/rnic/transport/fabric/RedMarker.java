package io.rnic.transport.fabric;

/**
 * RED-style ECN marking on the instantaneous egress queue, as HPCC's switch does it
 * ({@code switch-mmu.cc}, {@code ShouldSendCN}; the DCQCN paper's CP): a queue of q bytes is
 * <ul>
 *   <li>never marked if q ≤ Kmin,</li>
 *   <li>always marked if q &gt; Kmax,</li>
 *   <li>marked with probability Pmax · (q − Kmin) / (Kmax − Kmin) in between.</li>
 * </ul>
 * HPCC reads q at dequeue, after the departing packet has left the queue; which q to pass (at
 * enqueue or at dequeue) is the caller's choice ({@link FabricConfig#ecnMarkOnDequeue()}).
 * Randomness is the caller's too: it passes a uniform draw in [0, 1) from its seeded source,
 * so a run is a function of its seed. Allocation-free.
 */
final class RedMarker {
    private final long kmin;
    private final long kmax;
    private final double pmax;
    /** Pmax / (Kmax − Kmin), or 0 when Kmin = Kmax (a step: no probabilistic band). */
    private final double slope;

    RedMarker(long kminBytes, long kmaxBytes, double pmax) {
        check(kminBytes, kmaxBytes, pmax);
        this.kmin = kminBytes;
        this.kmax = kmaxBytes;
        this.pmax = pmax;
        this.slope = kmaxBytes == kminBytes ? 0 : pmax / (kmaxBytes - kminBytes);
    }

    static void check(long kminBytes, long kmaxBytes, double pmax) {
        if (kminBytes < 0 || kmaxBytes < kminBytes) {
            throw new IllegalArgumentException("ECN thresholds need 0 <= Kmin <= Kmax, got Kmin " + kminBytes + " B, Kmax " + kmaxBytes + " B");
        }
        if (!(pmax >= 0 && pmax <= 1)) {
            throw new IllegalArgumentException("Pmax " + pmax + " is not a probability in [0, 1]");
        }
    }

    /** The probability that a queue of {@code queueBytes} marks a packet. */
    double probability(long queueBytes) {
        if (queueBytes <= kmin) {
            return 0;
        }
        if (queueBytes > kmax) {
            return 1;
        }
        return slope * (queueBytes - kmin);
    }

    /**
     * Whether to mark, given the queue and a uniform draw in [0, 1) from the caller's seeded
     * source: true iff {@code uniform01 < probability(queueBytes)}.
     */
    boolean mark(long queueBytes, double uniform01) {
        if (queueBytes <= kmin) {
            return false;
        }
        if (queueBytes > kmax) {
            return true;
        }
        return uniform01 < slope * (queueBytes - kmin);
    }

    long kminBytes() {
        return kmin;
    }

    long kmaxBytes() {
        return kmax;
    }

    double pmax() {
        return pmax;
    }
}
