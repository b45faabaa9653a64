package io.rnic.core.engine;

import io.rnic.core.memory.AccessResult;
import io.rnic.core.memory.MemoryAccess;
import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.memory.RemoteKey;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.Position;
import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.AccessFlags;

/**
 * The responder's checks of a request whose PSN it accepted, in the specification's order and all
 * before memory is touched (rxe's {@code check_op_seq} ... {@code check_rkey}): opcode sequence,
 * target queue, operation allowed, resources, lengths, R_Key. Each returns the next state of the
 * {@link Responder}, or {@link Responder.State#ERROR} with the {@link ResponderError} recorded
 * in the {@link InboundRequest}.
 */
final class RequestChecks {
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

    private final QpContext qp;
    private final MessageTarget target;
    private final ResponderResources resources;
    private final InboundMessage msg;
    private final InboundRequest req;

    RequestChecks(QpContext qp, InboundMessage msg, InboundRequest req) {
        this.qp = qp;
        this.target = qp.target;
        this.resources = qp.rel.resources;
        this.msg = msg;
        this.req = req;
    }

    /** The access a FLUSH of placement type {@code plt} needs, of the QP and of the region (rxe). */
    static int flushAccess(int plt) {
        return ((plt & 1) != 0 ? AccessFlags.FLUSH_GLOBAL : 0) | ((plt & 2) != 0 ? AccessFlags.FLUSH_PERSISTENT : 0);
    }

    /** Operations that take a responder resource and answer with data or an atomic ACK. */
    private static boolean takesResource(Operation o) {
        return o == Operation.RDMA_READ_REQUEST || o == Operation.COMPARE_SWAP || o == Operation.FETCH_ADD
                || o == Operation.ATOMIC_WRITE || o == Operation.FLUSH;
    }

    /** Does this packet take a receive WQE: the start of a SEND, or the end of a WRITE with immediate. */
    private static boolean needsRwqe(Opcode op) {
        Operation o = op.operation();
        return (o == Operation.SEND && op.position().startsMessage())
                || (o == Operation.RDMA_WRITE && op.hasImmediate());
    }

    /** CHK_OP_SEQ: a message starts only between messages, and goes on with its own operation. */
    Responder.State opSequence(RocePacket p) {
        Opcode op = p.opcode();
        Position pos = op.position();
        if (msg.operation != null) {
            if (pos.startsMessage() || op.operation() != msg.operation) {
                return req.fail(ResponderError.OPCODE_SEQUENCE);
            }
        } else if (!pos.startsMessage()) {
            return req.fail(ResponderError.OPCODE_SEQUENCE);
        }
        return Responder.State.CHK_TARGET;
    }

    /** CHK_TARGET: which receive queue, PD and CQ the message uses: the QP's, or the XRC SRQ it names. */
    Responder.State target(RocePacket p) {
        ResponderError e = p.opcode().position().startsMessage() ? target.select(p) : target.confirm(p);
        return e == null ? Responder.State.CHK_OP_VALID : req.fail(e);
    }

    /** CHK_OP_VALID: the QP (an RD QP: its own rights) allows the operation. */
    Responder.State opValid(RocePacket p) {
        Operation o = p.opcode().operation();
        int need = o == Operation.FLUSH ? flushAccess(p.feth().placementType()) : REQUIRED_QP_ACCESS[o.ordinal()];
        if (need < 0 || (need != 0 && (target.owner().accessFlags & need) == 0)) { // an RD QP's own rights
            return req.fail(ResponderError.OPERATION_NOT_ALLOWED);
        }
        return Responder.State.CHK_RESOURCE;
    }

    /** CHK_RESOURCE: a receive WQE for a message that takes one, a responder resource for a READ or atomic. */
    Responder.State resource(RocePacket p) {
        Opcode op = p.opcode();
        if (needsRwqe(op) && msg.rwqe == null && target.queue().available() == 0) {
            return Responder.State.RNR;
        }
        if (takesResource(op.operation()) && resources.depth() == 0) {
            return req.fail(ResponderError.NO_RESPONDER_RESOURCES);
        }
        return Responder.State.CHK_LENGTH;
    }

    /** CHK_LENGTH: the payload fits the packet's place in the message, the RETH's length the operation. */
    Responder.State length(RocePacket p) {
        Opcode op = p.opcode();
        int len = req.payloadLength(p);
        int mtu = qp.mtu;
        if (op.hasPayload()) {
            boolean ok = switch (op.position()) {
                case FIRST, MIDDLE -> len == mtu;
                case LAST -> len >= 1 && len <= mtu;
                case ONLY -> len <= mtu;
            };
            if (!ok) {
                return req.fail(ResponderError.LENGTH);
            }
        }
        if (op.operation() == Operation.FLUSH && (p.feth().selectivity() > 1
                || (p.feth().placementType() & ~PLACEMENT_DEFINED) != 0)) {
            return req.fail(ResponderError.RESERVED_FIELD);
        }
        if (op.has(Header.RETH)) {
            long dma = Integer.toUnsignedLong(p.reth().dmaLength());
            if (dma > (1L << 31)) {
                return req.fail(ResponderError.LENGTH);
            }
            if (op.operation() == Operation.ATOMIC_WRITE && (dma != 8 || len != 8)) {
                return req.fail(ResponderError.LENGTH);
            }
            if (op.operation() == Operation.RDMA_WRITE) {
                boolean ok = op.position() == Position.ONLY ? len == dma : len <= dma;
                if (!ok) {
                    return req.fail(ResponderError.LENGTH);
                }
            }
        } else if (op.operation() == Operation.RDMA_WRITE) {
            boolean ok = op.position() == Position.LAST ? len == msg.writeRemaining : len < msg.writeRemaining;
            if (!ok) {
                return req.fail(ResponderError.LENGTH);
            }
        }
        return Responder.State.CHK_RKEY;
    }

