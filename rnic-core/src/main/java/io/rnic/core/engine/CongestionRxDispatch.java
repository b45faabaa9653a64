package io.rnic.core.engine;

import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.Counter;

/**
 * The receive side of a QP that runs congestion control: each response (ACK, NAK, READ or atomic
 * response) gives its scheme an RTT sample (-1 where none can be taken) before the completer
 * sees it, and a CNP that passed {@link RxDispatch}'s checks cuts its rate (counted
 * {@code rp_cnp_handled}). A QP without congestion control has the plain {@link RxDispatch}, so
 * its receive path has no extra step.
 */
final class CongestionRxDispatch extends RxDispatch {
    CongestionRxDispatch(QpContext qp) {
        super(qp);
    }

    @Override
    void response(RocePacket p) {
        QpContext qp = qp();
        CongestionGate gate = qp.requester.congestion;
        if (gate != null) {
            long now = qp.hca.scheduler().nanoTime();
            gate.control().onAck(now, gate.rttSample(p.bth().psn(), now));
        }
        super.response(p);
    }

    @Override
    void cnpAccepted() {
        QpContext qp = qp();
        CongestionGate gate = qp.requester.congestion;
        if (gate == null) {
            super.cnpAccepted();
            return;
        }
        gate.control().onCnp(qp.hca.scheduler().nanoTime());
        qp.hca.counters().inc(Counter.RP_CNP_HANDLED);
    }
}
