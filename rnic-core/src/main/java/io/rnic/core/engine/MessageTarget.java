package io.rnic.core.engine;

import io.rnic.core.memory.ProtectionDomain;
import io.rnic.core.packet.RocePacket;

/**
 * The receive-source seam, per message: which receive queue a request's message takes its WQE
 * from, which protection domain its memory accesses are checked against, and (through the
 * queue) which completion queue its receive completion goes to. For most QPs that is the QP's
 * own queue (or SRQ) and PD; for an XRC target QP it is the XRC SRQ the message names
 * (o9-114.a6–a9). One implementation per {@link TransportPolicy.ReceiveSource}.
 */
interface MessageTarget {
    /**
     * Chooses the target of a message whose first or only packet is {@code p}.
     *
     * @return {@code null}, or the error that refuses the message
     */
    ResponderError select(RocePacket p);

    /**
     * Checks that a middle or last packet belongs to the target its message chose.
     *
     * @return {@code null}, or the error that refuses the packet
     */
    ResponderError confirm(RocePacket p);

    /** The receive queue of the message chosen last. */
    ReceiveQueue queue();

    /** The protection domain of the message chosen last. */
    ProtectionDomain pd();

    /**
     * The QP the message chosen last is for: whose access flags allow its operation, whose
     * number its memory-window checks and completions carry. The responder's own QP, except for
     * an EE context, whose messages are for the RD QPs they name.
     */
    QpContext owner();

    /**
     * The responder's QP moves to ERR holding {@code held} (or {@code null}) from {@code from}:
     * the queue flushes what the QP's failure must (its own queue, all; a shared one, the held
     * WQE), or, for an EE context, the held WQE alone completes, since its QP carries on.
     */
    default void responderFailed(ReceiveQueue from, RecvWqe held) {
        from.qpFailed(owner(), held);
    }

    /** The QP's own receive queue (or SRQ) and PD, for every message. */
    final class OwnQueue implements MessageTarget {
        private final QpContext qp;
        private final ReceiveQueue queue;
        private final ProtectionDomain pd;

        OwnQueue(QpContext qp) {
            this.qp = qp;
            this.queue = qp.rq;
            this.pd = qp.pd;
        }

        @Override
        public QpContext owner() {
            return qp;
        }

        @Override
        public ResponderError select(RocePacket p) {
            return null;
        }

        @Override
        public ResponderError confirm(RocePacket p) {
            return null;
        }

        @Override
        public ReceiveQueue queue() {
            return queue;
        }

        @Override
        public ProtectionDomain pd() {
            return pd;
        }
    }
}
