package io.rnic.core.engine;

import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.LossRecovery;

/**
 * The requester's response window (seed 002): which responses it can use ahead of the one it
 * expects. In order ({@link #IN_ORDER}) it uses none: a later response is an implied NAK and the
 * READ is asked for again from the first response missing (reference §5.3). Selective
 * ({@link SelectiveResponseWindow}) places every READ response where its PSN says, and asks
 * again only for the pieces that are missing.
 */
interface ResponseWindow {
    /**
     * Offers a response in the valid region to the window.
     *
     * @return true if the window handled it; false if the completer's in-order rules apply
     */
    boolean take(RocePacket p);

    /**
     * The responder has acknowledged every PSN up to {@code psn} while a READ or atomic before it
     * still waits for answers: the WQEs it covers complete after that one (implicitly, through a
     * selective NAK). Go-back-N never gets here.
     */
    default void acknowledgedBeyond(int psn) {
    }

    /** Completes, in order, the WQEs at the head whose answers the window already holds. */
    default void settle() {
    }

    /** A response arrived, whatever it is: the responder is still answering. */
    default void heard() {
    }

    /**
     * The local ACK timeout for what is in flight now, given the QP's own ({@code normal},
     * 4.096 µs × 2^timeout). In order, and in REORDER mode, it is the QP's; the extended protocol
     * shortens it to IRN's RTO_low while few packets are in flight ({@link SelectiveResponseWindow}).
     */
    default long ackTimeoutNanos(long normal) {
        return normal;
    }

    /** Stops its timers (the QP is reset or failed). */
    void clear();

    /** The go-back-N window: takes nothing. */
    ResponseWindow IN_ORDER = new ResponseWindow() {
        @Override
        public boolean take(RocePacket p) {
            return false;
        }

        @Override
        public void clear() {
        }
    };

    /** The window for a QP's loss recovery mode. */
    static ResponseWindow of(LossRecovery mode, QpContext qp, Completer completer) {
        return switch (mode) {
            case GO_BACK_N -> IN_ORDER;
            // REORDER keeps the standard timeout: its requests are standard RoCEv2.
            case REORDER -> new SelectiveResponseWindow(qp, completer, 0);
            case SELECTIVE -> new SelectiveResponseWindow(qp, completer,
                    qp.hca.limits().recovery().rtoLowNanos(qp.hca.scheduler().virtualTime()));
        };
    }
}
