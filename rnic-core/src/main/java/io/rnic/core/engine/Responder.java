package io.rnic.core.engine;

import io.rnic.core.memory.AccessResult;
import io.rnic.core.memory.MemoryAccess;
import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.Position;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.psn.Psn;
import io.rnic.core.psn.RequestRegion;
import io.rnic.core.psn.ResponderPsnWindow;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.Counter;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;

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
 */
final class Responder {
    /** The responder's states for one request packet. */
    enum State {
        CHK_PSN, CHK_OP_SEQ, CHK_TARGET, CHK_OP_VALID, CHK_RESOURCE, CHK_LENGTH, CHK_RKEY, EXECUTE,
        READ_REPLY, ATOMIC_REPLY, ATOMIC_WRITE_REPLY, FLUSH_REPLY, COMPLETE, ACKNOWLEDGE, DUPLICATE_REQUEST, RNR, ERROR,
        RESYNC, DONE
    }

    /** The QP access flag each operation needs, by ordinal; SEND needs none, -1 is not supported. */
    private static final int[] REQUIRED_QP_ACCESS = new int[Operation.values().length];

    static {
        java.util.Arrays.fill(REQUIRED_QP_ACCESS, -1);
        REQUIRED_QP_ACCESS[Operation.SEND.ordinal()] = 0;
        REQUIRED_QP_ACCESS[Operation.RDMA_WRITE.ordinal()] = AccessFlags.REMOTE_WRITE;
        REQUIRED_QP_ACCESS[Operation.RDMA_READ_REQUEST.ordinal()] = AccessFlags.REMOTE_READ;
        REQUIRED_QP_ACCESS[Operation.COMPARE_SWAP.ordinal()] = AccessFlags.REMOTE_ATOMIC;
        REQUIRED_QP_ACCESS[Operation.FETCH_ADD.ordinal()] = AccessFlags.REMOTE_ATOMIC;
        REQUIRED_QP_ACCESS[Operation.ATOMIC_WRITE.ordinal()] = AccessFlags.REMOTE_WRITE; // not REMOTE_ATOMIC (rxe)
        REQUIRED_QP_ACCESS[Operation.FLUSH.ordinal()] = 0; // by its placement type: flushAccess
    }

    /** FLUSH bits of the FETH placement type that are defined: global visibility, persistence. */
    private static final int PLACEMENT_DEFINED = 0x3;

    /** The access a FLUSH of placement type {@code plt} needs, of the QP and of the region (rxe). */
    private static int flushAccess(int plt) {
        return ((plt & 1) != 0 ? AccessFlags.FLUSH_GLOBAL : 0) | ((plt & 2) != 0 ? AccessFlags.FLUSH_PERSISTENT : 0);
    }

    /** Operations that take a responder resource and answer with data or an atomic ACK. */
    private static boolean takesResource(Operation o) {
        return o == Operation.RDMA_READ_REQUEST || o == Operation.COMPARE_SWAP || o == Operation.FETCH_ADD
                || o == Operation.ATOMIC_WRITE || o == Operation.FLUSH;
    }

    private final QpContext qp;
    private final ReliabilityContext rel;
    private final ResponderPsnWindow window;
    private final ResponderResources resources;
    /** The IP header of a datagram, written into the GRH area of its receive buffer. */
    private final Grh grh = new Grh();
    /** The IP and UDP fields of the packet being handled (the HCA's reused view). */
    private io.rnic.core.packet.PseudoHeader rxIp;

    // The message in progress.
    private Operation inMessage;
    private RecvWqe rwqe;
    /** The queue {@link #rwqe} was taken from. */
    private ReceiveQueue rwqeQueue;
    private long placed;
    private MemoryRegion writeMr;
    /**
     * The memory window a WRITE in progress was granted through (null for a region's key), and
     * its generation then: the WRITE's later packets land only while that grant stands.
     */
    private io.rnic.core.memory.MemoryWindow writeMw;
    private int writeMwGeneration;
    private long writeVa;
    private long writeRemaining;
    private long writeLength;

