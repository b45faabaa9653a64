package io.rnic.core.engine;

import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.memory.MemoryWindow;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.psn.Psn;
import io.rnic.core.psn.ResponderPsnWindow;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.Counter;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;

/**
 * The responder's execution of a request that passed its checks, per operation kind (rxe's
 * {@code execute}, {@code read_reply}, {@code atomic_reply} and {@code do_complete}): a SEND's
 * data placed in its receive WQE, a WRITE's in its region, a READ answered by the response
 * stream, an atomic executed and answered, an ATOMIC WRITE placed, a FLUSH made visible or
 * persistent; then the message's completion: MSN, receive CQE, SEND with Invalidate.
 */
final class RequestExecution {
    private final QpContext qp;
    private final ReliabilityContext rel;
    private final ResponderPsnWindow window;
    private final ResponderResources resources;
    private final MessageTarget target;
    private final InboundMessage msg;
    private final InboundRequest req;
    private final ResponseSender responses;
    /** The IP header of a datagram, written into the GRH area of its receive buffer. */
    private final Grh grh = new Grh();

    RequestExecution(QpContext qp, InboundMessage msg, InboundRequest req, ResponseSender responses) {
        this.qp = qp;
        this.rel = qp.rel;
        this.window = qp.rel.receiveWindow;
        this.resources = qp.rel.resources;
        this.target = qp.target;
        this.msg = msg;
        this.req = req;
        this.responses = responses;
    }

    /** EXECUTE: a SEND's or WRITE's data placed; a READ goes on to its reply. */
    Responder.State execute(RocePacket p) {
        Opcode op = p.opcode();
        int len = req.payloadLength(p);
        if (req.placedPayload >= 0) {
            return executePlaced(op, len);
        }
        return switch (op.operation()) {
            case SEND -> placeSend(p, len);
            case RDMA_WRITE -> placeWrite(p, len);
            case RDMA_READ_REQUEST -> Responder.State.READ_REPLY;
            default -> throw new IllegalStateException("no execution for " + op);
        };
    }

    /** A SEND's packet lands in its receive WQE, after the GRH area of a datagram's first. */
    private Responder.State placeSend(RocePacket p, int len) {
        if (msg.placed == 0 && msg.receiveHeaderLength() > 0) {
            if (!msg.rwqe.sgl.scatter(0, grh.build(req.ip(), p.length()), 0, Grh.LENGTH)) {
                return req.fail(ResponderError.RECEIVE_BUFFER); // deregistered mid-message
            }
            msg.placed = Grh.LENGTH;
        }
        if (len > 0 && !msg.rwqe.sgl.scatter(msg.placed, p.buffer(), p.payloadOffset(), len)) {
            return req.fail(ResponderError.RECEIVE_BUFFER); // deregistered mid-message
        }
        msg.placed += len;
        return Responder.State.COMPLETE;
    }

    /** A WRITE's packet lands in its region, while the grant its first packet was checked against stands. */
    private Responder.State placeWrite(RocePacket p, int len) {
        if (len > 0) {
            // Checked packet by packet: a region deregistered, or a window invalidated,
            // rebound or deallocated, since the WRITE began fails the rest of it (the old
            // key no longer grants access: reference §8.3, Remote Access Error). Both
            // changes run on this thread between packets.
            if (!io.rnic.core.memory.RemoteKey.stillGranted(msg.writeMr, msg.writeMw(), msg.writeMwGeneration)) {
                return req.fail(ResponderError.REMOTE_ACCESS);
            }
            msg.writeMr.write(msg.writeVa, p.buffer(), p.payloadOffset(), len);
        }
        msg.writeVa += len;
        msg.writeRemaining -= len;
        return Responder.State.COMPLETE;
    }

    /** A request whose data was placed on arrival: only the message's progress moves. */
    private Responder.State executePlaced(Opcode op, int len) {
        if (op.operation() == Operation.SEND) {
            msg.placed += len;
        } else {
            msg.writeVa += len;
            msg.writeRemaining -= len;
        }
        return Responder.State.COMPLETE;
    }

    /** READ_REPLY: the READ takes a responder resource and its responses start streaming. */
    Responder.State readReply(RocePacket p) {
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
        MemoryRegion mr = req.readMr;
        req.readMr = null;
        MemoryWindow mw = req.readMw;
        req.readMw = null;
        responses.sendReadResponses(r, psn, req.readVa, len, mr, mw, req.readMwGeneration);
        return Responder.State.DONE;
    }

