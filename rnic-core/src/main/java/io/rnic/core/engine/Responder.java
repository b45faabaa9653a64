package io.rnic.core.engine;

import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.psn.RequestRegion;
import io.rnic.core.psn.ResponderPsnWindow;
import io.rnic.verbs.Pitfall;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.Counter;
import io.rnic.verbs.WcOpcode;

/**
 * The responder (rxe's {@code rxe_resp.c}): checks each request in the specification's order
 * — PSN, opcode sequence, operation allowed, resources, lengths, R_Key — before any memory is
 * touched, then executes it, completes receive WQEs, and acknowledges. Duplicates are answered
 * without re-executing SENDs, WRITEs and atomics; duplicate READs are re-read from memory.
 *
 * <p>What differs per transport comes from the QP's {@link TransportPolicy} columns (PSN check,
 * acknowledgement, error handling, credits, receive layout); its expected PSN, MSN and
 * READ/atomic resources live in the QP's {@link ReliabilityContext}; receive WQEs come from the
 * QP's {@link ReceiveQueue}, held by the message in progress until it completes.
 *
 * <p>This class is the state machine: one enum of named states and one loop, {@code state =
 * step(state)}, as rxe's ({@link #process}); the PSN check, RNR and error handling. The steps
 * it dispatches to live with their responsibility: the checks in {@link RequestChecks}, the
 * execution per operation kind in {@link RequestExecution}, ACKs, NAKs and the READ response
 * stream in {@link ResponseSender}, duplicates and RESYNC in {@link DuplicateRequests}; the
 * message in progress is an {@link InboundMessage}, the packet being handled an
 * {@link InboundRequest}.
 */
final class Responder {
    /** The responder's states for one request packet; {@link #process} steps through them until DONE. */
    enum State {
        CHK_PSN, CHK_OP_SEQ, CHK_TARGET, CHK_OP_VALID, CHK_RESOURCE, CHK_LENGTH, CHK_RKEY, EXECUTE,
        READ_REPLY, ATOMIC_REPLY, ATOMIC_WRITE_REPLY, FLUSH_REPLY, COMPLETE, ACKNOWLEDGE, DUPLICATE_REQUEST, RNR, ERROR,
        RESYNC, DONE
    }

    private final QpContext qp;
    private final ReliabilityContext rel;
    private final ResponderPsnWindow window;
    private final ResponderResources resources;
    private final MessageTarget target;
    /** The message in progress, across its packets. */
    private final InboundMessage msg;
    /** The request packet being handled, and what its checks resolved. */
    private final InboundRequest req;
    private final RequestChecks checks;
    private final RequestExecution execution;
    private final ResponseSender responses;
    private final DuplicateRequests duplicates;
    /** RNR NAKs this QP has sent: past a few, the application is not posting receives in time (RNIC-W001). */
    private int rnrNaksSent;
    /** What becomes of requests ahead of the expected PSN (the QP's loss recovery mode). */
    private ReceiveWindow receiveWindow = InOrderReceiveWindow.INSTANCE;

    Responder(QpContext qp) {
        this.qp = qp;
        this.rel = qp.rel;
        this.window = qp.rel.receiveWindow;
        this.resources = qp.rel.resources;
        this.target = qp.target;
        this.msg = new InboundMessage(qp);
        this.req = new InboundRequest();
        this.checks = new RequestChecks(qp, msg, req);
        this.responses = new ResponseSender(qp, req);
        this.execution = new RequestExecution(qp, msg, req, responses);
        this.duplicates = new DuplicateRequests(qp, msg, req, responses);
    }

    void start(int rqPsn, int maxDestRdAtomic) {
        receiveWindow.clear();
        receiveWindow = ReceiveWindow.of(qp.attrs.lossRecovery(), qp, this);
        responses.earlierReadInterrupts(receiveWindow.earlierReadInterrupts());
        msg.rwqesTaken = 0;
        window.reset(rqPsn);
        rel.msn = 0;
        rel.nakSent = false;
        resources.reset(maxDestRdAtomic);
        msg.end();
        msg.letGo();
    }

