package io.rnic.core.engine;

import io.rnic.core.memory.AccessResult;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.Position;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.psn.Psn;
import io.rnic.core.psn.RequesterPsnWindow;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.Counter;
import io.rnic.verbs.QpState;
import io.rnic.verbs.WcStatus;

/**
 * The requester (rxe's {@code rxe_req.c}): turns send WQEs into request packets in order,
 * assigns PSNs, and respects the limits on PSNs in flight, outstanding READs and atomics, and
 * fences. Retransmission rewinds it to a PSN; it then resends the same packets with the same
 * PSNs (a partially answered READ is re-requested for its remainder). Its PSN window and
 * retry state live in the QP's {@link ReliabilityContext}; where its packets go is the QP's
 * {@link Addressing}.
 *
 * <p>Its admission checks are {@link SendGate}s, asked in order: fence, max_rd_atomic, credits,
 * PSN window. How a run's packets leave is its {@link TransmitBatch}'s.
 */
final class Requester implements SendDriver {
    /** The requester's states; {@link #run()} steps through them until it must wait. */
    enum State {
        /** Pick the WQE at the cursor. */
        NEXT_WQE,
        /** Check the WQE's local buffers once before any packet goes out. */
        CHECK_LOCAL,
        /** Execute a local operation (BIND_MW, LOCAL_INV) once everything before it has completed. */
        LOCAL_OPERATION,
        /**
         * A datagram larger than the port MTU is not sent at all and completes successfully
         * (C10-93.1.1); its PSN is used up as if it had been.
         */
        SKIP_OVERSIZED,
        /** A fenced WQE waits for earlier READs and atomics to complete. */
        CHECK_FENCE,
        /** A READ or atomic waits for a free max_rd_atomic slot. */
        CHECK_RD_ATOMIC,
        /** A message that takes a receive WQE waits for an end-to-end credit (or probes). */
        CHECK_CREDITS,
        /** The packet's PSN must fit in the window of PSNs in flight. */
        CHECK_WINDOW,
        /** Build and send the WQE's next packet. */
        SEND_PACKET,
        /** Nothing can be sent now. */
        WAIT,
        /** A local error completes the WQE and moves the QP to ERR. */
        LOCAL_ERROR
    }

    /** AckReq is set on at least every this many packets of a long message, as rxe does. */
    static final int MAX_PACKETS_PER_ACK = 64;

    private final QpContext qp;
    private final ReliabilityContext rel;
    private final RequesterPsnWindow window;
    /** How the run's packets leave: held back for their AckReq bit, early trains, one timer restart. */
    private final TransmitBatch batch;
    // The admission checks a packet passes, in this order (SendGate).
    private final ReadAtomicGate readAtomic;
    private final FenceGate fence;
    private final CreditGate credits;
    private final PsnWindowGate psnWindow;
    /** Index in the send queue of the WQE being sent. */
    long cursor;
    private boolean drainNotify;
    /** Messages started that take a receive WQE: the next one's receive WQE number (SRETH). */
    private int rwqeMessagesStarted;
    /** Set ACK request on the next packet built: a selective retransmission wants its answer at once. */
    private boolean forceAckReq;
    private boolean running;
    private WcStatus localError;

    Requester(QpContext qp) {
        this.qp = qp;
        this.rel = qp.rel;
        this.window = qp.rel.sendWindow;
        this.batch = new TransmitBatch(qp);
        this.readAtomic = new ReadAtomicGate(qp);
        this.fence = new FenceGate(readAtomic);
        this.credits = new CreditGate(qp);
        this.psnWindow = new PsnWindowGate(qp);
    }

    void start(int sqPsn) {
        window.limit(qp.hca.limits().sendWindow());
        window.reset(sqPsn);
        cursor = qp.sq.completed();
        readAtomic.reset();
        rel.packetsSinceAckReq = 0;
        rel.rnrWait = false;
        rwqeMessagesStarted = 0;
        credits.start();
    }

    void reset() {
        cursor = 0;
        readAtomic.reset();
        credits.reset();
        drainNotify = false; // the RNR wait ends with the timers (ReliabilityContext.stopTimers)
    }

