package io.rnic.core.engine;

import io.rnic.core.memory.AccessResult;
import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.memory.MemoryWindow;
import io.rnic.core.memory.RemoteKey;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.psn.Psn;
import io.rnic.core.psn.ResponderPsnWindow;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.Counter;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;

/**
 * What a responder does with a request it has already accepted (rxe's {@code duplicate_request})
 * and with a RESYNC: SENDs and WRITEs are acknowledged, never executed again; atomics, ATOMIC
 * WRITEs and FLUSHes are answered from their responder resource; a duplicate READ is re-read
 * from memory, for any part of the original's data.
 */
final class DuplicateRequests {
    private final QpContext qp;
    private final ReliabilityContext rel;
    private final ResponderPsnWindow window;
    private final ResponderResources resources;
    private final MessageTarget target;
    private final InboundMessage msg;
    private final InboundRequest req;
    private final ResponseSender responses;

    DuplicateRequests(QpContext qp, InboundMessage msg, InboundRequest req, ResponseSender responses) {
        this.qp = qp;
        this.rel = qp.rel;
        this.window = qp.rel.receiveWindow;
        this.resources = qp.rel.resources;
        this.target = qp.target;
        this.msg = msg;
        this.req = req;
        this.responses = responses;
    }

    /** DUPLICATE_REQUEST: answered again, executed again only if it is a READ. */
    Responder.State duplicate(RocePacket p) {
        int psn = p.bth().psn();
        Operation o = p.opcode().operation();
        if (o == Operation.SEND || o == Operation.RDMA_WRITE || o == Operation.RESYNC) {
            // C9-105: never re-execute; acknowledge with the most recently completed PSN (a
            // retried RESYNC: its own, as nothing can follow it until its ACK arrives).
            responses.sendAck(responses.ackSyndrome(), window.lastAccepted());
            return Responder.State.DONE;
        }
        ResponderResource r = resources.find(psn);
        if (r == null) {
            qp.hca.counters().inc(Counter.RCVD_DROPPED); // its resource was recycled: class D, drop
            return Responder.State.DONE;
        }
        if (r.atomic) {
            responses.sendAtomicAck(psn, r.original);
            return Responder.State.DONE;
        }
        if (r.answerOnly) { // a duplicate ATOMIC WRITE or FLUSH: answered again, not executed again
            responses.sendReadResponses(r, psn, 0, 0, null, null, 0);
            return Responder.State.DONE;
        }
        if (o != Operation.RDMA_READ_REQUEST) {
            qp.hca.counters().inc(Counter.RCVD_DROPPED);
            return Responder.State.DONE;
        }
        return rereadDuplicate(p, r);
    }

    /**
     * A duplicate READ is re-executed from memory, with responses from its own PSN; it may ask for
     * any subset of the original's data (seed 000 §3.3.2.1; rxe's check is the same): the same
     * R_Key, and an address range inside the original's. Anything else is invalid and dropped
     * silently (§3.3.2.2 rule 5).
     */
    private Responder.State rereadDuplicate(RocePacket p, ResponderResource r) {
        int psn = p.bth().psn();
        long va = p.reth().virtualAddress();
        long len = Integer.toUnsignedLong(p.reth().dmaLength());
        long off = va - r.va;
        if (p.reth().rkey() != r.rkey || Long.compareUnsigned(va, r.va) < 0 || Long.compareUnsigned(off, r.length) > 0
                || Long.compareUnsigned(len, r.length - off) > 0) {
            qp.hca.counters().inc(Counter.RCVD_DROPPED);
            return Responder.State.DONE;
        }
        RemoteKey remoteKey = req.remoteKey;
        MemoryRegion mr = null;
        MemoryWindow mw = null;
        long at = va;
        if (r.length > 0) {
            AccessResult check = qp.hca.keys().resolveRemote(r.rkey, r.pd, p.bth().destQp(), va, len, AccessFlags.REMOTE_READ, 1,
                    remoteKey);
            mr = remoteKey.mr;
            mw = remoteKey.mw;
            at = remoteKey.va;
            if (check != AccessResult.OK || !mr.isValid()) {
                qp.hca.counters().inc(Counter.RCVD_DROPPED);
                return Responder.State.DONE;
            }
        }
        responses.sendReadResponses(r, psn, at, len, mr, mw, remoteKey.mwGeneration);
        return Responder.State.DONE;
    }

    /**
     * RESYNC (seed 001 §9.7.8.5, 9.7.3.2.2): the requests {@code held} ahead of a hole are
     * forgotten, the message in progress, if any, is dropped (a receive WQE it took completes
     * flushed), the expected PSN moves past the RESYNC's, and it counts as a message, so its
     * ACK's MSN tells the requester whether the message before it had completed (9.7.8.6.1).
     */
    Responder.State resync(RocePacket p, ReceiveWindow held) {
        int psn = p.bth().psn();
        qp.hca.counters().inc(Counter.RD_RESYNCS_RECEIVED);
        held.clear();
        responses.interruptReads(false); // responses for PSNs the requester has moved past would be ghosts
        if (msg.rwqe != null) {
            if (target.owner().state != io.rnic.verbs.QpState.ERR) { // else its QP's flush completed it
                msg.completeRwqe(WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, p, false);
            }
            msg.letGo();
        }
        msg.end();
        window.reset(psn);
        window.advance(1);
        rel.msn = Psn.next(rel.msn);
        rel.nakSent = false;
        responses.sendAck(responses.ackSyndrome(), psn);
        return Responder.State.DONE;
    }
}