    /** Clears the message in progress; returns the receive WQE it held, if any. */
    RecvWqe reset() {
        RecvWqe held = stop();
        rel.nakSent = false;
        return held;
    }

    /**
     * The queue a receive WQE the QP holds was taken from, or {@code fallback} when it holds
     * none: where a reset or an error must return or flush it.
     */
    ReceiveQueue heldQueue(ReceiveQueue fallback) {
        return msg.rwqeQueue != null ? msg.rwqeQueue : fallback;
    }

    /** Stops: the message in progress is abandoned; returns the receive WQE the QP held, if any. */
    RecvWqe stop() {
        receiveWindow.clear();
        responses.interruptReads(false);
        RecvWqe held = msg.letGo();
        msg.end();
        return held;
    }

    /** The expected PSN, for tests and queries. */
    int expectedPsn() {
        return window.expected();
    }

    int msn() {
        return rel.msn;
    }

    /** Handles a request packet; {@code ip} is the IP header it arrived with (for a datagram's GRH). */
    void onRequest(RocePacket p, io.rnic.core.packet.PseudoHeader ip) {
        process(p, ip, -1);
        if (receiveWindow.held() > 0) {
            receiveWindow.drain(ip); // what was held behind it may be in order now
        }
    }

    /**
     * Hands back a request the receive window held, now in order: as {@link #process}, and
     * acknowledged whatever its AckReq bit says if {@code acknowledge} (the one ACK owed at the
     * end of the batch then covers the whole run).
     */
    void replay(RocePacket p, io.rnic.core.packet.PseudoHeader ip, int placed, boolean acknowledge) {
        req.acknowledgeHeld = acknowledge;
        try {
            process(p, ip, placed);
        } finally {
            req.acknowledgeHeld = false;
        }
    }

    /**
     * Runs one request through the checks and its execution, as rxe's responder loop does: each
     * state's step returns the next state, until DONE. {@code placed} is its payload length when
     * its data was placed on arrival and only its headers were kept, else -1.
     *
     * <p>The steps are dispatched here, in the loop, rather than by a method of their own: that
     * method, called once per state, would be compiled apart and called, not inlined (it grows
     * past the JIT's inlining limit once its steps are inlined into it).
     */
    void process(RocePacket p, io.rnic.core.packet.PseudoHeader ip, int placed) {
        req.arrived(ip, placed);
        State s = State.CHK_PSN;
        do {
            s = switch (s) {
                case CHK_PSN -> checkPsn(p);
                case CHK_OP_SEQ -> checks.opSequence(p);
                case CHK_TARGET -> checks.target(p);
                case CHK_OP_VALID -> checks.opValid(p);
                case CHK_RESOURCE -> checks.resource(p);
                case CHK_LENGTH -> checks.length(p);
                case CHK_RKEY -> checks.rkey(p);
                case EXECUTE -> execution.execute(p);
                case READ_REPLY -> execution.readReply(p);
                case ATOMIC_REPLY -> execution.atomicReply(p);
                case ATOMIC_WRITE_REPLY -> execution.atomicWriteReply(p);
                case FLUSH_REPLY -> execution.flushReply(p);
                case COMPLETE -> execution.complete(p);
                case ACKNOWLEDGE -> acknowledge(p);
                case DUPLICATE_REQUEST -> duplicates.duplicate(p);
                case RNR -> rnr(p);
                case ERROR -> fail(p);
                case RESYNC -> duplicates.resync(p, receiveWindow);
                case DONE -> throw new IllegalStateException("responder state " + s);
            };
        } while (s != State.DONE);
    }

