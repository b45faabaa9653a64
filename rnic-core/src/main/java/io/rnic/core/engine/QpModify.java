package io.rnic.core.engine;

import io.rnic.core.qp.QpTransitions;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;

/**
 * modify_qp for one QP (owner thread): validates a call against the transition table of
 * reference §6.2, applies the attributes, and starts or stops what the new state needs — the
 * responder at RTR, the requester and completer at RTS, the drain at SQD, the flush at ERR, the
 * clearing of every queue and PSN at RESET.
 */
final class QpModify {
    private final QpContext qp;

    QpModify(QpContext qp) {
        this.qp = qp;
    }

    void apply(QpAttributes a, int mask) {
        QpTransitions.validate(qp.policy.stateTable(), qp.state, a, mask, qp.hca.limits().qpLimits());
        QpState target = (mask & QpAttrMask.STATE) != 0 ? a.state() : qp.state;
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0) {
            qp.accessFlags = a.accessFlags();
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0) {
            qp.pkey = qp.hca.pkeys().get(a.pkeyIndex());
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0) {
            qp.mtu = a.pathMtu().bytes();
        }
        if ((mask & QpAttrMask.QKEY) != 0) {
            qp.qkey = a.qkey();
        }
        qp.attrs.copyFrom(a, mask);
        if (qp.state != QpState.RESET && qp.state != QpState.INIT) {
            qp.addressing.attributesChanged(qp.attrs, mask);
        }
        if ((mask & QpAttrMask.STATE) == 0) {
            qp.completer.attributesChanged();
            return;
        }
        QpState from = qp.state;
        switch (target) {
            case RESET -> reset();
            case INIT -> qp.state = QpState.INIT;
            case RTR -> {
                if (from == QpState.INIT) {
                    // Seed 002's extended protocol is RC with an SRETH on every packet: its own opcodes.
                    qp.transport = qp.attrs.lossRecovery() == io.rnic.verbs.LossRecovery.SELECTIVE
                            ? io.rnic.core.packet.Transport.SR : qp.policy.transport();
                    qp.addressing.onReadyToReceive(qp.attrs);
                    qp.responder.start(qp.attrs.rqPsn(), qp.attrs.maxDestRdAtomic());
                    qp.responderStarted = qp.keepsOwnPsns();
                }
                qp.state = QpState.RTR;
            }
            case RTS -> {
                if (from == QpState.RTR) {
                    qp.requester.start(qp.attrs.sqPsn());
                    qp.requesterStarted = qp.keepsOwnPsns();
                    qp.completer.start();
                }
                qp.state = QpState.RTS;
                qp.completer.attributesChanged();
                qp.sendDriver.run();
            }
            case SQD -> {
                qp.state = QpState.SQD;
                qp.sendDriver.drainRequested(qp.attrs.enSqdAsyncNotify());
            }
            case SQE -> qp.state = QpState.SQE;
            case ERR -> toError(null);
            default -> throw new IllegalStateException("unhandled target state " + target);
        }
    }

    /** To RESET: every queue emptied without completions, PSN and retry state cleared (reference §6.4). */
    void reset() {
        qp.state = QpState.RESET;
        qp.requesterStarted = false;
        qp.responderStarted = false;
        qp.sendDriver.stop();
        qp.requester.reset();
        qp.completer.reset();
        ReceiveQueue from = qp.responder.heldQueue(qp.rq);
        RecvWqe held = qp.responder.reset();
        SendQueue sq = qp.sq;
        synchronized (sq) {
            sq.clear();
        }
        from.qpReset(held);
    }

    /**
     * To ERR: the requester and responder stop, every outstanding send WQE and the receive side
     * flush (reference §6.4; on an SRQ the last-WQE event), and {@code event} (if set) is raised.
     */
    void toError(AsyncEvent.Type event) {
        toError(event, null);
    }

    /** As {@link #toError(AsyncEvent.Type)}, writing {@code errorCompletion} after the state change and before the flushes. */
    void toError(AsyncEvent.Type event, Runnable errorCompletion) {
        if (qp.state == QpState.ERR) {
            if (errorCompletion != null) {
                errorCompletion.run();
            }
            return;
        }
        qp.state = QpState.ERR;
        if (errorCompletion != null) {
            errorCompletion.run();
        }
        qp.completer.stop();
        ReceiveQueue from = qp.responder.heldQueue(qp.rq);
        RecvWqe held = qp.responder.stop();
        qp.sendDriver.stop();
        qp.completions.flushSend();
        qp.target.responderFailed(from, held);
        if (event != null) {
            qp.hca.raise(new AsyncEvent(event, qp.qpn, "QP 0x" + Integer.toHexString(qp.qpn) + " moved to ERR"));
        }
    }
}
