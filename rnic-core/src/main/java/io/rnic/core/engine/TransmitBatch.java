package io.rnic.core.engine;

import io.netty.buffer.ByteBuf;
import io.rnic.core.packet.RocePacket;

/**
 * How a requester's run of packets leaves: each packet that does not ask for an ACK is held
 * back until the run's next one (then it leaves as it is) or the run's end (then it asks for
 * one), so a run ends asking for an ACK wherever it stops; the run's first packets leave early
 * as one train when the responder would otherwise sit idle; the ACK timer restarts once per
 * run, not per packet.
 */
final class TransmitBatch {
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

    private final QpContext qp;
    private final ReliabilityContext rel;
    /** The held-back last packet of a message ({@link #defer}), its place in its buffer, and its flow. */
    private ByteBuf deferred;
    private int deferredOffset;
    private int deferredLength;
    private Destination deferredTo;
    /** True while a run sends: only a run knows where it ends. */
    private boolean inRun;
    /** A run sent a packet that restarts the local ACK timer. */
    private boolean sentInRun;
    /** Packets this run put on the wire, and the count at which it flushes early (0: it does not). */
    private int packetsInRun;
    private int earlyTrainAt;

    TransmitBatch(QpContext qp) {
        this.qp = qp;
        this.rel = qp.rel;
    }

    /**
     * A run starts with {@code inFlight} PSNs unacknowledged. Unacknowledged transports keep
     * nothing in flight (a PSN leaves the window as it leaves the HCA): their requester never
     * waits on the responder, so it has no idle one to feed an early train.
     */
    void startRun(int inFlight) {
        inRun = true;
        packetsInRun = 0;
        earlyTrainAt = qp.policy.ack().acked() && inFlight < EARLY_TRAIN ? EARLY_TRAIN : 0;
    }

    /** The run ends: its last packet asks for an ACK, and the ACK timer restarts if it sent any. */
    void endRun() {
        inRun = false;
        sendDeferred(true); // the run's last packet: nothing follows it now, so it asks for an ACK
        earlyTrainAt = 0;
        if (sentInRun) {
            // One clock read per run, not per packet (a tenth of a 64-byte SEND's cost on UDP):
            // the run's packets leave within microseconds, and the timer counts from the last.
            sentInRun = false;
            qp.completer.packetSent();
        }
    }

    /** True while a run sends: a packet may be held back for its AckReq bit. */
    boolean inRun() {
        return inRun;
    }

    /** A packet that restarts the ACK timer went out: at the end of the run, or now outside one. */
    void timedPacketSent() {
        if (inRun) {
            sentInRun = true; // the ACK timer restarts once, when the run ends
        } else {
            qp.completer.packetSent();
        }
    }

    /** Sends a request packet; one held back for its AckReq bit ({@link #defer}) leaves first. */
    void transmit(RocePacket p, Destination d) {
        sendDeferred(false);
        qp.framer.transmit(p, d);
        sentOne();
    }

    /**
     * The application waits for the message whose last packet just left, with {@code queuedBehind}
     * WQEs behind it: if that queue is short it will soon wait on it, so the packet leaves now,
     * not at the end of the cycle, and its ACK's round trip overlaps the rest of the burst.
     * (Behind a long queue the window, not the application, sets the pace, and a split train
     * would only cost another system call on both ends.)
     */
    void awaited(long queuedBehind, int windowLimit) {
        if (queuedBehind < windowLimit / 2) {
            qp.hca.sink().flushNow();
        }
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
    void defer(RocePacket p, Destination d) {
        sendDeferred(false);
        deferred = p.buffer();
        deferredOffset = p.offset();
        deferredLength = p.length();
        deferredTo(d);
    }

    /**
     * A QP's packets go to one destination, packet after packet, and a reference store into this
     * long-lived object costs G1's post-write barrier even when the value is the one already
     * there: an unchanged destination is not stored again.
     */
    private void deferredTo(Destination d) {
        if (deferredTo != d) {
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
}