    /**
     * CHK_PSN: the expected PSN goes on to the checks; a duplicate to its own handling; a request
     * ahead of it to the receive window, or one NAK.
     */
    private State checkPsn(RocePacket p) {
        TransportPolicy.PsnCheck check = qp.policy.psnCheck();
        if (check == TransportPolicy.PsnCheck.NONE) {
            return State.CHK_OP_SEQ; // UD: every packet is a message; its PSN means nothing here
        }
        int psn = p.bth().psn();
        RequestRegion r = window.classify(psn);
        boolean resync = p.opcode().operation() == Operation.RESYNC;
        if (r == RequestRegion.EXPECTED) {
            rel.nakSent = false;
            return resync ? State.RESYNC : State.CHK_OP_SEQ;
        }
        if (resync && r == RequestRegion.OUT_OF_SEQUENCE) {
            return State.RESYNC; // its point: the requester's PSNs moved on past ones never answered
        }
        if (check == TransportPolicy.PsnCheck.RESYNC_ON_FIRST) {
            // UC: a First or Only packet starts a new message wherever its PSN is; the rest of
            // a message whose packet was lost is dropped (reference §5.9).
            if (p.opcode().position().startsMessage()) {
                msg.abandon();
                window.reset(psn);
                return State.CHK_OP_SEQ;
            }
            qp.hca.counters().inc(Counter.RCVD_DROPPED);
            return State.DONE;
        }
        if (r == RequestRegion.DUPLICATE) {
            qp.hca.counters().inc(Counter.DUPLICATE_REQUEST);
            return State.DUPLICATE_REQUEST;
        }
        if (receiveWindow.ahead(p, req.ip())) {
            return State.DONE; // held or placed until the hole fills (out-of-order reception)
        }
        // Out of sequence: one NAK, then silence until the expected PSN or a duplicate comes.
        if (!rel.nakSent) {
            responses.nakSequence();
        } else {
            qp.hca.counters().inc(Counter.RCVD_DROPPED);
        }
        return State.DONE;
    }

    /** ACKNOWLEDGE: an ACK owed for a request that asks for one. */
    private State acknowledge(RocePacket p) {
        responses.acknowledge(p);
        return State.DONE;
    }

    /**
     * A hole the receive window declared lost: a sequence NAK at the expected PSN, as an
     * out-of-sequence request would have drawn, but sent when the loss is likely rather than
     * at the first request out of order.
     */
    void nakSequence() {
        responses.nakSequence();
    }

    /**
     * The selective-retransmission protocol: a selective NAK at the expected PSN whose SRETH lists, of the
     * {@link io.rnic.core.packet.SrethFlyweight#BITMAP_PSNS} PSNs from it, those {@code missing}
     * says are missing.
     */
    void nakSelective(java.util.function.IntPredicate missing) {
        responses.nakSelective(missing);
    }

    /** Where the QP's messages go (receive queue, protection domain), for placing on arrival. */
    MessageTarget target() {
        return target;
    }

    /**
     * The receive WQE a SEND whose SRETH names receive WQE number {@code n} (counted from 0 at
     * RTR) uses, for placing its data on arrival: the one this QP holds for the message in
     * progress, or one posted and not yet taken; null if it cannot be known yet.
     */
    RecvWqe rwqeNumbered(long n) {
        return msg.rwqeNumbered(n);
    }

    /** Before the QP errs: the READ responses streaming and the owed ACK go out. */
    void flushBeforeError() {
        responses.flushBeforeError();
    }

    /** Sends the coalesced ACK, if one is owed and the QP still responds. */
    void flushOwedAck() {
        responses.flushOwedAck();
    }