    /**
     * CHK_RKEY: the R_Key of a WRITE's first packet, a READ, an atomic, an ATOMIC WRITE or a
     * FLUSH grants the access; a SEND's receive WQE has room for it.
     */
    Responder.State rkey(RocePacket p) {
        Opcode op = p.opcode();
        Operation o = op.operation();
        if (o == Operation.RDMA_WRITE || o == Operation.RDMA_READ_REQUEST) {
            if (!op.has(Header.RETH)) {
                return Responder.State.EXECUTE; // WRITE MIDDLE/LAST: checked at FIRST
            }
            long va = p.reth().virtualAddress();
            long len = Integer.toUnsignedLong(p.reth().dmaLength());
            int access = o == Operation.RDMA_WRITE ? AccessFlags.REMOTE_WRITE : AccessFlags.REMOTE_READ;
            RemoteKey remoteKey = req.remoteKey;
            MemoryRegion mr = null;
            long at = va;
            if (len > 0) { // zero-length transfers name no memory and are not checked (C9-88)
                // An MR's key, or a memory window's translated onto its region (reference §8.3).
                AccessResult r = qp.hca.keys().resolveRemote(p.reth().rkey(), target.pd(), target.owner().qpn, va, len, access, 1,
                        remoteKey);
                mr = remoteKey.mr;
                at = remoteKey.va;
                if (r != AccessResult.OK || !mr.isValid()) {
                    return req.fail(ResponderError.REMOTE_ACCESS);
                }
            }
            if (o == Operation.RDMA_WRITE) {
                msg.startWrite(mr, len > 0 ? remoteKey.mw : null, remoteKey.mwGeneration, at, len);
            } else {
                req.readMr = mr;
                req.readVa = at;
                req.readMw = len > 0 ? remoteKey.mw : null;
                req.readMwGeneration = remoteKey.mwGeneration;
            }
            return Responder.State.EXECUTE;
        }
        if (o == Operation.ATOMIC_WRITE) {
            return eightBytes(p.reth().rkey(), p.reth().virtualAddress(), AccessFlags.REMOTE_WRITE,
                    Responder.State.ATOMIC_WRITE_REPLY);
        }
        if (o == Operation.FLUSH) {
            // The R_Key is checked even for a zero-length range; a whole-region FLUSH ignores the RETH's range.
            MemoryRegion mr = qp.hca.keys().lookup(p.reth().rkey());
            boolean wholeRegion = p.feth().selectivity() == 1;
            long va = wholeRegion && mr != null ? mr.va() : p.reth().virtualAddress();
            long len = wholeRegion ? 0 : Integer.toUnsignedLong(p.reth().dmaLength());
            AccessResult r = MemoryAccess.check(mr, target.pd(), va, len, flushAccess(p.feth().placementType()), 1);
            if (r != AccessResult.OK || !mr.isValid()) {
                return req.fail(ResponderError.REMOTE_ACCESS);
            }
            req.atomicMr = mr;
            return Responder.State.FLUSH_REPLY;
        }
        if (o == Operation.COMPARE_SWAP || o == Operation.FETCH_ADD) {
            return eightBytes(p.atomicEth().rkey(), p.atomicEth().virtualAddress(), AccessFlags.REMOTE_ATOMIC,
                    Responder.State.ATOMIC_REPLY);
        }
        // SEND: the receive WQE's own buffers and size.
        if (op.position().startsMessage()) {
            if (msg.rwqe == null) { // UC may reuse an abandoned one
                msg.takeRwqe();
            }
            msg.placed = 0;
            AccessResult r = msg.rwqe.sgl.resolve(qp.hca.keys(), msg.rwqeQueue.pd(), AccessFlags.LOCAL_WRITE);
            if (r != AccessResult.OK) {
                return req.fail(ResponderError.RECEIVE_BUFFER);
            }
        }
        if (msg.placed + msg.receiveHeaderLength() + req.payloadLength(p) > msg.rwqe.sgl.totalLength()) {
            return req.fail(ResponderError.RECEIVE_TOO_SHORT);
        }
        return Responder.State.EXECUTE;
    }

    /**
     * The 8-byte target of an atomic or ATOMIC WRITE: aligned (else Invalid Request, as rxe), then
     * the R_Key (a region's, or a window's translated) with {@code access}; checked valid for the execution.
     */
    private Responder.State eightBytes(int rkey, long va, int access, Responder.State next) {
        if ((va & 7) != 0) {
            return req.fail(ResponderError.MISALIGNED_ATOMIC);
        }
        RemoteKey remoteKey = req.remoteKey;
        AccessResult r = qp.hca.keys().resolveRemote(rkey, target.pd(), target.owner().qpn, va, 8, access, 8, remoteKey);
        if (r != AccessResult.OK) {
            return req.fail(r == AccessResult.MISALIGNED ? ResponderError.MISALIGNED_ATOMIC : ResponderError.REMOTE_ACCESS);
        }
        if (!remoteKey.mr.isValid()) {
            return req.fail(ResponderError.REMOTE_ACCESS);
        }
        req.atomicMr = remoteKey.mr;
        req.atomicVa = remoteKey.va;
        return next;
    }
}
