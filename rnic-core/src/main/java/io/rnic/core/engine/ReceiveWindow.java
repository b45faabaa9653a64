package io.rnic.core.engine;

import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.LossRecovery;

/**
 * The responder's receive window (seed 002): what becomes of a request whose PSN is ahead of the
 * expected one. Go-back-N ({@link InOrderReceiveWindow}) takes none, and the responder NAKs the
 * first and drops the rest (reference §5.4); a reorder buffer ({@link ReorderReceiveWindow})
 * holds them and hands them back in PSN order once the hole fills; the extended protocol
 * ({@link PlacingReceiveWindow}) places their data on arrival and keeps only their headers.
 */
interface ReceiveWindow {
    /**
     * Takes a request whose PSN is ahead of the expected one.
     *
     * @return true if it was held, placed or dropped as a duplicate of one that was; false if the
     *     standard out-of-sequence rule applies to it (go-back-N, or no room)
     */
    boolean ahead(RocePacket p, PseudoHeader ip);

    /** After a request was handled: handles the held requests that are now in order. */
    void drain(PseudoHeader ip);

    /** Forgets every held request (the QP is reset or failed). */
    void clear();

    /** Requests held now. */
    int held();

    /**
     * Whether a duplicate READ earlier than the response being streamed interrupts the stream
     * (seed 000 §3.3.2.2 rule 6: a standard requester that asks again from an earlier PSN is going
     * back, and wants nothing after it). A selective re-read asks for one piece and wants the rest
     * too, so the extended protocol queues it instead.
     */
    default boolean earlierReadInterrupts() {
        return true;
    }

    /** The window for a QP's loss recovery mode; go-back-N's holds nothing, so QPs share one. */
    static ReceiveWindow of(LossRecovery mode, QpContext qp, Responder responder) {
        return switch (mode) {
            case GO_BACK_N -> InOrderReceiveWindow.INSTANCE;
            case REORDER -> new ReorderReceiveWindow(qp, responder);
            case SELECTIVE -> new PlacingReceiveWindow(qp, responder);
        };
    }
}