    private ResponderError error;
    /** The region a READ being answered was checked against (valid then), or null for length 0. */
    private MemoryRegion readMr;
    /** The region an atomic being executed was checked against (valid then). */
    private MemoryRegion atomicMr;
    /** Where the READ or atomic being executed accesses its region (a window's address translated). */
    private long readVa;
    /** The window a READ being answered was granted through (null for a region's key), and its generation then. */
    private io.rnic.core.memory.MemoryWindow readMw;
    private int readMwGeneration;
    private long atomicVa;
    /** What an R_Key resolved to (reused). */
    private final io.rnic.core.memory.RemoteKey remoteKey = new io.rnic.core.memory.RemoteKey();
    /** A positive ACK owed until the end of the receive batch ({@link #sendAck}). */
    private boolean ackOwed;
    private int owedAckPsn;
    private final Runnable flushOwedAck = this::flushOwedAck;
    private final ReadResponseStream readStream;
    private final MessageTarget target;
    /** What becomes of requests ahead of the expected PSN (the QP's loss recovery mode). */
    private ReceiveWindow receiveWindow = InOrderReceiveWindow.INSTANCE;
    /**
     * The payload length of the request being handled when its data was placed on arrival (only
     * its headers were kept, seed 002's extended protocol), else -1.
     */
    private int placedPayload = -1;
    /**
     * The request being processed was held ahead of a hole and is handed back now, by a receive
     * window that acknowledges what it held (the extended protocol): it is acknowledged whatever
     * its AckReq bit says, so that the ACK for the packet that filled the hole advances over the
     * run held behind it (IRN's cumulative ACK) and the requester resends none of them.
     */
    private boolean acknowledgeHeld;
    /** Receive WQEs taken since RTR: which one a request's SRETH names is relative to this. */
    private long rwqesTaken;

    Responder(QpContext qp) {
        this.qp = qp;
        this.rel = qp.rel;
        this.window = qp.rel.receiveWindow;
        this.resources = qp.rel.resources;
        this.target = qp.target;
        this.readStream = new ReadResponseStream(qp, qp.rel, this::ackSyndrome, this::betweenReads);
    }

    void start(int rqPsn, int maxDestRdAtomic) {
        receiveWindow.clear();
        receiveWindow = ReceiveWindow.of(qp.attrs.lossRecovery(), qp, this);
        rwqesTaken = 0;
        window.reset(rqPsn);
        rel.msn = 0;
        rel.nakSent = false;
        resources.reset(maxDestRdAtomic);
        endMessage();
        rwqe = null;
        rwqeQueue = null;
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
        return rwqeQueue != null ? rwqeQueue : fallback;
    }

    /** Stops: the message in progress is abandoned; returns the receive WQE the QP held, if any. */
    RecvWqe stop() {
        receiveWindow.clear();
        readStream.interrupt(false);
        RecvWqe held = rwqe;
        rwqe = null;
        rwqeQueue = null;
        endMessage();
        return held;
    }

    /**
     * Ends the message in progress. A receive WQE the QP holds is not touched: it is completed
     * with {@link #completeRwqe}, or kept for the next message after a dropped one (UC).
     */
    private void endMessage() {
        inMessage = null;
        placed = 0;
        writeMr = null; // not held between packets: nothing to release
        if (writeMw != null) {
            writeMw = null;
        }
        writeRemaining = 0;
        writeLength = 0;
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
        acknowledgeHeld = acknowledge;
        try {
            process(p, ip, placed);
        } finally {
            acknowledgeHeld = false;
        }
    }

