package io.rnic.core.transport;

import io.rnic.core.packet.Transport;
import io.rnic.core.qp.QpType;

/**
 * What a transport service does differently, one row per transport the engine runs, so that the
 * requester, completer and responder consult a column instead of testing the QP type. A new
 * transport is a new row (and, where it needs one, a new value of a column).
 *
 * @param type        the QP type
 * @param transport   the opcode range its packets use
 * @param reliable    requests are acknowledged and retransmitted, send WQEs complete on
 *                    acknowledgement, the responder answers with ACK/NAK and keeps read/atomic
 *                    resources (RC); otherwise send WQEs complete once sent and nothing is
 *                    acknowledged (UC)
 * @param psnCheck    how the responder treats a request whose PSN is not the expected one
 */
public record TransportPolicy(QpType type, Transport transport, boolean reliable, PsnCheck psnCheck) {

    /** The responder's answer to an unexpected request PSN (reference §5.4, §5.9). */
    public enum PsnCheck {
        /** Duplicates are answered, the first out-of-sequence request is NAKed (RC). */
        NAK_OUT_OF_SEQUENCE,
        /**
         * No NAK: a First or Only packet starts a new message at its PSN (abandoning a partial
         * one); anything else out of sequence is dropped (UC).
         */
        RESYNC_ON_FIRST
    }

    public static final TransportPolicy RC = new TransportPolicy(QpType.RC, Transport.RC, true, PsnCheck.NAK_OUT_OF_SEQUENCE);
    public static final TransportPolicy UC = new TransportPolicy(QpType.UC, Transport.UC, false, PsnCheck.RESYNC_ON_FIRST);

    /** The policy of a QP type, or {@code null} if the engine does not run that transport yet. */
    public static TransportPolicy of(QpType type) {
        return switch (type) {
            case RC -> RC;
            case UC -> UC;
            default -> null;
        };
    }
}
