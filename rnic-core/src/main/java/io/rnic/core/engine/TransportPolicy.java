package io.rnic.core.engine;

import io.rnic.core.packet.Transport;
import io.rnic.verbs.QpType;
import java.util.EnumMap;
import java.util.Map;

/**
 * What a transport service does differently, as one row of enum columns per transport, so that
 * the requester, completer, responder and receive dispatch consult a column instead of testing
 * the QP type. A new transport is a new row (and, where it needs one, a new value of a column
 * and the code that value selects).
 *
 * @param type           the QP type
 * @param transport      the opcode range its packets use
 * @param ack            whether requests are acknowledged (and so retried, and completed by
 *                       their acknowledgement)
 * @param psnCheck       how the responder treats a request whose PSN is not the expected one
 * @param headers        the addressing headers between the BTH and the operation's own
 * @param destination    whether a QP has one peer or a destination per work request
 * @param receiveSource  where a message that needs a receive WQE finds one
 * @param errors         what the responder does with a request that fails its checks
 * @param credits        what the AETH's credit field advertises
 * @param messageSize    how large a message may be
 * @param receiveLayout  what a receive buffer holds before a SEND's payload
 * @param sides          which halves of a QP it has: requester, responder or both
 * @param fixedQpn       the QP number every QP of the type has (1 for the GSI, one per device), or 0
 *                       for numbers the HCA allocates
 * @param recovery       what becomes of a message the requester cannot complete
 */