    /** RNR: no receive WQE for a message that takes one. */
    private State rnr(RocePacket p) {
        if (!qp.policy.ack().acked()) {
            // UC, UD: no receive WQE, no RNR NAK: the message is dropped (reference §5.8).
            qp.hca.counters().inc(Counter.RCVD_DROPPED);
            msg.abandon();
            return State.DONE;
        }
        qp.hca.counters().inc(Counter.SEND_RNR_ERR);
        if (++rnrNaksSent > Pitfall.RNR_NAKS_BEFORE_WARNING) {
            // The first time past the threshold looks the QP up and may log; after that, only a count.
            if (rnrNaksSent > Pitfall.RNR_NAKS_BEFORE_WARNING + 1) {
                qp.hca.pitfalls().again(Pitfall.RNR_NAKS_REPEATED);
            } else if (qp.hca.pitfalls().occurred(Pitfall.RNR_NAKS_REPEATED, target.owner().qpn)) {
                qp.hca.pitfalls().log(Pitfall.RNR_NAKS_REPEATED, String.format("QP 0x%x has sent %d RNR NAKs: SENDs"
                        + " keep arriving with no receive posted", target.owner().qpn, rnrNaksSent));
            }
        }
        // Later packets of this message are dropped silently until the retry arrives.
        rel.nakSent = true;
        responses.sendAck(AethSyndrome.rnrNak(target.owner().attrs.minRnrTimer()), p.bth().psn());
        return State.DONE;
    }

    /** ERROR: the request is NAKed, dropped or completed in error, as the transport handles errors. */
    private State fail(RocePacket p) {
        ResponderError e = req.error;
        switch (qp.policy.errors()) {
            case DROP_MESSAGE -> {
                // UC has no NAKs: an erroneous message is dropped and the QP carries on.
                qp.hca.counters().inc(Counter.RCVD_DROPPED);
                // A WQE that is itself bad, or a shared queue's, is not kept for the next message.
                boolean completes = msg.rwqe != null && (e.wqeAtFault() || !msg.rwqeQueue.keepsWqeOfDroppedMessage());
                finish(e.wqeAtFault(), () -> {
                    if (completes) {
                        msg.completeRwqe(e.receiveStatus(), WcOpcode.RECV, 0, 0, 0, 0, p, false);
                    }
                    msg.abandon();
                });
            }
            case COMPLETE_AND_CONTINUE -> {
                // UD: the datagram is dropped; a receive WQE it took completes with the error.
                qp.hca.counters().inc(Counter.RCVD_DROPPED);
                finish(e.wqeAtFault(), () -> {
                    if (msg.rwqe != null) {
                        msg.completeRwqe(e.receiveStatus(), WcOpcode.RECV, 0, 0, 0, 0, p, false);
                    }
                    msg.end();
                });
            }
            case NAK_AND_ERROR -> {
                responses.sendAck(AethSyndrome.nak(e.nakCode()), p.bth().psn());
                // RC's classes B and C stop the QP.
                finish(e.fatal(), () -> {
                    if (msg.rwqe != null) {
                        msg.completeRwqe(e.receiveStatus(), WcOpcode.RECV, 0, 0, 0, 0, p, false);
                    }
                    msg.end();
                });
            }
            case NAK_AND_CONTINUE -> {
                // An EE context: the error is the message's QP's, not the context's (o9-107). The
                // rest of the message is dropped as out of sequence until the requester's RESYNC.
                responses.sendAck(AethSyndrome.nak(e.nakCode()), p.bth().psn());
                rel.nakSent = true;
                QpContext owner = target.owner();
                boolean completes = msg.rwqe != null && owner.state != io.rnic.verbs.QpState.ERR;
                Runnable completion = () -> {
                    if (completes) {
                        msg.completeRwqe(e.receiveStatus(), WcOpcode.RECV, 0, 0, 0, 0, p, false);
                    }
                    msg.letGo();
                    msg.end();
                };
                if (e.wqeAtFault() && owner != qp) {
                    owner.failWith(AsyncEvent.Type.QP_ACCESS_ERR, completion); // the QP's receive WQE is bad
                } else {
                    completion.run();
                }
            }
            default -> throw new IllegalStateException("error handling " + qp.policy.errors());
        }
        return State.DONE;
    }

    /**
     * Writes an error's receive completion and, if the error stops the QP (a receive WQE that is
     * itself bad stops it on every transport: rxe's class A), moves the QP to ERR first, so the
     * state is ERR by the time the completion can be polled.
     */
    private void finish(boolean stopsQp, Runnable completion) {
        if (stopsQp) {
            qp.failWith(AsyncEvent.Type.QP_ACCESS_ERR, completion);
        } else {
            completion.run();
        }
    }

}
