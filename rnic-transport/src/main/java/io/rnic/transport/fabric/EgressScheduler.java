package io.rnic.transport.fabric;

/**
 * Picks which of a port's eight priority queues sends next.
 * <ul>
 *   <li><b>Strict priority</b>: the highest non-empty, unpaused priority (7 highest).</li>
 *   <li><b>DWRR</b> (deficit weighted round robin; Shreedhar and Varghese, "Efficient Fair
 *       Queuing Using Deficit Round Robin", SIGCOMM 1995): the priorities in a strict mask are
 *       served first, highest first (the control priority, so CNPs never wait behind data);
 *       the others take turns, each turn adding {@code weight × quantum} bytes to the queue's
 *       deficit and sending head packets while they fit in it. Over any backlogged interval
 *       each queue's bytes are within a few quanta and packets of {@code weight / Σ weights}
 *       of the total, whatever the packet sizes.</li>
 * </ul>
 * Empty queues and paused queues are skipped. A paused queue keeps its deficit and its place
 * and takes its share again when the pause ends; an empty queue's deficit is reset, as DRR does,
 * so idle time earns no credit.
 *
 * <p>{@link #next} allocates nothing; the caller dequeues exactly the head packet it was told.
 */
final class EgressScheduler {
    private static final int PRIORITIES = 8;

    private final boolean dwrr;
    private final int strictMask;
    private final long[] quantum = new long[PRIORITIES];
    private final long[] deficit = new long[PRIORITIES];
    /** The queue whose turn it is (DWRR). */
    private int current;
    /** Whether the current queue has had its quantum for this turn. */
    private boolean credited;

    private EgressScheduler(boolean dwrr, int strictMask, int[] weights, int quantumBytes) {
        this.dwrr = dwrr;
        this.strictMask = strictMask;
        if (dwrr) {
            for (int p = 0; p < PRIORITIES; p++) {
                quantum[p] = (long) weights[p] * quantumBytes;
            }
        }
    }

    /** Strict priority over all eight queues, 7 highest. */
    static EgressScheduler strictPriority() {
        return new EgressScheduler(false, 0xFF, new int[PRIORITIES], 0);
    }

    /**
     * DWRR over the priorities not in {@code strictMask}, which are served first, highest first.
     *
     * @param weights      eight weights, priority 0 first; each at least 1
     * @param quantumBytes bytes a weight of 1 adds per turn; at least 1 (a quantum of at least
     *                     the largest packet lets every turn send one)
     * @param strictMask   bit p set: priority p is served by strict priority above the others
     */
    static EgressScheduler dwrr(int[] weights, int quantumBytes, int strictMask) {
        if (weights.length != PRIORITIES) {
            throw new IllegalArgumentException("DWRR needs 8 weights, one per priority, not " + weights.length);
        }
        for (int p = 0; p < PRIORITIES; p++) {
            if (weights[p] < 1) {
                throw new IllegalArgumentException("DWRR weight " + weights[p] + " of priority " + p + " must be at least 1");
            }
        }
        if (quantumBytes < 1) {
            throw new IllegalArgumentException("DWRR quantum " + quantumBytes + " B must be at least 1");
        }
        if ((strictMask & ~0xFF) != 0) {
            throw new IllegalArgumentException("strict priority mask 0x" + Integer.toHexString(strictMask) + " names priorities above 7");
        }
        return new EgressScheduler(true, strictMask, weights.clone(), quantumBytes);
    }

    /**
     * The queue to send from next, or -1 if none may send.
     *
     * @param backloggedMask bit p set: queue p has a packet
     * @param pausedMask     bit p set: priority p is paused ({@link PauseState#pausedMask})
     * @param headSize       the size in bytes of each backlogged queue's head packet (DWRR reads it)
     */
    int next(int backloggedMask, int pausedMask, int[] headSize) {
        int eligible = backloggedMask & ~pausedMask & 0xFF;
        if (eligible == 0) {
            return -1;
        }
        int strict = eligible & strictMask;
        if (strict != 0) {
            return 31 - Integer.numberOfLeadingZeros(strict);
        }
        // DWRR over the rest. Ends: every full round credits each eligible queue, so the
        // head of one of them soon fits its deficit.
        while (true) {
            int q = current;
            if ((eligible >>> q & 1) != 0) {
                if (!credited) {
                    deficit[q] += quantum[q];
                    credited = true;
                }
                int size = headSize[q];
                if (size <= deficit[q]) {
                    deficit[q] -= size;
                    return q;
                }
            } else if ((backloggedMask >>> q & 1) == 0) {
                deficit[q] = 0; // empty: DRR gives no credit for idle time
            }
            current = (current + 1) & (PRIORITIES - 1);
            credited = false;
        }
    }

    /** Whether this is DWRR (else strict priority). */
    boolean isDwrr() {
        return dwrr;
    }

    /** Queue {@code p}'s deficit in bytes (DWRR). */
    long deficit(int p) {
        return deficit[p];
    }
}