    /**
     * Runs one request through the checks and its execution. {@code placed} is its payload length
     * when its data was placed on arrival and only its headers were kept, else -1.
     */
    void process(RocePacket p, io.rnic.core.packet.PseudoHeader ip, int placed) {
        if (rxIp != ip) { // the HCA hands the same view every time: skip the reference store
            rxIp = ip;
        }
        placedPayload = placed;

        // A request that passes walks the checks in this order: straight-line calls for that walk,
        // where the loop below pays a dispatch per state. Each step is what the loop would run for
        // the state; any other turn (an error, a duplicate, a READ) goes on in the loop.
        State s = checkPsn(p);
        if (s == State.CHK_OP_SEQ) {
            s = checkOpSequence(p);
        }
        if (s == State.CHK_TARGET) {
            s = checkTarget(p);
        }
        if (s == State.CHK_OP_VALID) {
            s = checkOpValid(p);
        }
        if (s == State.CHK_RESOURCE) {
            s = checkResource(p);
        }
        if (s == State.CHK_LENGTH) {
            s = checkLength(p);
        }
        if (s == State.CHK_RKEY) {
            s = checkRkey(p);
        }
        if (s == State.EXECUTE) {
            s = execute(p);
        }
        if (s == State.COMPLETE) {
            s = complete(p);
        }
        if (s == State.ACKNOWLEDGE) {
            s = acknowledge(p);
        }
        while (s != State.DONE) {
            s = switch (s) {
                case CHK_PSN -> checkPsn(p);
                case CHK_OP_SEQ -> checkOpSequence(p);
                case CHK_TARGET -> checkTarget(p);
                case CHK_OP_VALID -> checkOpValid(p);
                case CHK_RESOURCE -> checkResource(p);
                case CHK_LENGTH -> checkLength(p);
                case CHK_RKEY -> checkRkey(p);
                case EXECUTE -> execute(p);
                case READ_REPLY -> readReply(p);
                case ATOMIC_REPLY -> atomicReply(p);
                case ATOMIC_WRITE_REPLY -> atomicWriteReply(p);
                case FLUSH_REPLY -> flushReply(p);
                case COMPLETE -> complete(p);
                case ACKNOWLEDGE -> acknowledge(p);
                case DUPLICATE_REQUEST -> duplicate(p);
                case RNR -> rnr(p);
                case ERROR -> fail(p);
                case RESYNC -> resync(p);
                default -> throw new IllegalStateException("responder state " + s);
            };
        }
    }

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
                abandonMessage();
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
        if (receiveWindow.ahead(p, rxIp)) {
            return State.DONE; // held or placed until the hole fills (seed 002)
        }
        // Out of sequence: one NAK, then silence until the expected PSN or a duplicate comes.
        if (!rel.nakSent) {
            rel.nakSent = true;
            qp.hca.counters().inc(Counter.OUT_OF_SEQ_REQUEST);
            sendAck(AethSyndrome.nak(AethSyndrome.NAK_PSN_SEQUENCE_ERROR), window.expected());
        } else {
            qp.hca.counters().inc(Counter.RCVD_DROPPED);
        }
        return State.DONE;
    }

    /**
     * A hole the receive window declared lost: a sequence NAK at the expected PSN, as an
     * out-of-sequence request would have drawn, but sent when the loss is likely rather than
     * at the first request out of order.
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

    /** Where the QP's messages go (receive queue, protection domain), for placing on arrival. */
    MessageTarget target() {
        return target;
    }

    /** The payload length of the request being handled (kept apart when only its headers were). */
    private int payloadLength(RocePacket p) {
        return placedPayload >= 0 ? placedPayload : p.payloadLength();
    }

    /**
     * Gives up the message in progress without completing it (UC): a receive WQE it had taken
     * is kept, emptied, for the next message.
     */
    private void abandonMessage() {
        if (rwqe != null) {
            rwqe.sgl.release(); // the next message resolves its buffers again
        }
        endMessage();
    }

    /** Completes the receive WQE the message holds and lets it go back to its queue. */
    private void completeRwqe(WcStatus status, WcOpcode opcode, int byteLen, int flags, int imm, int inv, RocePacket p,
                              boolean solicited) {
        RecvWqe w = rwqe;
        ReceiveQueue from = rwqeQueue;
        rwqe = null;
        rwqeQueue = null;
        target.owner().completions.completeRecv(w, from, status, opcode, byteLen, flags, imm, inv, sourceQp(p), solicited);
    }

    private State checkOpSequence(RocePacket p) {
        Opcode op = p.opcode();
        Position pos = op.position();
        if (inMessage != null) {
            if (pos.startsMessage() || op.operation() != inMessage) {
                return error(ResponderError.OPCODE_SEQUENCE);
            }
        } else if (!pos.startsMessage()) {
            return error(ResponderError.OPCODE_SEQUENCE);
        }
        return State.CHK_TARGET;
    }

    /** Which receive queue, PD and CQ the message uses: the QP's, or the XRC SRQ it names. */
    private State checkTarget(RocePacket p) {
        ResponderError e = p.opcode().position().startsMessage() ? target.select(p) : target.confirm(p);
        return e == null ? State.CHK_OP_VALID : error(e);
    }

    private State checkOpValid(RocePacket p) {
        Operation o = p.opcode().operation();
        int need = o == Operation.FLUSH ? flushAccess(p.feth().placementType()) : REQUIRED_QP_ACCESS[o.ordinal()];
        if (need < 0 || (need != 0 && (target.owner().accessFlags & need) == 0)) { // an RD QP's own rights
            return error(ResponderError.OPERATION_NOT_ALLOWED);
        }
        return State.CHK_RESOURCE;
    }

    /** Does this packet take a receive WQE: the start of a SEND, or the end of a WRITE with immediate. */
    private static boolean needsRwqe(Opcode op) {
        Operation o = op.operation();
        return (o == Operation.SEND && op.position().startsMessage())
                || (o == Operation.RDMA_WRITE && op.hasImmediate());
    }

    private State checkResource(RocePacket p) {
        Opcode op = p.opcode();
        if (needsRwqe(op) && rwqe == null && target.queue().available() == 0) {
            return State.RNR;
        }
        if (takesResource(op.operation()) && resources.depth() == 0) {
            return error(ResponderError.NO_RESPONDER_RESOURCES);
        }
        return State.CHK_LENGTH;
    }

    private State checkLength(RocePacket p) {
        Opcode op = p.opcode();
        int len = payloadLength(p);
        int mtu = qp.mtu;
        if (op.hasPayload()) {
            boolean ok = switch (op.position()) {
                case FIRST, MIDDLE -> len == mtu;
                case LAST -> len >= 1 && len <= mtu;
                case ONLY -> len <= mtu;
            };
            if (!ok) {
                return error(ResponderError.LENGTH);
            }
        }
        if (op.operation() == Operation.FLUSH && (p.feth().selectivity() > 1
                || (p.feth().placementType() & ~PLACEMENT_DEFINED) != 0)) {
            return error(ResponderError.RESERVED_FIELD);
        }
        if (op.has(Header.RETH)) {
            long dma = Integer.toUnsignedLong(p.reth().dmaLength());
            if (dma > (1L << 31)) {
                return error(ResponderError.LENGTH);
            }
            if (op.operation() == Operation.ATOMIC_WRITE && (dma != 8 || len != 8)) {
                return error(ResponderError.LENGTH);
            }
            if (op.operation() == Operation.RDMA_WRITE) {
                boolean ok = op.position() == Position.ONLY ? len == dma : len <= dma;
                if (!ok) {
                    return error(ResponderError.LENGTH);
                }
            }
        } else if (op.operation() == Operation.RDMA_WRITE) {
            boolean ok = op.position() == Position.LAST ? len == writeRemaining : len < writeRemaining;
            if (!ok) {
                return error(ResponderError.LENGTH);
            }
        }
        return State.CHK_RKEY;
    }

    private State checkRkey(RocePacket p) {
        Opcode op = p.opcode();
        Operation o = op.operation();
        if (o == Operation.RDMA_WRITE || o == Operation.RDMA_READ_REQUEST) {
            if (!op.has(Header.RETH)) {
                return State.EXECUTE; // WRITE MIDDLE/LAST: checked at FIRST
            }
            long va = p.reth().virtualAddress();
            long len = Integer.toUnsignedLong(p.reth().dmaLength());
            int access = o == Operation.RDMA_WRITE ? AccessFlags.REMOTE_WRITE : AccessFlags.REMOTE_READ;
            MemoryRegion mr = null;
            long at = va;
            if (len > 0) { // zero-length transfers name no memory and are not checked (C9-88)
                // An MR's key, or a memory window's translated onto its region (reference §8.3).
                AccessResult r = qp.hca.keys().resolveRemote(p.reth().rkey(), target.pd(), target.owner().qpn, va, len, access, 1,
                        remoteKey);
                mr = remoteKey.mr;
                at = remoteKey.va;
                if (r != AccessResult.OK || !mr.isValid()) {
                    return error(ResponderError.REMOTE_ACCESS);
                }
            }
            if (o == Operation.RDMA_WRITE) {
                writeMr = mr;
                io.rnic.core.memory.MemoryWindow mw = len > 0 ? remoteKey.mw : null;
                if (writeMw != mw) { // null message after message through regions: no GC write barrier
                    writeMw = mw;
                }
                writeMwGeneration = remoteKey.mwGeneration;
                writeVa = at;
                writeRemaining = len;
                writeLength = len;
            } else {
                readMr = mr;
                readVa = at;
                readMw = len > 0 ? remoteKey.mw : null;
                readMwGeneration = remoteKey.mwGeneration;
            }
            return State.EXECUTE;
        }
        if (o == Operation.ATOMIC_WRITE) {
            return checkEightBytes(p.reth().rkey(), p.reth().virtualAddress(), AccessFlags.REMOTE_WRITE,
                    State.ATOMIC_WRITE_REPLY);
        }
        if (o == Operation.FLUSH) {
            // The R_Key is checked even for a zero-length range; a whole-region FLUSH ignores the RETH's range.
            MemoryRegion mr = qp.hca.keys().lookup(p.reth().rkey());
            boolean wholeRegion = p.feth().selectivity() == 1;
            long va = wholeRegion && mr != null ? mr.va() : p.reth().virtualAddress();
            long len = wholeRegion ? 0 : Integer.toUnsignedLong(p.reth().dmaLength());
            AccessResult r = MemoryAccess.check(mr, target.pd(), va, len, flushAccess(p.feth().placementType()), 1);
            if (r != AccessResult.OK || !mr.isValid()) {
                return error(ResponderError.REMOTE_ACCESS);
            }
            atomicMr = mr;
            return State.FLUSH_REPLY;
        }
        if (o == Operation.COMPARE_SWAP || o == Operation.FETCH_ADD) {
            return checkEightBytes(p.atomicEth().rkey(), p.atomicEth().virtualAddress(), AccessFlags.REMOTE_ATOMIC,
                    State.ATOMIC_REPLY);
        }
        // SEND: the receive WQE's own buffers and size.
        if (op.position().startsMessage()) {
            if (rwqe == null) { // UC may reuse an abandoned one
                takeRwqe();
            }
            placed = 0;
            AccessResult r = rwqe.sgl.resolve(qp.hca.keys(), rwqeQueue.pd(), AccessFlags.LOCAL_WRITE);
            if (r != AccessResult.OK) {
                return error(ResponderError.RECEIVE_BUFFER);
            }
        }
        if (placed + receiveHeaderLength() + payloadLength(p) > rwqe.sgl.totalLength()) {
            return error(ResponderError.RECEIVE_TOO_SHORT);
        }
        return State.EXECUTE;
    }

    /**
     * The 8-byte target of an atomic or ATOMIC WRITE: aligned (else Invalid Request, as rxe), then
     * the R_Key (a region's, or a window's translated) with {@code access}; checked valid for the execution.
     */
    private State checkEightBytes(int rkey, long va, int access, State next) {
        if ((va & 7) != 0) {
            return error(ResponderError.MISALIGNED_ATOMIC);
        }
        AccessResult r = qp.hca.keys().resolveRemote(rkey, target.pd(), target.owner().qpn, va, 8, access, 8, remoteKey);
        if (r != AccessResult.OK) {
            return error(r == AccessResult.MISALIGNED ? ResponderError.MISALIGNED_ATOMIC : ResponderError.REMOTE_ACCESS);
        }
        if (!remoteKey.mr.isValid()) {
            return error(ResponderError.REMOTE_ACCESS);
        }
        atomicMr = remoteKey.mr;
        atomicVa = remoteKey.va;
        return next;
    }

    private State execute(RocePacket p) {
        Opcode op = p.opcode();
        int len = payloadLength(p);
        if (placedPayload >= 0) {
            return executePlaced(op, len);
        }
        switch (op.operation()) {
            case SEND -> {
                if (placed == 0 && receiveHeaderLength() > 0) {
                    if (!rwqe.sgl.scatter(0, grh.build(rxIp, p.length()), 0, Grh.LENGTH)) {
                        return error(ResponderError.RECEIVE_BUFFER); // deregistered mid-message
                    }
                    placed = Grh.LENGTH;
                }
                if (len > 0 && !rwqe.sgl.scatter(placed, p.buffer(), p.payloadOffset(), len)) {
                    return error(ResponderError.RECEIVE_BUFFER); // deregistered mid-message
                }
                placed += len;
            }
            case RDMA_WRITE -> {
                if (len > 0) {
                    // Checked packet by packet: a region deregistered, or a window invalidated,
                    // rebound or deallocated, since the WRITE began fails the rest of it (the old
                    // key no longer grants access: reference §8.3, Remote Access Error). Both
                    // changes run on this thread between packets.
                    if (!io.rnic.core.memory.RemoteKey.stillGranted(writeMr, writeMw, writeMwGeneration)) {
                        return error(ResponderError.REMOTE_ACCESS);
                    }
                    writeMr.write(writeVa, p.buffer(), p.payloadOffset(), len);
                }
                writeVa += len;
                writeRemaining -= len;
            }
            case RDMA_READ_REQUEST -> {
                return State.READ_REPLY;
            }
            default -> throw new IllegalStateException("no execution for " + op);
        }
        return State.COMPLETE;
    }

    /** A request whose data was placed on arrival: only the message's progress moves. */
    private State executePlaced(Opcode op, int len) {
        if (op.operation() == Operation.SEND) {
            placed += len;
        } else {
            writeVa += len;
            writeRemaining -= len;
        }
        return State.COMPLETE;
    }

    /** The bytes a receive buffer holds before a SEND's payload: 40 for a datagram's GRH. */
    private int receiveHeaderLength() {
        return qp.policy.receiveLayout() == TransportPolicy.ReceiveLayout.GRH_THEN_PAYLOAD ? Grh.LENGTH : 0;
    }

    /** Takes a receive WQE for the message that is starting (checked available). */
    private void takeRwqe() {
        rwqeQueue = target.queue();
        rwqe = rwqeQueue.take();
        rwqesTaken++;
    }

    /**
     * The receive WQE a SEND whose SRETH names receive WQE number {@code n} (counted from 0 at
     * RTR) uses, for placing its data on arrival: the one this QP holds for the message in
     * progress, or one posted and not yet taken; null if it cannot be known yet.
     */
    RecvWqe rwqeNumbered(long n) {
        long k = n - rwqesTaken;
        if (k == -1) {
            return rwqe;
        }
        return k >= 0 && k < Integer.MAX_VALUE ? target.queue().peek((int) k) : null;
    }

    private State readReply(RocePacket p) {
        int psn = p.bth().psn();
        long va = p.reth().virtualAddress();
        int rkey = p.reth().rkey();
        long len = Integer.toUnsignedLong(p.reth().dmaLength());
        int packets = (int) Math.max(1, (len + qp.mtu - 1) / qp.mtu);
        ResponderResource r = resources.allocate();
        r.atomic = false;
        r.firstPsn = psn;
        r.lastPsn = Psn.add(psn, packets - 1);
        r.va = va;
        r.rkey = rkey;
        r.length = len;
        r.pd = target.pd();
        if (p.opcode().has(Header.SRETH)) {
            r.localKey = p.sreth().key();
            r.localVa = p.sreth().address();
            r.localLength = p.sreth().length();
        }
        // C9-148: the MSN counts a READ when it is accepted, before the data goes out.
        rel.msn = Psn.next(rel.msn);
        window.advance(packets);
        MemoryRegion mr = readMr;
        readMr = null;
        io.rnic.core.memory.MemoryWindow mw = readMw;
        readMw = null;
        sendReadResponses(r, psn, readVa, len, mr, mw, readMwGeneration);
        return State.DONE;
    }

    /**
     * Answers READ resource {@code r} from {@code fromPsn} to its end, paced by the response
     * stream; a duplicate READ with a PSN earlier than the response being sent interrupts it
     * (seed 000 §3.3.2.2 rule 6), one the stream already covers is dropped, any other READ waits
     * for it to finish.
     */
    private void sendReadResponses(ResponderResource r, int fromPsn, long va, long length, MemoryRegion mr,
                                   io.rnic.core.memory.MemoryWindow mw, int mwGeneration) {
        flushOwedAck();
        if (readStream.active()) {
            if (Psn.compare(fromPsn, readStream.positionPsn()) < 0 && receiveWindow.earlierReadInterrupts()) {
                readStream.interrupt(true);
            } else if (readStream.covers(r, fromPsn, va, length)) {
                qp.hca.counters().inc(Counter.DUPLICATE_REQUEST_IN_PROGRESS);
                return;
            }
        }
        readStream.start(r, fromPsn, va, length, mr, mw, mwGeneration);
    }

    private State atomicReply(RocePacket p) {
        int psn = p.bth().psn();
        long va = p.atomicEth().virtualAddress();
        MemoryRegion mr = atomicMr;
        atomicMr = null;
        long original;
        // Atomics on one device are serialised (reference §8.3).
        synchronized (qp.hca.atomicLock()) {
            original = p.opcode().operation() == Operation.COMPARE_SWAP
                    ? mr.compareAndSwap(atomicVa, p.atomicEth().compare(), p.atomicEth().swapAdd())
                    : mr.fetchAndAdd(atomicVa, p.atomicEth().swapAdd());
        }
        qp.hca.counters().inc(Counter.ATOMICS_EXECUTED);
        ResponderResource r = resources.allocate();
        r.atomic = true;
        r.firstPsn = psn;
        r.lastPsn = psn;
        r.va = va;
        r.rkey = p.atomicEth().rkey();
        r.length = 8;
        r.original = original;
        rel.msn = Psn.next(rel.msn);
        window.advance(1);
        sendAtomicAck(psn, original);
        return State.DONE;
    }

    /**
     * ATOMIC WRITE (IBTA 1.5): the 8 payload bytes land at once, verbatim, serialised with the
     * device's other atomics; the answer is a READ RESPONSE ONLY without data, at the request's
     * PSN, and a responder resource remembers it so a duplicate is answered without writing again.
     */
    private State atomicWriteReply(RocePacket p) {
        int psn = p.bth().psn();
        long va = p.reth().virtualAddress();
        MemoryRegion mr = atomicMr;
        atomicMr = null;
        long bytes = p.buffer().getLongLE(p.payloadOffset()); // memory order on both ends: no swap
        synchronized (qp.hca.atomicLock()) {
            mr.putLong(atomicVa, bytes);
        }
        qp.hca.counters().inc(Counter.ATOMIC_WRITES_EXECUTED);
        answerWithoutData(psn);
        return State.DONE;
    }

    /**
     * FLUSH (IBTA 1.5): every earlier request of this QP has been executed by the time this one
     * is (the responder runs them in PSN order, writing through to the region's memory), so
     * global visibility needs only a fence; persistence forces a mapped file's pages to storage.
     * Answered as an ATOMIC WRITE is.
     */
    private State flushReply(RocePacket p) {
        int psn = p.bth().psn();
        MemoryRegion mr = atomicMr;
        atomicMr = null;
        java.lang.invoke.VarHandle.fullFence();
        if ((p.feth().placementType() & 2) != 0) {
            boolean whole = p.feth().selectivity() == 1;
            mr.persist(p.reth().virtualAddress(), whole ? -1 : Integer.toUnsignedLong(p.reth().dmaLength()));
        }
        qp.hca.counters().inc(Counter.FLUSHES_EXECUTED);
        answerWithoutData(psn);
        return State.DONE;
    }

    /** Takes a responder resource for an ATOMIC WRITE or FLUSH at {@code psn} and answers it. */
    private void answerWithoutData(int psn) {
        ResponderResource r = resources.allocate();
        r.atomic = false;
        r.answerOnly = true;
        r.firstPsn = psn;
        r.lastPsn = psn;
        r.va = 0;
        r.rkey = 0;
        r.length = 0;
        r.pd = target.pd();
        rel.msn = Psn.next(rel.msn);
        window.advance(1);
        sendReadResponses(r, psn, 0, 0, null, null, 0);
    }

    private void sendAtomicAck(int psn, long original) {
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

    private State complete(RocePacket p) {
        Opcode op = p.opcode();
        window.advance(1);
        if (!op.position().endsMessage()) {
            inMessage = op.operation();
            return State.ACKNOWLEDGE;
        }
        rel.msn = Psn.next(rel.msn);
        if (op.operation() == Operation.SEND) {
            int flags = receiveHeaderLength() > 0 ? WorkCompletion.WITH_GRH : 0;
            int imm = 0;
            int inv = 0;
            if (op.hasImmediate()) {
                flags |= WorkCompletion.WITH_IMM;
                imm = p.immDt().immediate();
            }
            boolean invalidated = true;
            if (op.hasInvalidate()) {
                inv = p.ieth().rkey();
                invalidated = qp.hca.invalidate(inv, target.pd());
                flags |= WorkCompletion.WITH_INV;
            }
            if (!invalidated) {
                // The key cannot be invalidated (unknown, other PD, already invalid): the receive
                // fails and the QP errors, but the message itself was fine, so it is still ACKed (rxe).
                acknowledge(p);
                boolean se = p.bth().solicited();
                qp.failWith(AsyncEvent.Type.QP_ACCESS_ERR, () -> {
                    completeRwqe(WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, 0, 0, 0, 0, p, se);
                    endMessage();
                });
                return State.DONE;
            }
            completeRwqe(WcStatus.SUCCESS, WcOpcode.RECV, (int) placed, flags, imm, inv, p, p.bth().solicited());
        } else if (op.hasImmediate()) {
            if (rwqe == null) { // UC may hold one a dropped message took
                takeRwqe();
            }
            completeRwqe(WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, (int) writeLength, WorkCompletion.WITH_IMM,
                    p.immDt().immediate(), 0, p, p.bth().solicited());
        }
        endMessage();
        return State.ACKNOWLEDGE;
    }

    /** The sender's QP number: DETH's for a datagram, the peer's for a connected QP. */
    private int sourceQp(RocePacket p) {
        return p.opcode().has(Header.DETH) ? p.deth().srcQp() : qp.addressing.peerQpn();
    }

    private State acknowledge(RocePacket p) {
        if (qp.policy.ack().acked() && (p.bth().ackReq() || acknowledgeHeld)) {
            sendAck(ackSyndrome(), p.bth().psn());
        }
        return State.DONE;
    }

    /**
     * Sends an ACKNOWLEDGE packet with the given syndrome at {@code psn}. A positive ACK is
     * coalesced: it is owed until the HCA ends the batch of packets it is receiving, and one ACK
     * then covers every PSN up to the newest owed one (an ACK acknowledges all earlier PSNs,
     * reference §5.1; rxe does the same per burst). A NAK, a READ response or an atomic
     * response first sends the owed ACK, so the peer sees responses in PSN order.
     */
    private void sendAck(int syndrome, int psn) {
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
    private int ackSyndrome() {
        if (!qp.endToEndCredits || qp.policy.credits() != TransportPolicy.Credits.FROM_RECEIVE_QUEUE) {
            return AethSyndrome.ack(AethSyndrome.CREDITS_INVALID);
        }
        return AethSyndrome.ack(qp.rq.creditCode());
    }

    private State duplicate(RocePacket p) {
        int psn = p.bth().psn();
        Operation o = p.opcode().operation();
        if (o == Operation.SEND || o == Operation.RDMA_WRITE || o == Operation.RESYNC) {
            // C9-105: never re-execute; acknowledge with the most recently completed PSN (a
            // retried RESYNC: its own, as nothing can follow it until its ACK arrives).
            sendAck(ackSyndrome(), window.lastAccepted());
            return State.DONE;
        }
        ResponderResource r = resources.find(psn);
        if (r == null) {
            qp.hca.counters().inc(Counter.RCVD_DROPPED); // its resource was recycled: class D, drop
            return State.DONE;
        }
        if (r.atomic) {
            sendAtomicAck(psn, r.original);
            return State.DONE;
        }
        if (r.answerOnly) { // a duplicate ATOMIC WRITE or FLUSH: answered again, not executed again
            sendReadResponses(r, psn, 0, 0, null, null, 0);
            return State.DONE;
        }
        if (o != Operation.RDMA_READ_REQUEST) {
            qp.hca.counters().inc(Counter.RCVD_DROPPED);
            return State.DONE;
        }
        // A duplicate READ is re-executed from memory, with responses from its own PSN; it may ask
        // for any subset of the original's data (seed 000 §3.3.2.1; rxe's check is the same):
        // the same R_Key, and an address range inside the original's. Anything else is invalid
        // and dropped silently (§3.3.2.2 rule 5).
        long va = p.reth().virtualAddress();
        long len = Integer.toUnsignedLong(p.reth().dmaLength());
        long off = va - r.va;
        if (p.reth().rkey() != r.rkey || Long.compareUnsigned(va, r.va) < 0 || Long.compareUnsigned(off, r.length) > 0
                || Long.compareUnsigned(len, r.length - off) > 0) {
            qp.hca.counters().inc(Counter.RCVD_DROPPED);
            return State.DONE;
        }
        MemoryRegion mr = null;
        io.rnic.core.memory.MemoryWindow mw = null;
        long at = va;
        if (r.length > 0) {
            AccessResult check = qp.hca.keys().resolveRemote(r.rkey, r.pd, p.bth().destQp(), va, len, AccessFlags.REMOTE_READ, 1,
                    remoteKey);
            mr = remoteKey.mr;
            mw = remoteKey.mw;
            at = remoteKey.va;
            if (check != AccessResult.OK || !mr.isValid()) {
                qp.hca.counters().inc(Counter.RCVD_DROPPED);
                return State.DONE;
            }
        }
        sendReadResponses(r, psn, at, len, mr, mw, remoteKey.mwGeneration);
        return State.DONE;
    }

    /**
     * A RESYNC (seed 001 §9.7.8.5, 9.7.3.2.2): the message in progress, if any, is dropped (a
     * receive WQE it took completes flushed), the expected PSN moves past the RESYNC's, and it
     * counts as a message, so its ACK's MSN tells the requester whether the message before it
     * had completed (9.7.8.6.1).
     */
    private State resync(RocePacket p) {
        int psn = p.bth().psn();
        qp.hca.counters().inc(Counter.RD_RESYNCS_RECEIVED);
        receiveWindow.clear();
        readStream.interrupt(false); // responses for PSNs the requester has moved past would be ghosts
        if (rwqe != null) {
            if (target.owner().state != io.rnic.verbs.QpState.ERR) { // else its QP's flush completed it
                completeRwqe(WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, p, false);
            }
            rwqe = null;
            rwqeQueue = null;
        }
        endMessage();
        window.reset(psn);
        window.advance(1);
        rel.msn = Psn.next(rel.msn);
        rel.nakSent = false;
        sendAck(ackSyndrome(), psn);
        return State.DONE;
    }

    private State rnr(RocePacket p) {
        if (!qp.policy.ack().acked()) {
            // UC, UD: no receive WQE, no RNR NAK: the message is dropped (reference §5.8).
            qp.hca.counters().inc(Counter.RCVD_DROPPED);
            abandonMessage();
            return State.DONE;
        }
        qp.hca.counters().inc(Counter.SEND_RNR_ERR);
        // Later packets of this message are dropped silently until the retry arrives.
        rel.nakSent = true;
        sendAck(AethSyndrome.rnrNak(target.owner().attrs.minRnrTimer()), p.bth().psn());
        return State.DONE;
    }

    private State error(ResponderError e) {
        this.error = e;
        return State.ERROR;
    }

    private State fail(RocePacket p) {
        ResponderError e = error;
        switch (qp.policy.errors()) {
            case DROP_MESSAGE -> {
                // UC has no NAKs: an erroneous message is dropped and the QP carries on.
                qp.hca.counters().inc(Counter.RCVD_DROPPED);
                // A WQE that is itself bad, or a shared queue's, is not kept for the next message.
                boolean completes = rwqe != null && (e.wqeAtFault() || !rwqeQueue.keepsWqeOfDroppedMessage());
                finish(e.wqeAtFault(), () -> {
                    if (completes) {
                        completeRwqe(e.receiveStatus(), WcOpcode.RECV, 0, 0, 0, 0, p, false);
                    }
                    abandonMessage();
                });
            }
            case COMPLETE_AND_CONTINUE -> {
                // UD: the datagram is dropped; a receive WQE it took completes with the error.
                qp.hca.counters().inc(Counter.RCVD_DROPPED);
                finish(e.wqeAtFault(), () -> {
                    if (rwqe != null) {
                        completeRwqe(e.receiveStatus(), WcOpcode.RECV, 0, 0, 0, 0, p, false);
                    }
                    endMessage();
                });
            }
            case NAK_AND_ERROR -> {
                sendAck(AethSyndrome.nak(e.nakCode()), p.bth().psn());
                // RC's classes B and C stop the QP.
                finish(e.fatal(), () -> {
                    if (rwqe != null) {
                        completeRwqe(e.receiveStatus(), WcOpcode.RECV, 0, 0, 0, 0, p, false);
                    }
                    endMessage();
                });
            }
            case NAK_AND_CONTINUE -> {
                // An EE context: the error is the message's QP's, not the context's (o9-107). The
                // rest of the message is dropped as out of sequence until the requester's RESYNC.
                sendAck(AethSyndrome.nak(e.nakCode()), p.bth().psn());
                rel.nakSent = true;
                QpContext owner = target.owner();
                boolean completes = rwqe != null && owner.state != io.rnic.verbs.QpState.ERR;
                Runnable completion = () -> {
                    if (completes) {
                        completeRwqe(e.receiveStatus(), WcOpcode.RECV, 0, 0, 0, 0, p, false);
                    }
                    rwqe = null;
                    rwqeQueue = null;
                    endMessage();
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
