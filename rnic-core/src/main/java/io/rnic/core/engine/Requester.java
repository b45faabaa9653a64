package io.rnic.core.engine;

import io.netty.buffer.ByteBuf;
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
    /** The held-back last packet of a message ({@link #defer}), its place in its buffer, and its flow. */
    private ByteBuf deferred;
    private int deferredOffset;
    private int deferredLength;
    private Destination deferredTo;
    /** True while {@link #run} sends: only a run knows where it ends. */
    private boolean deferring;
    /** A run sent a packet that restarts the local ACK timer. */
    private boolean sentInRun;
    /**
     * A run of an acknowledged transport that starts with fewer than this many packets in flight
     * asks the wire to send its first this many at once, instead of holding them until the cycle
     * ends or a full GSO train (64 packets) is pending. The responder then has less work queued
     * than it takes here to build a train, and would sit idle while the rest of it is built: with
     * perftest's depth (128 outstanding, a completion every 100) sending early raised the 64-byte
     * SEND rate by about a sixth. Deeper in flight the responder is busy anyway, and an early
     * train would only cost both ends another system call.
     */
    static final int EARLY_TRAIN = 32;
    /** Packets this run put on the wire, and the count at which it flushes early (0: it does not). */
    private int packetsInRun;
    private int earlyTrainAt;

    private final QpContext qp;
    private final ReliabilityContext rel;
    private final RequesterPsnWindow window;
    /** Index in the send queue of the WQE being sent. */
    long cursor;
    /** READ and atomic WQEs sent and not yet completed. */
    int rdAtomicOutstanding;
    private boolean drainNotify;
    /** Messages started (the send sequence number of the last one), in the MSN's 24-bit space. */
    private int ssn;
    /** Limit sequence number from the last AETH credits: messages up to it may take an RWQE. */
    private int lsn;
    private boolean creditsKnown;
    private boolean creditsUnlimited;
    /** Sent, uncompleted messages that take a receive WQE at the responder. */
    int rwqeMessagesOutstanding;
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
    }

    void start(int sqPsn) {
        window.limit(qp.hca.limits().sendWindow());
        window.reset(sqPsn);
        cursor = qp.sq.completed();
        rdAtomicOutstanding = 0;
        rel.packetsSinceAckReq = 0;
        rel.rnrWait = false;
        ssn = 0;
        rwqeMessagesStarted = 0;
        lsn = 0;
        creditsKnown = false;
        // Credits travel in ACKs: an unacknowledged transport has none to wait for.
        creditsUnlimited = !qp.endToEndCredits || qp.policy.credits() == TransportPolicy.Credits.NONE;
        rwqeMessagesOutstanding = 0;
    }

    void reset() {
        cursor = 0;
        rdAtomicOutstanding = 0;
        rwqeMessagesOutstanding = 0;
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
        if (windowTooNarrowToStart()) {
            return; // an ACK will come for the run in flight, and run this again
        }
        running = true;
        deferring = true;
        packetsInRun = 0;
        // Unacknowledged transports keep nothing in flight (a PSN leaves the window as it leaves
        // the HCA): their requester never waits on the responder, so it has no idle one to feed.
        earlyTrainAt = qp.policy.ack().acked() && window.inFlight() < EARLY_TRAIN ? EARLY_TRAIN : 0;
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
                    // A state's case runs its check and, while they pass, the ones after it and the
                    // send: a WQE that may go costs one dispatch, not five.
                    case CHECK_FENCE -> s = fenceHolds(w) ? State.WAIT : fromRdAtomic(w);
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
            deferring = false;
            sendDeferred(true); // the run's last packet: nothing follows it now, so it asks for an ACK
            earlyTrainAt = 0;
            if (sentInRun) {
                // One clock read per run, not per packet (a tenth of a 64-byte SEND's cost on UDP):
                // the run's packets leave within microseconds, and the timer counts from the last.
                sentInRun = false;
                qp.completer.packetSent();
            }
        }
    }

    /** CHECK_FENCE: a fenced WQE waits until the READs and atomics before it have completed. */
    private boolean fenceHolds(SendWqe w) {
        return (w.flags & SendWqe.FENCE) != 0 && !w.psnAssigned && rdAtomicOutstanding > 0;
    }

    /** CHECK_RD_ATOMIC, then on: a new READ or atomic waits while max_rd_atomic are outstanding. */
    private State fromRdAtomic(SendWqe w) {
        if (w.kind.isReadOrAtomic() && !w.psnAssigned && rdAtomicOutstanding >= Math.max(1, qp.attrs.maxRdAtomic())) {
            return State.WAIT;
        }
        return fromCredits(w);
    }

    /** CHECK_CREDITS, then on. */
    private State fromCredits(SendWqe w) {
        return hasCredit(w) ? fromWindow(w) : State.WAIT;
    }

    /** CHECK_WINDOW, then the packet. */
    private State fromWindow(SendWqe w) {
        return fitsWindow(w) ? sendPacket(w) : State.WAIT;
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
     * End-to-end flow control (reference §3.1): a message that takes a receive WQE may start if
     * its sequence number is within the limit the last credits gave, or, with no credit, as the
     * single probe when no such message is outstanding.
     */
    private boolean hasCredit(SendWqe w) {
        if (w.psnAssigned || creditsUnlimited || !takesReceiveWqe(w)) {
            return true;
        }
        int next = io.rnic.core.psn.Psn.next(ssn);
        if (creditsKnown && !Psn.isAfter(next, lsn)) {
            return true;
        }
        return rwqeMessagesOutstanding == 0;
    }

    /**
     * Takes the credits of an ACK-type AETH (also from duplicate responses, which may be sent
     * just to deliver credits). Returns true if the limit moved.
     */
    boolean credits(int syndrome, int msn) {
        if (!qp.endToEndCredits || io.rnic.core.packet.AethSyndrome.type(syndrome) != io.rnic.core.packet.AethSyndrome.TYPE_ACK) {
            return false;
        }
        int code = io.rnic.core.packet.AethSyndrome.value(syndrome);
        if (code == io.rnic.core.packet.AethSyndrome.CREDITS_INVALID) {
            boolean changed = !creditsUnlimited;
            creditsUnlimited = true;
            return changed;
        }
        creditsUnlimited = false;
        int limit = Psn.add(msn, io.rnic.core.packet.AethSyndrome.creditsOf(code));
        if (!creditsKnown || Psn.isAfter(limit, lsn)) {
            lsn = limit;
            creditsKnown = true;
            return true;
        }
        return false;
    }

    /** READs and atomics take all their PSNs at once; SEND and WRITE one per packet. */
    private boolean fitsWindow(SendWqe w) {
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
     * ACK, so one comes (or its timer fires) and runs this again. A resend never waits.
     */
    private boolean windowTooNarrowToStart() {
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

    /** Sends a request packet; one held back for its AckReq bit ({@link #defer}) leaves first. */
    private void transmit(RocePacket p, Destination d) {
        sendDeferred(false);
        qp.framer.transmit(p, d);
        sentOne();
    }

    /** Counts a packet of the run onto the wire, and sends the run's early train ({@link #EARLY_TRAIN}). */
    private void sentOne() {
        if (++packetsInRun == earlyTrainAt) {
            qp.hca.sink().flushNow();
        }
    }

    /**
     * Holds back a packet that does not ask for an ACK until the run's next packet
     * (then it leaves as it is) or the run's end (then it asks for one). Nothing happens between
     * the two on the protocol thread, so the packet leaves in the same instant either way.
     */
    private void defer(RocePacket p, Destination d) {
        sendDeferred(false);
        deferred = p.buffer();
        deferredOffset = p.offset();
        deferredLength = p.length();
        if (deferredTo != d) { // a QP's destination, packet after packet: kept, so no GC write barrier
            deferredTo = d;
        }
    }

    /** Sends the packet held back by {@link #defer}, if any, asking for an ACK if {@code ackReq}. */
    private void sendDeferred(boolean ackReq) {
        ByteBuf b = deferred;
        if (b == null) {
            return;
        }
        deferred = null;
        if (ackReq) {
            int at = deferredOffset + io.rnic.core.packet.BthFlyweight.ACK_REQ_OFFSET;
            b.setByte(at, b.getByte(at) | io.rnic.core.packet.BthFlyweight.ACK_REQ_BIT);
            rel.packetsSinceAckReq = 0;
        }
        qp.framer.transmit(b, deferredOffset, deferredLength, deferredTo);
        sentOne();
    }

    private State sendPacket(SendWqe w) {
        boolean fresh = !w.psnAssigned;
        if (fresh) {
            w.firstPsn = window.next();
            w.lastPsn = Psn.add(w.firstPsn, w.packets - 1);
            w.psnAssigned = true;
            w.state(SendWqe.State.SENDING);
            ssn = Psn.next(ssn);
            w.ssn = ssn;
            if (takesReceiveWqe(w)) {
                rwqeMessagesOutstanding++;
                w.rwqeNumber = rwqeMessagesStarted++;
            }
            if (w.kind.isReadOrAtomic()) {
                window.reserve(w.packets);
                w.reservedPackets = w.packets;
                rdAtomicOutstanding++;
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
            if (deferring) {
                sentInRun = true; // the ACK timer restarts once, when the run ends (run)
            } else {
                qp.completer.packetSent();
            }
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
                || acked && (last && (w.signaled() || !deferring) || forceAckReq || rel.packetsSinceAckReq >= MAX_PACKETS_PER_ACK);
        boolean deferrable = acked && deferring;
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
            transmit(p, d);
            if (last && w.signaled() && qp.sq.posted() - cursor - 1 < window.limit() / 2) {
                // The application waits for this completion, and the queue behind it is short:
                // it will soon wait on it. The packet leaves now, not at the end of the cycle,
                // so that its ACK's round trip overlaps the rest of the burst. (Behind a long
                // queue the window, not the application, sets the pace, and a split train
                // would only cost another system call on both ends.)
                qp.hca.sink().flushNow();
            }
        } else {
            defer(p, d);
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
        transmit(p, d);
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
        transmit(p, d);
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
        var keys = qp.hca.keys();
        boolean bind = w.kind.completion() == io.rnic.verbs.WcOpcode.BIND_MW;
        String failure;
        SendWqe.Operands o = w.operands();
        if (w.kind.completion() == io.rnic.verbs.WcOpcode.REG_MR) {
            io.rnic.core.memory.FastRegion fr = keys.fastRegion(o.bindMrKey >>> 8);
            failure = fr == null || fr.key() != o.bindMrKey ? "no fast-registration region has key 0x"
                    + Integer.toHexString(o.bindMrKey) : keys.fastRegister(fr, w.rkey, w.remoteAddr, o.bindAccess, qp.pd);
        } else if (bind) {
            io.rnic.core.memory.MemoryWindow mw = keys.lookupWindow(o.bindMwKey);
            if (mw == null) {
                failure = "no memory window has key 0x" + Integer.toHexString(o.bindMwKey);
            } else if (mw.type() == 2 && qp.policy.headers().namesTargetSrq()) {
                failure = "XRC has no type 2 memory windows (seed 001 §9.7.9.1)";
            } else {
                io.rnic.core.memory.MemoryRegion mr = o.bindMrKey == 0 ? null : keys.lookup(o.bindMrKey);
                failure = o.bindMrKey != 0 && mr == null ? "no memory region has key 0x" + Integer.toHexString(o.bindMrKey)
                        : keys.bindWindow(mw, o.bindMwKey, mr, w.remoteAddr, o.bindLength, o.bindAccess, w.rkey, qp.qpn, qp.pd);
            }
        } else {
            failure = keys.invalidateLocal(w.invalidateRkey, qp.pd);
        }
        if (failure == null) {
            cursor++;
            qp.completions.completeSend(w, WcStatus.SUCCESS);
            return State.NEXT_WQE;
        }
        WcStatus status = bind ? WcStatus.MW_BIND_ERR : WcStatus.LOC_QP_OP_ERR;
        qp.hca.raise(new AsyncEvent(AsyncEvent.Type.QP_REQ_ERR, qp.qpn, w.opcode + " failed: " + failure));
        qp.failWith(null, () -> qp.completions.completeSend(w, status));
        return State.WAIT;
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
