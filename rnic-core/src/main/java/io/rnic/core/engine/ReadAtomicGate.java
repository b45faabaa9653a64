package io.rnic.core.engine;

/**
 * The initiator depth ({@code max_rd_atomic}): a new READ or atomic waits while that many are
 * outstanding, since the responder keeps a resource for each and has only as many.
 */
final class ReadAtomicGate implements SendGate {
    private final QpContext qp;
    /** READ and atomic WQEs sent and not yet completed. */
    private int outstanding;

    ReadAtomicGate(QpContext qp) {
        this.qp = qp;
    }

    @Override
    public boolean admits(SendWqe w) {
        return !(w.kind.isReadOrAtomic() && !w.psnAssigned && outstanding >= Math.max(1, qp.attrs.maxRdAtomic()));
    }

    /** READs and atomics sent and not yet completed. */
    int outstanding() {
        return outstanding;
    }

    /** A READ or atomic took its PSNs. */
    void started() {
        outstanding++;
    }

    /** A READ or atomic completed, or an EE context forgot it. */
    void retired() {
        outstanding--;
    }

    void reset() {
        outstanding = 0;
    }
}