    @Override
    public void drainRequested(boolean notify) {
        drainNotify = notify;
        checkDrained();
    }

    /** Raises SQ_DRAINED once everything started before SQD has completed. */
    void checkDrained() {
        if (qp.state == QpState.SQD && drainNotify && window.inFlight() == 0 && qp.sq.completed() == cursor) {
            drainNotify = false;
            qp.hca.raise(new AsyncEvent(AsyncEvent.Type.SQ_DRAINED, qp.qpn, "send queue drained"));
        }
    }

    /** Nothing of the QP's own send queue is on another context: the completer stops the timers. */
    @Override
    public void stop() {
    }

    /** Sends whatever can be sent now. Re-entrant calls (from completions it triggers) are folded. */
    @Override
    public void run() {
        if (running) {
            return;
        }
        if (psnWindow.tooNarrowToStart(cursor)) {
            return; // an ACK will come for the run in flight, and run this again
        }
        running = true;
        batch.startRun(window.inFlight());
        try {
            State s = State.NEXT_WQE;
            SendWqe w = null;
            while (s != State.WAIT) {
                switch (s) {
                    case NEXT_WQE -> {
                        w = nextWqe();
                        s = w == null ? State.WAIT : w.kind.isLocal() ? State.LOCAL_OPERATION
                                : w.localChecked ? State.CHECK_FENCE : State.CHECK_LOCAL;
                    }
                    case CHECK_LOCAL -> s = checkLocal(w);
                    case LOCAL_OPERATION -> s = localOperation(w);
                    case SKIP_OVERSIZED -> s = skipOversized(w);
                    // A state's case runs its gate and, while they admit the packet, the ones after
                    // it and the send: a WQE that may go costs one dispatch, not five.
                    case CHECK_FENCE -> s = fence.admits(w) ? fromRdAtomic(w) : State.WAIT;
                    case CHECK_RD_ATOMIC -> s = fromRdAtomic(w);
                    case CHECK_CREDITS -> s = fromCredits(w);
                    case CHECK_WINDOW -> s = fromWindow(w);
                    case SEND_PACKET -> s = sendPacket(w);
                    case LOCAL_ERROR -> s = localErrorComplete(w);
                    default -> throw new IllegalStateException("requester state " + s);
                }
            }
        } finally {
            running = false;
            batch.endRun();
        }
    }

    /** CHECK_RD_ATOMIC, then on: a new READ or atomic waits while max_rd_atomic are outstanding. */
    private State fromRdAtomic(SendWqe w) {
        return readAtomic.admits(w) ? fromCredits(w) : State.WAIT;
    }

    /** CHECK_CREDITS, then on: a message that takes a receive WQE waits for a credit (or probes). */
    private State fromCredits(SendWqe w) {
        return credits.admits(w) ? fromWindow(w) : State.WAIT;
    }

    /** CHECK_WINDOW, then the packet. */
    private State fromWindow(SendWqe w) {
        return psnWindow.admits(w) ? sendPacket(w) : State.WAIT;
    }

    private SendWqe nextWqe() {
        QpState st = qp.state;
        if ((st != QpState.RTS && st != QpState.SQD) || rel.rnrWait) {
            return null;
        }
        if (cursor < qp.sq.completed()) {
            cursor = qp.sq.completed();
        }
        if (cursor >= qp.sq.posted()) {
            return null;
        }
        SendWqe w = qp.sq.at(cursor);
        if (st == QpState.SQD && !w.psnAssigned) {
            return null; // SQD finishes what was started and starts nothing new
        }
        return w;
    }

    private State checkLocal(SendWqe w) {
        if (!w.isInline()) {
            int access = w.kind.writesLocal() ? AccessFlags.LOCAL_WRITE : 0;
            // The PD of the QP that posted it: an EE context sends RD QPs' messages (9.7.8.2.1, step 4).
            AccessResult r = w.sgl.resolve(qp.hca.keys(), w.owner.pd, access);
            if (r != AccessResult.OK) {
                localError = AccessStatuses.local(r);
                return State.LOCAL_ERROR;
            }
        }
        w.localChecked = true;
        if (qp.policy.messageSize() == TransportPolicy.MessageSize.ONE_PACKET && w.length() > qp.mtu) {
            return State.SKIP_OVERSIZED;
        }
        w.packets = packetsOf(w);
        return State.CHECK_FENCE;
    }

