package io.rnic.core.engine;

import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.psn.Psn;

/**
 * End-to-end flow control (reference §3.1): a message that takes a receive WQE at the responder
 * starts only if its send sequence number is within the limit the last ACK's credits gave, or,
 * with no credit, as the single probe when no such message is outstanding. The gate numbers the
 * messages it sees start and reads the credits of every ACK.
 */
final class CreditGate implements SendGate {
    private final QpContext qp;
    /** Messages started (the send sequence number of the last one), in the MSN's 24-bit space. */
    private int ssn;
    /** Limit sequence number from the last AETH credits: messages up to it may take an RWQE. */
    private int lsn;
    private boolean creditsKnown;
    private boolean creditsUnlimited;
    /** Sent, uncompleted messages that take a receive WQE at the responder. */
    private int rwqeMessagesOutstanding;

    CreditGate(QpContext qp) {
        this.qp = qp;
    }

    /** At RTS: no message started, no credits known yet. */
    void start() {
        ssn = 0;
        lsn = 0;
        creditsKnown = false;
        // Credits travel in ACKs: an unacknowledged transport has none to wait for.
        creditsUnlimited = !qp.endToEndCredits || qp.policy.credits() == TransportPolicy.Credits.NONE;
        rwqeMessagesOutstanding = 0;
    }

    void reset() {
        rwqeMessagesOutstanding = 0;
    }

    @Override
    public boolean admits(SendWqe w) {
        if (w.psnAssigned || creditsUnlimited || !Requester.takesReceiveWqe(w)) {
            return true;
        }
        int next = Psn.next(ssn);
        if (creditsKnown && !Psn.isAfter(next, lsn)) {
            return true;
        }
        return rwqeMessagesOutstanding == 0;
    }

    /** WQE {@code w} starts: returns its send sequence number; it counts until it is retired if it takes a receive WQE. */
    int started(SendWqe w) {
        ssn = Psn.next(ssn);
        if (Requester.takesReceiveWqe(w)) {
            rwqeMessagesOutstanding++;
        }
        return ssn;
    }

    /** A message that takes a receive WQE completed, or an EE context forgot it. */
    void retired() {
        rwqeMessagesOutstanding--;
    }

    /**
     * Takes the credits of an ACK-type AETH (also from duplicate responses, which may be sent
     * just to deliver credits). Returns true if the limit moved.
     */
    boolean credits(int syndrome, int msn) {
        if (!qp.endToEndCredits || AethSyndrome.type(syndrome) != AethSyndrome.TYPE_ACK) {
            return false;
        }
        int code = AethSyndrome.value(syndrome);
        if (code == AethSyndrome.CREDITS_INVALID) {
            boolean changed = !creditsUnlimited;
            creditsUnlimited = true;
            return changed;
        }
        creditsUnlimited = false;
        int limit = Psn.add(msn, AethSyndrome.creditsOf(code));
        if (!creditsKnown || Psn.isAfter(limit, lsn)) {
            lsn = limit;
            creditsKnown = true;
            return true;
        }
        return false;
    }
}
