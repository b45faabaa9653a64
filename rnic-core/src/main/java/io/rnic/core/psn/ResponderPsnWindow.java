package io.rnic.core.psn;

/** The responder's expected PSN (ePSN) and the classification of incoming request PSNs. */
public final class ResponderPsnWindow {
    private int expected;

    /** Starts over expecting {@code psn}. */
    public void reset(int psn) {
        this.expected = Psn.require(psn, "expected PSN");
    }

    /** The expected PSN. */
    public int expected() {
        return expected;
    }

    /** Classifies a request PSN against the expected PSN. */
    public RequestRegion classify(int psn) {
        int d = Psn.compare(psn, expected);
        if (d == 0) {
            return RequestRegion.EXPECTED;
        }
        return d < 0 ? RequestRegion.DUPLICATE : RequestRegion.OUT_OF_SEQUENCE;
    }

    /** Advances the expected PSN by {@code n} (1, or the response count of a READ). */
    public void advance(int n) {
        expected = Psn.add(expected, n);
    }

    /** The PSN of the most recent request accepted ({@code ePSN - 1}), used in duplicate ACKs. */
    public int lastAccepted() {
        return Psn.add(expected, -1);
    }
}