    private State skipOversized(SendWqe w) {
        w.packets = 1;
        w.firstPsn = window.next();
        w.lastPsn = w.firstPsn;
        w.psnAssigned = true;
        window.reserve(1);
        window.acknowledge(w.firstPsn);
        w.state(SendWqe.State.SENT);
        cursor++;
        qp.hca.counters().inc(Counter.OVERSIZED_DATAGRAMS);
        qp.completions.completeSend(w, WcStatus.SUCCESS);
        return State.NEXT_WQE;
    }

    private int packetsOf(SendWqe w) {
        if (w.kind.isReadOrAtomic() && !w.kind.isRead()) {
            return 1; // atomics, ATOMIC WRITE and FLUSH: one request, one response
        }
        long len = w.length();
        return (int) Math.max(1, (len + qp.mtu - 1) / qp.mtu);
    }

    /** True if the message takes a receive WQE at the responder: SENDs and WRITE with immediate. */
    static boolean takesReceiveWqe(SendWqe w) {
        return w.kind.operation() == Operation.SEND || (w.kind.operation() == Operation.RDMA_WRITE && w.kind.immediate());
    }

    /**
     * Takes the credits of an ACK-type AETH (also from duplicate responses, which may be sent
     * just to deliver credits). Returns true if the limit moved.
     */
    boolean credits(int syndrome, int msn) {
        return credits.credits(syndrome, msn);
    }

    /**
     * A message leaves the requester's books: completed, or forgotten by the EE context that
     * carried it. It no longer counts against the READ/atomic limit or the credits.
     */
    void retired(SendWqe w) {
        if (w.kind.isReadOrAtomic()) {
            readAtomic.retired();
        }
        if (takesReceiveWqe(w)) {
            credits.retired();
        }
    }

    private State sendPacket(SendWqe w) {
        boolean fresh = !w.psnAssigned;
        if (fresh) {
            w.firstPsn = window.next();
            w.lastPsn = Psn.add(w.firstPsn, w.packets - 1);
            w.psnAssigned = true;
            w.state(SendWqe.State.SENDING);
            w.ssn = credits.started(w);
            if (takesReceiveWqe(w)) {
                w.rwqeNumber = rwqeMessagesStarted++;
            }
            if (w.kind.isReadOrAtomic()) {
                window.reserve(w.packets);
                w.reservedPackets = w.packets;
                readAtomic.started();
            }
        }
        boolean retransmission;
        if (w.kind.isReadOrAtomic()) {
            retransmission = !fresh;
            if (!sendReadOrAtomic(w)) {
                localError = WcStatus.LOC_PROT_ERR;
                return State.LOCAL_ERROR;
            }
            w.nextPacket = w.packets;
        } else {
            if (w.nextPacket >= w.reservedPackets) {
                window.reserve(1);
                w.reservedPackets++;
                retransmission = false;
            } else {
                retransmission = true;
            }
            if (!sendData(w, w.nextPacket)) {
                localError = WcStatus.LOC_PROT_ERR;
                return State.LOCAL_ERROR;
            }
            w.nextPacket++;
        }
        if (retransmission) {
            qp.hca.counters().inc(Counter.RETRANSMITTED_PKTS);
        }
        boolean acked = qp.policy.ack().acked();
        if (acked) {
            batch.timedPacketSent();
        } else {
            // Nothing will acknowledge it: the PSN leaves the window as it leaves the HCA.
            window.acknowledge(Psn.add(w.firstPsn, w.nextPacket - 1));
        }
        if (w.nextPacket >= w.packets) {
            w.state(SendWqe.State.SENT);
            cursor++;
            if (!acked) {
                // UC, UD: complete once the last packet is on the wire.
                qp.completions.completeSend(w, WcStatus.SUCCESS);
            }
            return State.NEXT_WQE;
        }
        return State.CHECK_WINDOW;
    }

