package io.rnic.core.psn;

/**
 * The requester's PSN bookkeeping: the oldest unacknowledged PSN, the next PSN to assign, and a
 * limit on PSNs in flight. Allocation-free; owned by one thread.
 */
public final class RequesterPsnWindow {
    private int oldestUnacked;
    private int next;
    private int limit;

    /** A window allowing {@code limit} PSNs in flight (1..2^23). */
    public RequesterPsnWindow(int limit) {
        limit(limit);
    }

    /** Starts over at {@code startPsn} with nothing in flight. */
    public void reset(int startPsn) {
        Psn.require(startPsn, "start PSN");
        this.oldestUnacked = startPsn;
        this.next = startPsn;
    }

    /** Changes the in-flight limit. */
    public void limit(int limit) {
        if (limit < 1 || limit > Psn.WINDOW) {
            throw new IllegalArgumentException("in-flight PSN limit " + limit + " is outside 1.." + Psn.WINDOW);
        }
        this.limit = limit;
    }

    public int limit() {
        return limit;
    }

    /** The oldest PSN not yet acknowledged (equal to {@link #next()} when nothing is in flight). */
    public int oldestUnacked() {
        return oldestUnacked;
    }

    /** The PSN the next new packet will take. */
    public int next() {
        return next;
    }

    /** PSNs assigned but not acknowledged. */
    public int inFlight() {
        return Psn.forward(oldestUnacked, next);
    }

    /** True if {@code n} more PSNs fit under the limit. */
    public boolean canReserve(int n) {
        return inFlight() + n <= limit;
    }

    /** Assigns {@code n} consecutive PSNs (a READ takes one per response packet); returns the first. */
    public int reserve(int n) {
        int first = next;
        next = Psn.add(next, n);
        return first;
    }

    /** Classifies the PSN of a response. */
    public ResponseRegion classify(int psn) {
        int d = Psn.forward(oldestUnacked, psn);
        if (d < inFlight()) {
            return ResponseRegion.VALID;
        }
        return Psn.isBefore(psn, oldestUnacked) ? ResponseRegion.DUPLICATE : ResponseRegion.INVALID;
    }

    /**
     * Records that every PSN up to and including {@code psn} is acknowledged. A PSN outside the
     * valid region changes nothing.
     */
    public boolean acknowledge(int psn) {
        if (classify(psn) != ResponseRegion.VALID) {
            return false;
        }
        oldestUnacked = Psn.next(psn);
        return true;
    }

    /** Records that every PSN before {@code psn} is acknowledged (a NAK's implicit ACK). */
    public boolean acknowledgeBefore(int psn) {
        if (psn == oldestUnacked) {
            return true;
        }
        return acknowledge(Psn.add(psn, -1));
    }
}
