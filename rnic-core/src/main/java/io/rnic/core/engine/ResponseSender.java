package io.rnic.core.engine;

import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.memory.MemoryWindow;
import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.Position;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.psn.Psn;
import io.rnic.core.psn.ResponderPsnWindow;
import io.rnic.verbs.Counter;

/**
 * What a responder sends back (rxe's {@code send_ack}, {@code send_atomic_ack} and the start of
 * {@code read_reply}): ACKs, coalesced to one per QP and receive batch; NAKs with their
 * syndromes, selective ones included; atomic ACKs; and the READ response stream. Responses leave
 * in PSN order: anything but a positive ACK first sends the READ responses streaming and the ACK
 * owed.
 */
final class ResponseSender {
    private final QpContext qp;
    private final ReliabilityContext rel;
    private final ResponderPsnWindow window;
    private final InboundRequest req;
    private final ReadResponseStream readStream;
    /** A positive ACK owed until the end of the receive batch ({@link #sendAck}). */
    private boolean ackOwed;
    private int owedAckPsn;
    private final Runnable flushOwedAck = this::flushOwedAck;
    /** The receive window's rule for a duplicate READ earlier than the stream ({@link ReceiveWindow#earlierReadInterrupts}). */
    private boolean earlierReadInterrupts = true;

    ResponseSender(QpContext qp, InboundRequest req) {
        this.qp = qp;
        this.rel = qp.rel;
        this.window = qp.rel.receiveWindow;
        this.req = req;
        this.readStream = new ReadResponseStream(qp, qp.rel, this::ackSyndrome, this::betweenReads);
    }

    /** The QP's receive window changed (at RTR): its rule for duplicate READs is {@code interrupts}. */
    void earlierReadInterrupts(boolean interrupts) {
        earlierReadInterrupts = interrupts;
    }

    /** Stops the READ responses streaming; with {@code answered}, as if a duplicate READ had interrupted them. */
    void interruptReads(boolean answered) {
        readStream.interrupt(answered);
    }

    /** ACKNOWLEDGE: a request that asks for an ACK (or was held ahead of a hole) gets one, owed. */
    void acknowledge(RocePacket p) {
        if (qp.policy.ack().acked() && (p.bth().ackReq() || req.acknowledgeHeld)) {
            sendAck(ackSyndrome(), p.bth().psn());
        }
    }

    /**
     * Sends an ACKNOWLEDGE packet with the given syndrome at {@code psn}. A positive ACK is
     * coalesced: it is owed until the HCA ends the batch of packets it is receiving, and one ACK
     * then covers every PSN up to the newest owed one (an ACK acknowledges all earlier PSNs,
     * reference §5.1; rxe does the same per burst). A NAK, a READ response or an atomic
     * response first sends the owed ACK, so the peer sees responses in PSN order.
     */
    void sendAck(int syndrome, int psn) {
        if (AethSyndrome.type(syndrome) == AethSyndrome.TYPE_ACK) {
            owedAckPsn = psn;
            if (!ackOwed) {
                ackOwed = true;
                qp.hca.atBatchEnd(flushOwedAck);
            }
            return;
        }
        // A NAK follows every response before it, READ responses included.
        readStream.finish();
        flushOwedAck();
        transmitAck(syndrome, psn);
    }

    /**
     * A PSN Sequence Error NAK at the expected PSN: for a request out of sequence, or a hole the
     * receive window declared lost (sent when the loss is likely rather than at the first request
     * out of order).
     */
    void nakSequence() {
        rel.nakSent = true;
        qp.hca.counters().inc(Counter.OUT_OF_SEQ_REQUEST);
        sendAck(AethSyndrome.nak(AethSyndrome.NAK_PSN_SEQUENCE_ERROR), window.expected());
    }

    /**
     * Seed 002's extended protocol: a selective NAK at the expected PSN whose SRETH lists, of the
     * {@link io.rnic.core.packet.SrethFlyweight#BITMAP_PSNS} PSNs from it, those {@code missing}
     * says are missing.
     */
    void nakSelective(java.util.function.IntPredicate missing) {
        rel.nakSent = true;
        qp.hca.counters().inc(Counter.OUT_OF_SEQ_REQUEST);
        readStream.finish();
        flushOwedAck();
        Opcode op = OpcodeTable.find(qp.transport, Operation.ACKNOWLEDGE, Position.ONLY, false, false);
        Destination d = qp.addressing.replies();
        RocePacket out = qp.framer.start(op, 0, d);
        out.bth().psn(window.expected());
        out.aeth().syndrome(AethSyndrome.nak(AethSyndrome.NAK_PSN_SEQUENCE_ERROR)).msn(rel.msn);
        var bitmap = out.sreth();
        for (int i = 0; i < io.rnic.core.packet.SrethFlyweight.BITMAP_PSNS; i++) {
            if (missing.test(i)) {
                bitmap.markMissing(i);
            }
        }
        qp.framer.transmit(out, d);
        qp.hca.counters().inc(Counter.NAKS_SENT);
    }