    /** One packet of a SEND or RDMA WRITE; false if its data could not be read (see {@link SgList#gather}). */
    private boolean sendData(SendWqe w, int index) {
        long total = w.length();
        long offset = (long) index * qp.mtu;
        int len = (int) Math.min(qp.mtu, total - offset);
        Position pos = position(index, w.packets);
        boolean last = pos.endsMessage();
        Opcode op = OpcodeTable.find(qp.transport, w.kind.operation(), pos, w.kind.immediate() && last,
                w.kind.invalidate() && last);
        Destination d = qp.addressing.resolve(w);
        RocePacket p = qp.framer.start(op, len, d);
        int psn = Psn.add(w.firstPsn, index);
        rel.packetsSinceAckReq++;
        boolean acked = qp.policy.ack().acked();
        // AckReq where the application waits for the message (a signaled WQE), every 64th packet
        // at least, on a resent packet, and on the last packet a run sends (sendDeferred): a run
        // stops only where the requester then needs an ACK (its window or queue is empty of
        // what it may send), even in the middle of a message. Any other packet is held until the
        // next one says whether the run goes on.
        boolean ackReq = qp.policy.ack().alwaysAckReq()
                || acked && (last && (w.signaled() || !batch.inRun()) || forceAckReq || rel.packetsSinceAckReq >= MAX_PACKETS_PER_ACK);
        boolean deferrable = acked && batch.inRun();
        if (ackReq) {
            rel.packetsSinceAckReq = 0;
        }
        if (op.has(io.rnic.core.packet.Header.SRETH)) {
            // Seed 002's extended protocol: enough to place this packet whatever arrived before it.
            var x = p.sreth().psnOffset(index).ssn(w.ssn);
            if (w.kind.operation() == Operation.SEND) {
                x.key(w.rwqeNumber);
            } else {
                x.key(w.rkey).length((int) total).address(w.remoteAddr);
            }
        }
        p.bth().psn(psn).ackReq(ackReq).solicited(last && (w.flags & SendWqe.SOLICITED) != 0
                && (w.kind.operation() == Operation.SEND || w.kind.immediate()));
        if (pos.startsMessage() && op.has(io.rnic.core.packet.Header.RETH)) {
            p.reth().virtualAddress(w.remoteAddr).rkey(w.rkey).dmaLength((int) total);
        }
        if (op.hasImmediate()) {
            p.immDt().immediate(w.imm);
        }
        if (op.hasInvalidate()) {
            p.ieth().rkey(w.invalidateRkey);
        }
        if (len > 0) {
            if (w.isInline()) {
                p.buffer().setBytes(p.payloadOffset(), w.inline, (int) offset, len);
            } else if (!w.sgl.gather(offset, p.buffer(), p.payloadOffset(), len)) {
                p.buffer().release(); // a region was deregistered mid-message: the packet never leaves
                return false;
            }
        }
        if (ackReq || !deferrable) {
            batch.transmit(p, d);
            if (last && w.signaled()) {
                batch.awaited(qp.sq.posted() - cursor - 1, window.limit()); // the application waits for it
            }
        } else {
            batch.defer(p, d);
        }
        return true;
    }

