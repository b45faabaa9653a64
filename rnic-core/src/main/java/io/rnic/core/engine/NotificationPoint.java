package io.rnic.core.engine;

import io.rnic.core.cc.CnpLimiter;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.Counter;

/**
 * DCQCN's notification point for one connected QP: a packet that arrives marked Congestion
 * Experienced is answered with a congestion notification packet (CNP) to the QP that sent it,
 * at most one per interval N ({@link CnpLimiter}), however many marks arrive.
 *
 * <p>The CNP is laid out as ConnectX NICs send it (RoCEv2, IBTA Annex A17; the ConnectX-4 Lx
 * capture in docs/icrc.md): BTH opcode 0x81, BECN set, the QP's P_Key, destination QP the data
 * sender's QP, PSN 0, then 16 reserved zero bytes and the ICRC. It leaves without ECN capability,
 * so that no switch marks it (the ConnectX-4 Lx capture carries ECT(0); the issue asks that CNPs
 * never be marked), with the configured DSCP (48, CS6, by default), on the QP's UDP flow. A CNP
 * for a READ's responses goes from the requester to the responder's QP the same way.
 */
final class NotificationPoint {
    private final QpContext qp;
    private final CnpLimiter limiter;
    /** DSCP in the upper six bits, ECN bits 00 (Not-ECT). */
    private final int tos;

    NotificationPoint(QpContext qp, long intervalNanos, int dscp) {
        this.qp = qp;
        this.limiter = new CnpLimiter(intervalNanos);
        this.tos = (dscp & 0x3F) << 2;
    }

    /** A CE-marked packet arrived for the QP: a CNP to its peer, unless one went less than N ago. */
    void marked() {
        if (!limiter.onCeMarked(qp.hca.scheduler().nanoTime())) {
            return;
        }
        Destination d = qp.addressing.replies();
        RocePacket p = qp.framer.start(OpcodeTable.of(0x81), 0, d);
        p.bth().becn(true);
        qp.hca.transmit(p.buffer(), p.offset(), p.length(), d.pseudo, qp.addressing.sourcePort(), d.remote, tos);
        qp.hca.counters().inc(Counter.NP_CNP_SENT);
    }
}
