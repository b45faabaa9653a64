package io.rnic.core.engine;

import io.rnic.core.psn.RequesterPsnWindow;

/**
 * The window of PSNs in flight: a packet goes only if its PSN fits (READs and atomics take all
 * their PSNs at once, SENDs and WRITEs one per packet), and a run does not start when the window
 * would cut it to a sliver (silly-window avoidance).
 */
final class PsnWindowGate implements SendGate {
    private final QpContext qp;
    private final RequesterPsnWindow window;

    PsnWindowGate(QpContext qp) {
        this.qp = qp;
        this.window = qp.rel.sendWindow;
    }

    /** READs and atomics take all their PSNs at once; SEND and WRITE one per packet. */
    @Override
    public boolean admits(SendWqe w) {
        int need;
        if (w.kind.isReadOrAtomic()) {
            need = w.psnAssigned ? 0 : w.packets;
        } else {
            need = w.psnAssigned && w.nextPacket < w.reservedPackets ? 0 : 1;
        }
        // An empty window always admits the next WQE, so that a READ longer than the window
        // can still go.
        return need == 0 || window.canReserve(need) || window.inFlight() == 0;
    }

    /**
     * Silly-window avoidance, as TCP's sender has it: with packets in flight, a run that the PSN
     * window would cut to a sliver (under a quarter of it) waits for more ACKs, when the queue
     * holds more than the window admits. Otherwise every ACK frees a few PSNs and starts a run of
     * a few packets, each run ends asking for an ACK, and the two ends trade small batches, each
     * with a system call and an ACK of its own, for good. The run in flight ended asking for an
     * ACK, so one comes (or its timer fires) and runs the requester again. A resend never waits.
     * {@code cursor} is the send queue index the run would start at.
     */
    boolean tooNarrowToStart(long cursor) {
        int inFlight = window.inFlight();
        if (inFlight == 0 || !qp.policy.ack().acked()) {
            return false;
        }
        int free = window.limit() - inFlight;
        if (free >= Math.max(1, window.limit() / 4)) {
            return false;
        }
        long start = Math.max(cursor, qp.sq.completed());
        return start < qp.sq.posted() && !qp.sq.at(start).psnAssigned && qp.sq.posted() - start > free;
    }
}