    /**
     * The READ request (whole, or for the remainder after a partial retry), the atomic, the
     * ATOMIC WRITE or the FLUSH; false if an ATOMIC WRITE's data could not be read.
     */
    private boolean sendReadOrAtomic(SendWqe w) {
        Opcode op = OpcodeTable.find(qp.transport, w.kind.operation(), Position.ONLY, false, false);
        Destination d = qp.addressing.resolve(w);
        RocePacket p = qp.framer.start(op, op.hasPayload() ? 8 : 0, d);
        rel.packetsSinceAckReq = 0;
        if (w.kind.isRead()) {
            int psn = w.readRetryPsn >= 0 ? w.readRetryPsn : w.firstPsn;
            long done = (long) Psn.forward(w.firstPsn, psn) * qp.mtu;
            p.bth().psn(psn).ackReq(true);
            p.reth().virtualAddress(w.remoteAddr + done).rkey(w.rkey).dmaLength((int) (w.length() - done));
            localBufferSreth(p, w, Psn.forward(w.firstPsn, psn));
        } else if (w.kind.operation() == Operation.FLUSH) {
            // A retry carries the same RETH as the first (rxe's retry loses the address: not copied).
            p.bth().psn(w.firstPsn).ackReq(true);
            SendWqe.Operands o = w.operands();
            p.feth().set(o.flushSelectivity, o.flushPlacement);
            p.reth().virtualAddress(w.remoteAddr).rkey(w.rkey).dmaLength((int) o.flushLength);
        } else if (w.kind.operation() == Operation.ATOMIC_WRITE) {
            p.bth().psn(w.firstPsn).ackReq(true);
            p.reth().virtualAddress(w.remoteAddr).rkey(w.rkey).dmaLength(8);
            if (w.isInline()) {
                p.buffer().setBytes(p.payloadOffset(), w.inline, 0, 8);
            } else if (!w.sgl.gather(0, p.buffer(), p.payloadOffset(), 8)) {
                p.buffer().release(); // its source was deregistered: the packet never leaves
                return false;
            }
        } else {
            p.bth().psn(w.firstPsn).ackReq(true);
            boolean cas = w.kind.operation() == Operation.COMPARE_SWAP;
            SendWqe.Operands o = w.operands();
            // Verbs naming: compare_add is CAS's compare value and FAA's addend (reference §2.4).
            p.atomicEth().virtualAddress(w.remoteAddr).rkey(w.rkey)
                    .swapAdd(cas ? o.swap : o.compareAdd).compare(cas ? o.compareAdd : 0);
        }
        batch.transmit(p, d);
        return true;
    }

    /**
     * Seed 002's selective re-read: a READ request for {@code count} response packets of READ
     * {@code w} from packet {@code index}, at the PSN of that packet, for the data those packets
     * carry. The responder answers it as a duplicate READ of a subset.
     */
    void reread(SendWqe w, int index, int count) {
        Opcode op = OpcodeTable.find(qp.transport, Operation.RDMA_READ_REQUEST, Position.ONLY, false, false);
        Destination d = qp.addressing.resolve(w);
        RocePacket p = qp.framer.start(op, 0, d);
        long offset = (long) index * qp.mtu;
        long length = Math.min((long) count * qp.mtu, w.length() - offset);
        p.bth().psn(Psn.add(w.firstPsn, index)).ackReq(true);
        p.reth().virtualAddress(w.remoteAddr + offset).rkey(w.rkey).dmaLength((int) length);
        localBufferSreth(p, w, index);
        batch.transmit(p, d);
        qp.hca.counters().inc(Counter.RETRANSMITTED_PKTS);
        qp.completer.resentPacket();
    }

    /**
     * Sends the request of an atomic, ATOMIC WRITE or FLUSH again, alone, because its answer is
     * missing while later ones arrived (seed 002's selective recovery applied to one-packet
     * answers): the responder answers the duplicate from its saved result.
     */
    void reissue(SendWqe w) {
        if (sendReadOrAtomic(w)) {
            qp.hca.counters().inc(Counter.RETRANSMITTED_PKTS);
            qp.completer.resentPacket();
        }
    }

    /**
     * A READ request's SRETH (seed 002's extended protocol): where its responses land here, which
     * the responder echoes in each response with the response's offset.
     */
    private static void localBufferSreth(RocePacket p, SendWqe w, int index) {
        if (p.opcode().has(io.rnic.core.packet.Header.SRETH)) {
            p.sreth().psnOffset(index).ssn(w.ssn).key(w.sgl.count > 0 ? w.sgl.lkey(0) : 0)
                    .length((int) w.length()).address(w.sgl.count > 0 ? w.sgl.addr(0) : 0);
        }
    }

