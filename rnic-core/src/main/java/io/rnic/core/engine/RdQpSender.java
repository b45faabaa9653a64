package io.rnic.core.engine;

import io.rnic.core.time.Scheduler;
import io.rnic.verbs.QpState;
import io.rnic.verbs.WcStatus;

/**
 * An RD QP's send side (seed 001 §9.7.8.2.1, steps 2 and 9): the WQE at the head of its send
 * queue is queued on the EE context it names; when that message completes, the QP leaves the
 * context and its next WQE is queued on that one's context, at the tail. So the QP has one
 * message outstanding at a time (o9-103) and its WQEs complete in order (o9-113), and a QP whose
 * message an RNR NAK suspended waits out the timer off every context.
 */
final class RdQpSender implements SendDriver {
    private final QpContext qp;
    /** The EE context the QP is queued on or sending through, or {@code null}. */
    private QpContext linkedTo;
    /** Waiting out an RNR NAK's timer (its message suspended). */
    private Scheduler.Timer suspension;
    /** SQD asked for SQ_DRAINED, not raised yet. */
    private boolean drainNotify;

    RdQpSender(QpContext qp) {
        this.qp = qp;
    }

    @Override
    public void run() {
        if (linkedTo != null || suspension != null) {
            return;
        }
        QpState s = qp.state;
        if (s == QpState.SQE) {
            qp.completions.flushSend(); // the send queue is in error until moved back to RTS
            return;
        }
        if (s != QpState.RTS) {
            return; // SQD starts nothing new; with one message at a time, nothing is under way
        }
        SendWqe w = head();
        if (w == null) {
            return;
        }
        QpContext eec = RxDispatch.context(qp.hca, w.eecn);
        if (eec == null || eec.ee == null) {
            fail(w, WcStatus.INV_EECN_ERR); // destroyed since the post
            return;
        }
        linkedTo = eec;
        eec.ee.enqueue(qp);
    }

    /** The oldest uncompleted send WQE, or {@code null}. */
    SendWqe head() {
        SendQueue sq = qp.sq;
        return sq.completed() < sq.posted() ? sq.at(sq.completed()) : null;
    }

    /**
     * The context dropped the QP from its list without carrying its message: it had none, or
     * is in SQD, which starts nothing new (its return to RTS queues it again).
     */
    void unlink() {
        linkedTo = null;
        checkDrained();
    }

    /**
     * Writes {@code w}'s completion with {@code status}. An error puts the send queue in error
     * (SQE) first, so an application that polls the error never reads a stale state, and the
     * WQEs after it are flushed; the QP then leaves the context and queues its next message.
     */
    void complete(SendWqe w, WcStatus status) {
        complete(w, status, 0);
    }

    /** As {@link #complete(SendWqe, WcStatus)}, with an error completion's {@code vendor_err}. */
    void complete(SendWqe w, WcStatus status, int vendorErr) {
        boolean failed = status != WcStatus.SUCCESS;
        boolean toSqe = failed && (qp.state == QpState.RTS || qp.state == QpState.SQD);
        if (toSqe) {
            qp.state = QpState.SQE;
        }
        if (w != null) {
            qp.completions.completeSend(w, status, vendorErr);
        }
        if (toSqe) {
            qp.completions.flushSend();
        }
        linkedTo = null;
        checkDrained();
        run();
    }

    /** Its message was suspended by an RNR NAK: the QP is off every context for {@code delayNanos}. */
    void suspend(long delayNanos) {
        linkedTo = null;
        checkDrained();
        suspension = qp.hca.scheduler().schedule(delayNanos, () -> {
            suspension = null;
            run();
        });
    }

    /** A suspended message turned out complete (9.7.8.6.1): the QP need not wait any longer. */
    void resume() {
        if (suspension != null) {
            suspension.cancel();
            suspension = null;
        }
        if (linkedTo != null && linkedTo.ee != null) {
            linkedTo.ee.withdraw(qp);
            linkedTo = null;
        }
    }

    @Override
    public void stop() {
        resume();
        drainNotify = false;
    }

    /**
     * SQD: nothing new starts (run() waits for RTS); the QP is drained once no message of it is
     * on a context — a suspended one is not, and restarts only after the return to RTS.
     */
    @Override
    public void drainRequested(boolean notify) {
        drainNotify = notify;
        checkDrained();
    }

    private void checkDrained() {
        if (drainNotify && qp.state == QpState.SQD && linkedTo == null) {
            drainNotify = false;
            qp.hca.raise(new io.rnic.verbs.AsyncEvent(io.rnic.verbs.AsyncEvent.Type.SQ_DRAINED, qp.qpn,
                    "send queue drained"));
        }
    }

    private void fail(SendWqe w, WcStatus status) {
        complete(w, status);
    }
}
