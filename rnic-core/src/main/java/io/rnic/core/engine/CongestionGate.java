package io.rnic.core.engine;

import io.rnic.core.cc.CongestionControl;
import io.rnic.core.cc.CongestionControls;
import io.rnic.core.psn.Psn;
import io.rnic.core.time.Alarm;

/**
 * The last send gate, present only on a QP that runs congestion control: the packet the gates
 * before it admitted leaves only when the QP's {@link CongestionControl} allows
 * ({@link CongestionControl#earliestSend}). When it must wait, the gate sets the QP's one pacing
 * {@link Alarm} (re-armed, never re-created) to run the requester again at that instant; ACKs,
 * which run the requester too, may make it go sooner.
 *
 * <p>An admitted packet is reported to the scheme at once ({@link CongestionControl#onSend}):
 * nothing happens between the gate and the send on the protocol thread, so it leaves at that
 * instant. Every packet the requester's run sends passes here, first transmissions and
 * go-back-N retransmissions alike; the gate remembers when each first transmission left, by
 * PSN, for the RTT sample of the response that acknowledges it ({@link #rttSample}), and forgets
 * the time of a PSN sent again (its ACK would be ambiguous).
 *
 * <p>Allocates nothing per packet: the send-time ring is made once, at the QP's creation.
 */
final class CongestionGate implements SendGate {
    /** A RoCEv2 packet's bytes on an Ethernet link besides its payload: Ethernet 14 + FCS 4, IPv4 20, UDP 8, BTH 12, ICRC 4. */
    static final int FRAME_OVERHEAD = 62;
    /** The RETH of a READ request, and of a WRITE's first packet. */
    private static final int RETH = 16;

    private final QpContext qp;
    private final SendGate before;
    private final Alarm alarm;
    /** When each PSN in flight left (by PSN modulo the ring), -1 if unknown or resent; and which PSN the slot holds. */
    private final long[] sentAt;
    private final int[] sentPsn;
    private final int mask;
    private CongestionControl cc = CongestionControl.NONE;

    CongestionGate(QpContext qp, SendGate before, Runnable requester) {
        this.qp = qp;
        this.before = before;
        this.alarm = qp.hca.scheduler().alarm(requester);
        int n = Integer.highestOneBit(Math.max(1, Math.min(qp.hca.limits().sendWindow(), 1 << 14)) * 2 - 1);
        this.sentAt = new long[n];
        this.sentPsn = new int[n];
        this.mask = n - 1;
        java.util.Arrays.fill(sentAt, -1);
    }

    /** The requester starts (RTS): a fresh instance of the scheme at the port's line rate. */
    void start() {
        cc = CongestionControls.create(qp.ccScheme, qp.hca.lineRateBps());
        java.util.Arrays.fill(sentAt, -1);
    }

    /** The QP's scheme instance (for its rate, in plots and tests). */
    CongestionControl control() {
        return cc;
    }

    @Override
    public boolean admits(SendWqe w) {
        if (!before.admits(w)) {
            return false;
        }
        long now = qp.hca.scheduler().nanoTime();
        boolean readOrAtomic = w.kind.isReadOrAtomic();
        int bytes = readOrAtomic ? FRAME_OVERHEAD + RETH : FRAME_OVERHEAD + payload(w);
        long at = cc.earliestSend(now, bytes);
        if (at - now > 0) {
            alarm.set(at);
            return false;
        }
        cc.onSend(now, bytes);
        int psn;
        boolean resent;
        if (readOrAtomic) {
            resent = w.psnAssigned;
            psn = !resent ? qp.rel.sendWindow.next() : w.readRetryPsn >= 0 ? w.readRetryPsn : w.firstPsn;
        } else {
            resent = w.psnAssigned && w.nextPacket < w.reservedPackets;
            psn = w.psnAssigned ? Psn.add(w.firstPsn, w.nextPacket) : qp.rel.sendWindow.next();
        }
        int slot = psn & mask;
        sentPsn[slot] = psn;
        sentAt[slot] = resent ? -1 : now;
        return true;
    }

    /**
     * A READ response of {@code payload} bytes wants to leave: 0 if it may (it is reported to the
     * scheme as sent), else how long to wait. The responder's READ responses are the QP's data
     * too, paced by the same rate as its requests (DCQCN: the responder's QP is the reaction point
     * for the CNPs its READ responses' CE marks cause at the requester).
     */
    long responseWait(int payload) {
        long now = qp.hca.scheduler().nanoTime();
        int bytes = FRAME_OVERHEAD + 4 + payload; // the AETH of FIRST/LAST/ONLY, counted on all
        long at = cc.earliestSend(now, bytes);
        if (at - now > 0) {
            return at - now;
        }
        cc.onSend(now, bytes);
        return 0;
    }

    /** The payload of a SEND's or WRITE's next packet. */
    private int payload(SendWqe w) {
        long left = w.length() - (long) w.nextPacket * qp.mtu;
        return (int) Math.max(0, Math.min(qp.mtu, left));
    }

    /**
     * A response for {@code psn} arrived at {@code now}: the RTT since that PSN first left, or -1
     * if it was resent or its time is not known (a duplicate response, a PSN long gone). Each
     * departure gives at most one sample.
     */
    long rttSample(int psn, long now) {
        int slot = psn & mask;
        long t = sentAt[slot];
        if (t < 0 || sentPsn[slot] != psn) {
            return -1;
        }
        sentAt[slot] = -1;
        return now - t;
    }
}