public record TransportPolicy(QpType type, Transport transport, Acknowledgement ack, PsnCheck psnCheck,
                              AddressingHeaders headers, DestinationKind destination, ReceiveSource receiveSource,
                              ErrorHandling errors, Credits credits, MessageSize messageSize,
                              ReceiveLayout receiveLayout, Sides sides, int fixedQpn, Recovery recovery) {

    /** What the requester does when a message fails or is told to wait (seed 001 §9.7.8.5). */
    public enum Recovery {
        /**
         * The message completes in error and the QP moves to ERR; an RNR NAK is waited out and
         * the same packets are sent again (RC, UC, UD, XRC).
         */
        QP_FAILS,
        /**
         * The context is shared (an RD EE context): an error that concerns the sending QP
         * abandons its message (it completes in error, the QP goes to SQE) and an RNR NAK
         * suspends it; either way the context then RESYNCs and carries the other QPs' messages
         * on (o9-107, o9-114.a1). Only an error of the context itself (retries exhausted) stops it.
         */
        ABANDON_OR_SUSPEND_THEN_RESYNC
    }

    /**
     * Which halves a QP of the transport has (seed 001 §9.7.9.1: "an XRC INI QP is like an RC QP
     * without a responder side; an XRC TGT QP is like an RD EEC without a requester side").
     */
    public enum Sides {
        /** A send queue and a receive side (RC, UC, UD). */
        BOTH,
        /** A send queue only: requests to it are dropped, nothing is received (XRC initiator). */
        REQUESTER,
        /** A receive side only: no send queue, no send CQ, responses to it are dropped (XRC target). */
        RESPONDER,
        /**
         * A send queue and a receive queue that EE contexts serve (RD QP): no packet is handed to
         * the QP itself; one whose RDETH names it is dropped, as it names no context in EE mode.
         */
        THROUGH_EE_CONTEXTS;

        /** True if the QP has a send queue. */
        public boolean sends() {
            return this != RESPONDER;
        }

        /** True if the QP takes requests. */
        public boolean responds() {
            return this == BOTH || this == RESPONDER;
        }

        /** True if a response ({@code response}) or a request may be handed to the QP. */
        public boolean takes(boolean response) {
            return response ? this == BOTH || this == REQUESTER : responds();
        }
    }

    /** Whether and how requests are acknowledged (reference §5.3, §5.9). */
    public enum Acknowledgement {
        /**
         * Requests are acknowledged and retransmitted until they are; a send WQE completes on its
         * acknowledgement; the responder answers with ACKs, NAKs and RNR NAKs and keeps READ and
         * atomic resources (RC).
         */
        ACKED,
        /** Nothing is acknowledged: a send WQE completes once its last packet is sent (UC). */
        UNACKED,
        /** As {@link #UNACKED}, for single-packet datagrams (UD). */
        DATAGRAM,
        /**
         * As {@link #DATAGRAM}, with AckReq set on every packet as Linux's MAD layer sends GSI
         * datagrams (a UD responder ignores it; captures then match the kernel's byte for byte).
         */
        GSI_DATAGRAM;

        /** True if requests are acknowledged. */
        public boolean acked() {
            return this == ACKED;
        }

        /** True if every request carries AckReq whether or not anyone acknowledges it. */
        public boolean alwaysAckReq() {
            return this == GSI_DATAGRAM;
        }
    }

    /** The responder's answer to an unexpected request PSN (reference §5.4, §5.9). */
    public enum PsnCheck {
        /** Duplicates are answered, the first out-of-sequence request is NAKed (RC). */
        NAK_OUT_OF_SEQUENCE,
        /**
         * No NAK: a First or Only packet starts a new message at its PSN (abandoning a partial
         * one); anything else out of sequence is dropped (UC).
         */
        RESYNC_ON_FIRST,
        /** The PSN is not checked at all: every packet is a whole message (UD). */
        NONE
    }

    /** The addressing headers a transport's requests carry after the BTH (reference §1.3). */
    public enum AddressingHeaders {
        /** Connected transports: the QP pair is the address. */
        NONE,
        /** DETH: the Q_Key and the source QP, checked against the receiving QP's Q_Key (UD). */
        DETH,
        /**
         * RDETH then DETH (RD): the EE context, then the Q_Key and source QP; the Q_Key is checked
         * by the EE context against the QP the message is for, and a mismatch is NAKed.
         */
        RDETH_DETH,
        /** XRCETH: the target XRC SRQ (XRC). */
        XRCETH;

        /**
         * True if the headers carry a Q_Key that must equal the receiving QP's, a packet with
         * another being dropped on arrival (reference §8.5). RD's is checked per message by its
         * target instead ({@link ReceiveSource#RD_QP_BY_DESTQP}).
         */
        public boolean carriesQkey() {
            return this == DETH;
        }

        /** True if every request names the XRC SRQ it is for, so a work request must name one (o9-114.a5). */
        public boolean namesTargetSrq() {
            return this == XRCETH;
        }
    }

    /** Where a QP's packets go, and so which sources its receive side accepts (reference §8.6). */
    public enum DestinationKind {
        /** One peer set at RTR; packets must come from its address. */
        CONNECTED,
        /** A destination per work request from an address handle; packets may come from anywhere. */
        PER_WORK_REQUEST,
        /**
         * A destination per work request through the EE context it names (RD QP): the QP's
         * messages are sent by that context, one at a time (o9-102, o9-103).
         */
        THROUGH_EE_CONTEXT,
        /**
         * An EE context: one peer context on one remote node set at RTR, packets accepted only
         * from it; each message's destination QP and Q_Key are its work request's.
         */
        EE_PEER;

        /** True if the QP's send queue is served by EE contexts rather than a requester of its own. */
        public boolean throughEeContext() {
            return this == THROUGH_EE_CONTEXT;
        }
    }

    /** Where a message that needs a receive WQE takes it from. */
    public enum ReceiveSource {
        /** The QP's own receive queue, or the SRQ it was created with. */
        QP_RQ_OR_SRQ,
        /** The XRC SRQ that the message's XRCETH names (XRC target). */
        SRQ_BY_XRCETH,
        /** No receive side (XRC initiator). */
        NONE,
        /**
         * The RD QP the BTH names, of the EE context's reliable datagram domain, with its Q_Key
         * (an EE context: 9.7.8.2.2 "inbound request" example).
         */
        RD_QP_BY_DESTQP;

        /** The per-message choice of queue and PD this source makes for {@code qp}'s responder. */
        MessageTarget target(QpContext qp) {
            return switch (this) {
                case SRQ_BY_XRCETH -> new XrcSrqTarget(qp);
                case RD_QP_BY_DESTQP -> new RdQpTarget(qp);
                default -> new MessageTarget.OwnQueue(qp);
            };
        }
    }

    /** What the responder does with a request that fails a check (reference §5.6, §7.1). */
    public enum ErrorHandling {
        /**
         * NAK it (Invalid Request, Remote Access, Remote Operational), complete a receive WQE the
         * message holds with the matching error, and move the QP to ERR (RC's class B/C errors).
         */
        NAK_AND_ERROR,
        /**
         * Drop the message silently; a receive WQE it took is kept for the next one if its queue
         * keeps such WQEs (the QP's own; a shared queue's completes in error), unless the WQE
         * itself is at fault (UC).
         */
        DROP_MESSAGE,
        /**
         * Drop the packet silently, except that a receive WQE already taken completes with the
         * error's status; the QP carries on unless that WQE itself is at fault (UD).
         */
        COMPLETE_AND_CONTINUE,
        /**
         * NAK it as RC does, complete a receive WQE the message holds with the error, and move
         * the QP the message was for to ERR where RC would; the EE context itself carries on
         * (o9-107: a Q_Key or R_Key violation does not close it).
         */
        NAK_AND_CONTINUE
    }

    /** What the AETH's credit field says (reference §3.1). */
    public enum Credits {
        /**
         * The receive WQEs free on the QP's own queue; "invalid" (0x1F) on an SRQ, which many QPs
         * share (RC).
         */
        FROM_RECEIVE_QUEUE,
        /** Always "invalid" (XRC: o9-114.a10). */
        INVALID,
        /** No ACKs, so no credits (UC, UD, and RD, which has no end-to-end flow control). */
        NONE
    }

    /** The largest message a work request may carry. */
    public enum MessageSize {
        /** Up to the device's max_msg_sz, split into packets of the path MTU. */
        MULTI_PACKET,
        /**
         * One packet of at most the port MTU; a larger one is not sent at all and completes
         * successfully (C10-93.1.1, UD).
         */
        ONE_PACKET
    }

    /** What a receive buffer holds before a SEND's payload. */
    public enum ReceiveLayout {
        /** The payload from the first byte. */
        PAYLOAD,
        /**
         * 40 bytes of GRH area, then the payload; {@code byte_len} counts both (UD: on RoCEv2 the
         * IPv4 header in the last 20 bytes of the area, or the IPv6 header).
         */
        GRH_THEN_PAYLOAD
    }

    public static final TransportPolicy RC = new TransportPolicy(QpType.RC, Transport.RC, Acknowledgement.ACKED,
            PsnCheck.NAK_OUT_OF_SEQUENCE, AddressingHeaders.NONE, DestinationKind.CONNECTED, ReceiveSource.QP_RQ_OR_SRQ,
            ErrorHandling.NAK_AND_ERROR, Credits.FROM_RECEIVE_QUEUE, MessageSize.MULTI_PACKET, ReceiveLayout.PAYLOAD,
            Sides.BOTH, 0, Recovery.QP_FAILS);
    public static final TransportPolicy UC = new TransportPolicy(QpType.UC, Transport.UC, Acknowledgement.UNACKED,
            PsnCheck.RESYNC_ON_FIRST, AddressingHeaders.NONE, DestinationKind.CONNECTED, ReceiveSource.QP_RQ_OR_SRQ,
            ErrorHandling.DROP_MESSAGE, Credits.NONE, MessageSize.MULTI_PACKET, ReceiveLayout.PAYLOAD, Sides.BOTH, 0, Recovery.QP_FAILS);
    public static final TransportPolicy UD = new TransportPolicy(QpType.UD, Transport.UD, Acknowledgement.DATAGRAM,
            PsnCheck.NONE, AddressingHeaders.DETH, DestinationKind.PER_WORK_REQUEST, ReceiveSource.QP_RQ_OR_SRQ,
            ErrorHandling.COMPLETE_AND_CONTINUE, Credits.NONE, MessageSize.ONE_PACKET,
            ReceiveLayout.GRH_THEN_PAYLOAD, Sides.BOTH, 0, Recovery.QP_FAILS);
    /** The GSI (QP1): UD in every respect; only its number and Q_Key are fixed (reference §11.6). */
    public static final TransportPolicy GSI = new TransportPolicy(QpType.GSI, Transport.UD, Acknowledgement.GSI_DATAGRAM,
            PsnCheck.NONE, AddressingHeaders.DETH, DestinationKind.PER_WORK_REQUEST, ReceiveSource.QP_RQ_OR_SRQ,
            ErrorHandling.COMPLETE_AND_CONTINUE, Credits.NONE, MessageSize.ONE_PACKET,
            ReceiveLayout.GRH_THEN_PAYLOAD, Sides.BOTH, 1, Recovery.QP_FAILS);
    /**
     * XRC initiator: RC's requester (PSNs, ACKs, retries, READs and atomics), every request naming
     * its target XRC SRQ in an XRCETH; no receive side.
     */
    public static final TransportPolicy XRC_SEND = new TransportPolicy(QpType.XRC_SEND, Transport.XRC,
            Acknowledgement.ACKED, PsnCheck.NAK_OUT_OF_SEQUENCE, AddressingHeaders.XRCETH, DestinationKind.CONNECTED,
            ReceiveSource.NONE, ErrorHandling.NAK_AND_ERROR, Credits.INVALID, MessageSize.MULTI_PACKET,
            ReceiveLayout.PAYLOAD, Sides.REQUESTER, 0, Recovery.QP_FAILS);
    /**
     * XRC target: RC's responder, with each message's receive WQE, protection domain and
     * completion queue those of the XRC SRQ its XRCETH names; ACKs carry "invalid" credits; no
     * send queue.
     */
    public static final TransportPolicy XRC_RECV = new TransportPolicy(QpType.XRC_RECV, Transport.XRC,
            Acknowledgement.ACKED, PsnCheck.NAK_OUT_OF_SEQUENCE, AddressingHeaders.XRCETH, DestinationKind.CONNECTED,
            ReceiveSource.SRQ_BY_XRCETH, ErrorHandling.NAK_AND_ERROR, Credits.INVALID, MessageSize.MULTI_PACKET,
            ReceiveLayout.PAYLOAD, Sides.RESPONDER, 0, Recovery.QP_FAILS);

    /**
     * An RD QP: queues, protection, Q_Key and domain only (seed 001 §9.7.8: "the service still
     * uses QPs for queues, WQE pointers and protection"); its messages are sequenced,
     * acknowledged and retried by the EE context each work request names ({@link #RD_EEC}),
     * and requests reach it through an EE context too.
     */
    public static final TransportPolicy RD = new TransportPolicy(QpType.RD, Transport.RD, Acknowledgement.ACKED,
            PsnCheck.NAK_OUT_OF_SEQUENCE, AddressingHeaders.RDETH_DETH, DestinationKind.THROUGH_EE_CONTEXT,
            ReceiveSource.QP_RQ_OR_SRQ, ErrorHandling.NAK_AND_CONTINUE, Credits.NONE, MessageSize.MULTI_PACKET,
            ReceiveLayout.PAYLOAD, Sides.THROUGH_EE_CONTEXTS, 0, Recovery.ABANDON_OR_SUSPEND_THEN_RESYNC);
    /**
     * An EE context, the "EE mode" of a context (seed 001 §9.7.8, implementation note): RC's
     * requester, completer and responder, with PSNs, timers, retries, duplicates, responder
     * resources and MSN per context; each message's QP, protection and receive WQE are the RD
     * QP's that the work request or the BTH names; no end-to-end credits (9.7.8.3.1).
     */
    public static final TransportPolicy RD_EEC = new TransportPolicy(QpType.RD, Transport.RD, Acknowledgement.ACKED,
            PsnCheck.NAK_OUT_OF_SEQUENCE, AddressingHeaders.RDETH_DETH, DestinationKind.EE_PEER,
            ReceiveSource.RD_QP_BY_DESTQP, ErrorHandling.NAK_AND_CONTINUE, Credits.NONE, MessageSize.MULTI_PACKET,
            ReceiveLayout.PAYLOAD, Sides.BOTH, 0, Recovery.ABANDON_OR_SUSPEND_THEN_RESYNC);

    /**
     * The QP type whose row of the state transition table (reference §6.2) the context follows:
     * an EE context's attributes and states are an RC QP's (IBA 11.2.9, Modify EE Context).
     */
    public QpType stateTable() {
        return destination == DestinationKind.EE_PEER ? QpType.RC : type;
    }

    private static final Map<QpType, TransportPolicy> ROWS = new EnumMap<>(QpType.class);

    static {
        for (TransportPolicy p : new TransportPolicy[] {RC, UC, UD, GSI, XRC_SEND, XRC_RECV, RD}) {
            ROWS.put(p.type, p);
        }
    }

    /** The policy of a QP type, or {@code null} if the engine does not run that transport yet. */
    public static TransportPolicy of(QpType type) {
        return ROWS.get(type);
    }
}
