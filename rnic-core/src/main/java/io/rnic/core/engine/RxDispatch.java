package io.rnic.core.engine;

import io.rnic.core.hca.QpEndpoint;
import io.rnic.core.memory.PKeyTable;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.Counter;
import io.rnic.verbs.QpState;

/**
 * The checks a packet passes between the HCA's QP lookup and the engines, in rxe's order
 * (reference §8.4–8.6): the opcode's transport is the QP's and the QP's state takes the packet
 * (requests from RTR on, responses from RTS on), the source is one the QP's addressing accepts
 * (a connected QP's peer; anyone for a datagram QP), the P_Key matches, and a DETH's Q_Key is
 * the QP's, and the QP has the half the packet is for (an XRC initiator takes no requests, a
 * target no responses). Each failure is a silent drop with its counter.
 *
 * <p>Two congestion signals reach the QP here too: a packet a switch marked Congestion
 * Experienced in its IP ECN field (counted {@code np_ecn_marked_roce_packets}), and a congestion
 * notification packet (CNP, opcode 0x81, RoCEv2 Annex A17) naming this QP, from its peer and with
 * its P_Key (counted {@code rp_cnp_ignored} until the QP's congestion control reacts to them).
 */
final class RxDispatch implements QpEndpoint {
    private final QpContext qp;

    RxDispatch(QpContext qp) {
        this.qp = qp;
    }

    @Override
    public void receive(RocePacket p, PseudoHeader ip) {
        var counters = qp.hca.counters();
        QpState s = qp.state;
        if (p.opcode().transport() == io.rnic.core.packet.Transport.CNP) {
            receiveCnp(p, ip, s);
            return;
        }
        boolean response = p.opcode().isResponse();
        boolean stateTakesIt = response
                ? s == QpState.RTS || s == QpState.SQD || s == QpState.SQE
                : s == QpState.RTR || s == QpState.RTS || s == QpState.SQD || s == QpState.SQE;
        TransportPolicy.Sides sides = qp.policy.sides();
        if (p.opcode().transport() != qp.transport || !stateTakesIt
                || !sides.takes(response)) { // an XRC QP has one half only; an RD QP's are its EE contexts'
            counters.inc(Counter.RCVD_WRONG_QP_STATE_OR_TYPE);
            return;
        }
        if (!qp.addressing.accepts(ip)) {
            counters.inc(Counter.RCVD_ADDR_MISMATCH);
            return;
        }
        if (!PKeyTable.matches(p.bth().pkey(), qp.pkey)) {
            counters.inc(Counter.BAD_PKEY_CNTR);
            return;
        }
        if (qp.policy.headers().carriesQkey() && p.deth().qkey() != qp.qkey) {
            counters.inc(Counter.QKEY_VIOL_CNTR);
            return;
        }
        if ((ip.tos() & io.rnic.core.wire.PacketSink.ECN_MASK) == io.rnic.core.wire.PacketSink.CE && ip.tos() >= 0) {
            counters.inc(Counter.NP_ECN_MARKED_ROCE_PACKETS);
        }
        if (response) {
            qp.completer.onResponse(p);
        } else {
            qp.addressing.requestFrom(p);
            qp.responder.onRequest(p, ip);
        }
    }

    /** A CNP for this QP: taken from the QP's peer, with its P_Key, while the QP sends. */
    private void receiveCnp(RocePacket p, PseudoHeader ip, QpState s) {
        var counters = qp.hca.counters();
        boolean sends = s == QpState.RTS || s == QpState.SQD || s == QpState.SQE;
        if (!sends) {
            counters.inc(Counter.RCVD_WRONG_QP_STATE_OR_TYPE);
        } else if (!qp.addressing.accepts(ip)) {
            counters.inc(Counter.RCVD_ADDR_MISMATCH);
        } else if (!PKeyTable.matches(p.bth().pkey(), qp.pkey)) {
            counters.inc(Counter.BAD_PKEY_CNTR);
        } else {
            counters.inc(Counter.RP_CNP_IGNORED);
        }
    }

    /** The QP (or EE context) this endpoint hands packets to. */
    QpContext qp() {
        return qp;
    }

    /** The context of number {@code n} on {@code hca}, or {@code null}. */
    static QpContext context(io.rnic.core.hca.Hca hca, int n) {
        return hca.endpoint(n) instanceof RxDispatch r ? r.qp : null;
    }
}