    /** ATOMIC_REPLY: compare-and-swap or fetch-and-add, remembered in a responder resource, answered. */
    Responder.State atomicReply(RocePacket p) {
        int psn = p.bth().psn();
        long va = p.atomicEth().virtualAddress();
        MemoryRegion mr = req.atomicMr;
        req.atomicMr = null;
        long original;
        // Atomics on one device are serialised (reference §8.3).
        synchronized (qp.hca.atomicLock()) {
            original = p.opcode().operation() == Operation.COMPARE_SWAP
                    ? mr.compareAndSwap(req.atomicVa, p.atomicEth().compare(), p.atomicEth().swapAdd())
                    : mr.fetchAndAdd(req.atomicVa, p.atomicEth().swapAdd());
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
        responses.sendAtomicAck(psn, original);
        return Responder.State.DONE;
    }

    /**
     * ATOMIC_WRITE_REPLY (IBTA 1.5): the 8 payload bytes land at once, verbatim, serialised with
     * the device's other atomics; the answer is a READ RESPONSE ONLY without data, at the
     * request's PSN, and a responder resource remembers it so a duplicate is answered without
     * writing again.
     */
    Responder.State atomicWriteReply(RocePacket p) {
        int psn = p.bth().psn();
        MemoryRegion mr = req.atomicMr;
        req.atomicMr = null;
        long bytes = p.buffer().getLongLE(p.payloadOffset()); // memory order on both ends: no swap
        synchronized (qp.hca.atomicLock()) {
            mr.putLong(req.atomicVa, bytes);
        }
        qp.hca.counters().inc(Counter.ATOMIC_WRITES_EXECUTED);
        answerWithoutData(psn);
        return Responder.State.DONE;
    }

    /**
     * FLUSH_REPLY (IBTA 1.5): every earlier request of this QP has been executed by the time this
     * one is (the responder runs them in PSN order, writing through to the region's memory), so
     * global visibility needs only a fence; persistence forces a mapped file's pages to storage.
     * Answered as an ATOMIC WRITE is.
     */
    Responder.State flushReply(RocePacket p) {
        int psn = p.bth().psn();
        MemoryRegion mr = req.atomicMr;
        req.atomicMr = null;
        java.lang.invoke.VarHandle.fullFence();
        if ((p.feth().placementType() & 2) != 0) {
            boolean whole = p.feth().selectivity() == 1;
            mr.persist(p.reth().virtualAddress(), whole ? -1 : Integer.toUnsignedLong(p.reth().dmaLength()));
        }
        qp.hca.counters().inc(Counter.FLUSHES_EXECUTED);
        answerWithoutData(psn);
        return Responder.State.DONE;
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
        responses.sendReadResponses(r, psn, 0, 0, null, null, 0);
    }

    /**
     * COMPLETE: the PSN advances; at a message's last packet the MSN does, and a SEND or a WRITE
     * with immediate completes its receive WQE (a SEND with Invalidate invalidates its key first).
     */
    Responder.State complete(RocePacket p) {
        Opcode op = p.opcode();
        window.advance(1);
        if (!op.position().endsMessage()) {
            msg.operation = op.operation();
            return Responder.State.ACKNOWLEDGE;
        }
        rel.msn = Psn.next(rel.msn);
        if (op.operation() == Operation.SEND) {
            int flags = msg.receiveHeaderLength() > 0 ? WorkCompletion.WITH_GRH : 0;
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
                responses.acknowledge(p);
                boolean se = p.bth().solicited();
                qp.failWith(AsyncEvent.Type.QP_ACCESS_ERR, () -> {
                    msg.completeRwqe(WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, 0, 0, 0, 0, p, se);
                    msg.end();
                });
                return Responder.State.DONE;
            }
            msg.completeRwqe(WcStatus.SUCCESS, WcOpcode.RECV, (int) msg.placed, flags, imm, inv, p, p.bth().solicited());
        } else if (op.hasImmediate()) {
            if (msg.rwqe == null) { // UC may hold one a dropped message took
                msg.takeRwqe();
            }
            msg.completeRwqe(WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, (int) msg.writeLength, WorkCompletion.WITH_IMM,
                    p.immDt().immediate(), 0, p, p.bth().solicited());
        }
        msg.end();
        return Responder.State.ACKNOWLEDGE;
    }
}