    /** The atomic ACK at {@code psn} carrying the target's {@code original} value. */
    void sendAtomicAck(int psn, long original) {
        readStream.finish();
        flushOwedAck();
        Opcode op = OpcodeTable.find(qp.transport, Operation.ATOMIC_ACKNOWLEDGE, Position.ONLY, false, false);
        Destination d = qp.addressing.replies();
        RocePacket out = qp.framer.start(op, 0, d);
        out.bth().psn(psn);
        out.aeth().syndrome(ackSyndrome()).msn(rel.msn);
        out.atomicAckEth().originalData(original);
        qp.framer.transmit(out, d);
    }

    /**
     * Answers READ resource {@code r} from {@code fromPsn} to its end, paced by the response
     * stream; a duplicate READ with a PSN earlier than the response being sent interrupts it
     * (seed 000 §3.3.2.2 rule 6), one the stream already covers is dropped, any other READ waits
     * for it to finish.
     */
    void sendReadResponses(ResponderResource r, int fromPsn, long va, long length, MemoryRegion mr,
                           MemoryWindow mw, int mwGeneration) {
        flushOwedAck();
        if (readStream.active()) {
            if (Psn.compare(fromPsn, readStream.positionPsn()) < 0 && earlierReadInterrupts) {
                readStream.interrupt(true);
            } else if (readStream.covers(r, fromPsn, va, length)) {
                qp.hca.counters().inc(Counter.DUPLICATE_REQUEST_IN_PROGRESS);
                return;
            }
        }
        readStream.start(r, fromPsn, va, length, mr, mw, mwGeneration);
    }

    /**
     * Between two READs of the response stream: the owed ACK goes out here if the PSN it
     * acknowledges comes before the next READ's ({@code nextRequestPsn}, -1 if none).
     */
    private void betweenReads(int nextRequestPsn) {
        if (ackOwed && (nextRequestPsn < 0 || Psn.isBefore(owedAckPsn, nextRequestPsn))) {
            flushOwedAck();
        }
    }

    /** Before the QP errs: the READ responses streaming and the owed ACK go out. */
    void flushBeforeError() {
        readStream.finish();
        flushOwedAck();
    }

    /** Sends the coalesced ACK, if one is owed and the QP still responds. */
    void flushOwedAck() {
        if (!ackOwed || readStream.active()) {
            return; // READ responses are streaming: the ACK follows them (betweenReads)
        }
        ackOwed = false;
        io.rnic.verbs.QpState s = qp.state;
        if (qp.destroyed || s == io.rnic.verbs.QpState.ERR || s == io.rnic.verbs.QpState.RESET) {
            return;
        }
        transmitAck(ackSyndrome(), owedAckPsn);
    }

    private void transmitAck(int syndrome, int psn) {
        Opcode op = OpcodeTable.find(qp.transport, Operation.ACKNOWLEDGE, Position.ONLY, false, false);
        Destination d = qp.addressing.replies();
        RocePacket out = qp.framer.start(op, 0, d);
        out.bth().psn(psn);
        out.aeth().syndrome(syndrome).msn(rel.msn);
        qp.framer.transmit(out, d);
        qp.hca.counters().inc(AethSyndrome.type(syndrome) == AethSyndrome.TYPE_ACK ? Counter.ACKS_SENT : Counter.NAKS_SENT);
    }

    /**
     * The ACK syndrome with this side's end-to-end credits (reference §3.1): what the receive
     * queue advertises (its free WQEs; "invalid" for an SRQ, which many QPs share), or "invalid"
     * when the QP does not do credit flow control (rxe's behaviour, kept for interoperability)
     * or its transport never does.
     */
    int ackSyndrome() {
        if (!qp.endToEndCredits || qp.policy.credits() != TransportPolicy.Credits.FROM_RECEIVE_QUEUE) {
            return AethSyndrome.ack(AethSyndrome.CREDITS_INVALID);
        }
        return AethSyndrome.ack(qp.rq.creditCode());
    }
}