    /**
     * Resends the one packet with PSN {@code psn} that a selective NAK listed (seed 002's extended
     * protocol): a SEND or WRITE packet already sent, or the request of a READ or atomic whose
     * first PSN it is. Returns false if no sent packet has that PSN.
     */
    boolean resendPacket(int psn) {
        for (long i = qp.sq.completed(); i < qp.sq.posted(); i++) {
            SendWqe w = qp.sq.at(i);
            if (!w.psnAssigned) {
                return false;
            }
            int index = Psn.forward(w.firstPsn, psn);
            if (index >= w.packets) {
                continue;
            }
            boolean ok;
            if (w.kind.isReadOrAtomic()) {
                if (index != 0 || w.nextPacket < w.packets) {
                    return false; // a READ's response PSNs are never missing at the responder
                }
                int retry = w.readRetryPsn;
                w.readRetryPsn = -1;
                ok = sendReadOrAtomic(w);
                w.readRetryPsn = retry;
            } else {
                if (index >= w.nextPacket) {
                    return false; // not sent yet
                }
                forceAckReq = true;
                try {
                    ok = sendData(w, index);
                } finally {
                    forceAckReq = false;
                }
            }
            if (ok) {
                qp.hca.counters().inc(Counter.RETRANSMITTED_PKTS);
                qp.hca.counters().inc(Counter.SELECTIVE_RETRANSMISSIONS);
                qp.completer.resentPacket();
            }
            return ok;
        }
        return false;
    }

    private static Position position(int index, int count) {
        if (count == 1) {
            return Position.ONLY;
        }
        if (index == 0) {
            return Position.FIRST;
        }
        return index == count - 1 ? Position.LAST : Position.MIDDLE;
    }

    /**
     * BIND_MW, LOCAL_INV or REG_MR: executed once every earlier WQE has completed (rxe fences
     * LOCAL_INV; the others in order with the requests around them), sending nothing; a failure
     * completes with MW_BIND_ERR (a bind) or LOC_QP_OP_ERR and moves the QP to ERR (reference §7.1).
     */
    private State localOperation(SendWqe w) {
        if (qp.sq.completed() != cursor) {
            return State.WAIT; // the completer runs the requester again as earlier WQEs complete
        }
        if (!LocalOperations.execute(qp, w)) {
            return State.WAIT; // failed: the QP is in ERR
        }
        cursor++;
        qp.completions.completeSend(w, WcStatus.SUCCESS);
        return State.NEXT_WQE;
    }

    private State localErrorComplete(SendWqe w) {
        // Everything before this WQE must finish first; the error is reported when it is the oldest.
        if (qp.sq.completed() == cursor) {
            qp.sendFailed(w, localError, AsyncEvent.Type.QP_REQ_ERR);
            // A QP is in ERR now and finds nothing more to send; an EE context that abandoned the
            // message carries on, and its RESYNC, put on it meanwhile, is next.
            return State.NEXT_WQE;
        }
        // Otherwise the completer runs the requester again when the earlier WQEs complete.
        return State.WAIT;
    }

    /**
     * Goes back to resend from {@code psn}: the WQE containing it restarts at that packet (a READ
     * is re-requested for its remainder), every later WQE from its first packet.
     */
    void rewind(int psn) {
        for (long i = qp.sq.completed(); i < qp.sq.posted(); i++) {
            SendWqe w = qp.sq.at(i);
            if (!w.psnAssigned) {
                break;
            }
            int into = Psn.forward(w.firstPsn, psn);
            if (into < w.packets) {
                cursor = i;
                if (w.kind.isRead()) {
                    w.readRetryPsn = psn;
                    w.nextPacket = 0;
                } else if (w.kind.isReadOrAtomic()) {
                    w.nextPacket = 0;
                } else {
                    w.nextPacket = into;
                }
                w.state(SendWqe.State.SENDING);
                for (long j = i + 1; j < qp.sq.posted(); j++) {
                    SendWqe later = qp.sq.at(j);
                    if (!later.psnAssigned) {
                        break;
                    }
                    later.nextPacket = 0;
                    later.readRetryPsn = -1;
                    later.state(SendWqe.State.SENDING);
                }
                rel.packetsSinceAckReq = 0;
                return;
            }
        }
    }
}
