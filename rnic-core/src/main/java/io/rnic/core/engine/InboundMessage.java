package io.rnic.core.engine;

import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.memory.MemoryWindow;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;

/**
 * The message a responder is in the middle of (rxe's {@code qp->resp} for one message): its
 * operation once its first packet is in, the receive WQE it holds and how much of it is placed,
 * and for a WRITE the region (or window grant) and address its next packet lands at. It spans the
 * message's packets; what one request packet resolved is its {@link InboundRequest}'s.
 */
final class InboundMessage {
    private final QpContext qp;
    private final MessageTarget target;

    /** The operation of the message whose later packets are expected, or null between messages. */
    Operation operation;
    /** The receive WQE the message holds (a SEND's, a WRITE with immediate's), or one kept for the next (UC). */
    RecvWqe rwqe;
    /** The queue {@link #rwqe} was taken from. */
    ReceiveQueue rwqeQueue;
    /** Bytes of a SEND placed in the receive WQE so far (its GRH included). */
    long placed;
    /** The region a WRITE in progress lands in (null for length 0). */
    MemoryRegion writeMr;
    /**
     * The memory window a WRITE in progress was granted through (null for a region's key), and
     * its generation then: the WRITE's later packets land only while that grant stands.
     */
    private MemoryWindow writeMw;
    int writeMwGeneration;
    long writeVa;
    long writeRemaining;
    long writeLength;
    /** Receive WQEs taken since RTR: which one a request's SRETH names is relative to this. */
    long rwqesTaken;

    InboundMessage(QpContext qp) {
        this.qp = qp;
        this.target = qp.target;
    }

    /** The window the WRITE in progress was granted through, or null. */
    MemoryWindow writeMw() {
        return writeMw;
    }

    /**
     * A WRITE starts: its packets land from {@code va} in {@code mr}, granted through {@code mw}
     * (null for a region's key) at generation {@code mwGeneration}, {@code length} bytes in all.
     */
    void startWrite(MemoryRegion mr, MemoryWindow mw, int mwGeneration, long va, long length) {
        writeMr = mr;
        setWriteMw(mw);
        writeMwGeneration = mwGeneration;
        writeVa = va;
        writeRemaining = length;
        writeLength = length;
    }

    /**
     * A reference store into this long-lived object costs G1's post-write barrier (a card-table
     * check, a fence when it crosses regions) even when the value is the one already there; a
     * message after message through regions stores null over null, so an unchanged window is not
     * stored again.
     */
    private void setWriteMw(MemoryWindow mw) {
        if (writeMw != mw) {
            writeMw = mw;
        }
    }

    /**
     * Ends the message in progress. A receive WQE it holds is not touched: it is completed with
     * {@link #completeRwqe}, or kept for the next message after a dropped one (UC).
     */
    void end() {
        operation = null;
        placed = 0;
        writeMr = null; // not held between packets: nothing to release
        setWriteMw(null);
        writeRemaining = 0;
        writeLength = 0;
    }

    /**
     * Gives up the message in progress without completing it (UC): a receive WQE it had taken
     * is kept, emptied, for the next message.
     */
    void abandon() {
        if (rwqe != null) {
            rwqe.sgl.release(); // the next message resolves its buffers again
        }
        end();
    }

    /** Lets go of the receive WQE without completing it; returns it, or null if none was held. */
    RecvWqe letGo() {
        RecvWqe held = rwqe;
        rwqe = null;
        rwqeQueue = null;
        return held;
    }

    /** Takes a receive WQE for the message that is starting (checked available). */
    void takeRwqe() {
        rwqeQueue = target.queue();
        rwqe = rwqeQueue.take();
        rwqesTaken++;
    }

    /**
     * The receive WQE a SEND whose SRETH names receive WQE number {@code n} (counted from 0 at
     * RTR) uses, for placing its data on arrival: the one held for the message in progress, or
     * one posted and not yet taken; null if it cannot be known yet.
     */
    RecvWqe rwqeNumbered(long n) {
        long k = n - rwqesTaken;
        if (k == -1) {
            return rwqe;
        }
        return k >= 0 && k < Integer.MAX_VALUE ? target.queue().peek((int) k) : null;
    }

    /** Completes the receive WQE the message holds and lets it go back to its queue. */
    void completeRwqe(WcStatus status, WcOpcode opcode, int byteLen, int flags, int imm, int inv, RocePacket p,
                      boolean solicited) {
        RecvWqe w = rwqe;
        ReceiveQueue from = rwqeQueue;
        rwqe = null;
        rwqeQueue = null;
        target.owner().completions.completeRecv(w, from, status, opcode, byteLen, flags, imm, inv, sourceQp(p), solicited);
    }

    /** The sender's QP number: DETH's for a datagram, the peer's for a connected QP. */
    private int sourceQp(RocePacket p) {
        return p.opcode().has(Header.DETH) ? p.deth().srcQp() : qp.addressing.peerQpn();
    }

    /** The bytes a receive buffer holds before a SEND's payload: 40 for a datagram's GRH. */
    int receiveHeaderLength() {
        return qp.policy.receiveLayout() == TransportPolicy.ReceiveLayout.GRH_THEN_PAYLOAD ? Grh.LENGTH : 0;
    }
}
