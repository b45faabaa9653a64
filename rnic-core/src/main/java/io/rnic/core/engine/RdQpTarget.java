package io.rnic.core.engine;

import io.rnic.core.memory.ProtectionDomain;
import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.Counter;
import io.rnic.verbs.QpState;

/**
 * An EE context's message target (seed 001 §9.7.8.2.2, inbound steps 2–4): the RD QP the first
 * or only packet's BTH names. It must be an RD QP of the context's reliable datagram domain,
 * able to receive, whose Q_Key the DETH carries; anything else is refused with NAK Invalid RD
 * Request (9.7.8.1), which concerns that QP and not the context. Its protection domain, receive
 * queue and access rights serve the whole message, as the copy into the EE context the seed
 * describes does, so other contexts may meanwhile take the QP's next receive WQEs.
 */
final class RdQpTarget implements MessageTarget {
    private final QpContext eec;
    private QpContext qp;

    RdQpTarget(QpContext eec) {
        this.eec = eec;
    }

    @Override
    public ResponderError select(RocePacket p) {
        QpContext named = RxDispatch.context(eec.hca, p.bth().destQp());
        qp = null;
        if (named == null || named.policy != TransportPolicy.RD || !receives(named.state)) {
            eec.hca.counters().inc(Counter.RD_INVALID_REQUESTS);
            return ResponderError.INVALID_RD_REQUEST;
        }
        if (named.rdd != eec.rdd) {
            eec.hca.counters().inc(Counter.RD_RDD_VIOLATIONS);
            return ResponderError.INVALID_RD_REQUEST;
        }
        if (p.deth().qkey() != named.qkey) {
            eec.hca.counters().inc(Counter.QKEY_VIOL_CNTR);
            return ResponderError.INVALID_RD_REQUEST;
        }
        qp = named;
        return null;
    }

    private static boolean receives(QpState s) {
        return s == QpState.RTR || s == QpState.RTS || s == QpState.SQD || s == QpState.SQE;
    }

    @Override
    public ResponderError confirm(RocePacket p) {
        if (qp == null || p.bth().destQp() != qp.qpn || p.deth().qkey() != qp.qkey) {
            eec.hca.counters().inc(Counter.RD_INVALID_REQUESTS);
            return ResponderError.INVALID_RD_REQUEST;
        }
        return null;
    }

    @Override
    public ReceiveQueue queue() {
        return qp != null ? qp.rq : NoReceiveQueue.INSTANCE;
    }

    @Override
    public ProtectionDomain pd() {
        return qp != null ? qp.pd : null;
    }

    @Override
    public QpContext owner() {
        return qp != null ? qp : eec;
    }

    @Override
    public void responderFailed(ReceiveQueue from, RecvWqe held) {
        if (held != null && qp != null) {
            qp.completions.flushRecv(held, from); // the RD QP itself carries on (o9-107)
        }
    }
}
