package io.rnic.core.engine;

import io.rnic.core.psn.Psn;
import io.rnic.core.psn.RequesterPsnWindow;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.Counter;
import io.rnic.verbs.QpState;
import io.rnic.verbs.WcStatus;
import java.util.ArrayDeque;

/**
 * The outbound side of an EE context (seed 001 §9.7.8.2.1): the list of RD QPs whose next
 * message it is to carry, served in turn one message at a time (o9-102), and the recovery of
 * 9.7.8.5 when a message cannot complete. The context's own requester and completer do the
 * packets, PSNs, ACKs and retries of the message it carries, as an RC QP's do.
 *
 * <p>A message whose error concerns its QP and not the context (a NAK for its R_Key, Q_Key,
 * request or receive queue) is abandoned: it completes in error and its QP's send queue goes to
 * SQE. A message an RNR NAK answers is suspended: its QP waits out the timer off the context and
 * then sends it again from the start, as a new message. Either way the context then sends a
 * RESYNC (9.7.3.2.2) at the next PSN and starts nothing else until the ACK at that PSN comes
 * back (o9-114.a2), so that no late packet of the dropped message can be taken for part of a
 * later one. Only an error of the context itself (its retries exhausted, a response that cannot
 * be) moves it to ERR.
 */
final class EecScheduler implements SendDriver {
    private final QpContext eec;
    private final EecSendQueue sq;
    private final ArrayDeque<QpContext> waiting = new ArrayDeque<>();
    /** The RD QP whose message the context carries, or {@code null}. */
    private QpContext sender;
    /** A message was dropped: a RESYNC goes before the next one. */
    private boolean resyncOwed;
    private final SendWqe resync = new SendWqe(0, 0);
    /**
     * The responder's MSN when the context started its current message: the last one heard then,
     * since the message before it completed on its own answer. A RESYNC's MSN is compared with it
     * (9.7.8.6.1): one above is the RESYNC's own increment, two above means the dropped message
     * had completed at the responder too.
     */
    private int startMsn;
    /** The message an RNR NAK suspended, until the RESYNC answers. */
    private SendWqe suspended;
    private QpContext suspendedQp;
    /**
     * The message abandoned for an error of its QP, with its QP and error: it completes when the
     * RESYNC answers, which tells whether the responder completed it after all (9.7.8.6.1).
     */
    private SendWqe abandoned;
    private QpContext abandonedQp;
    private WcStatus abandonedStatus;

    /** o9-114.a1's choice for errors of a message's QP. */
    private io.rnic.verbs.RdQpErrorRecovery qpErrors = io.rnic.verbs.RdQpErrorRecovery.RESYNC;

    EecScheduler(QpContext eec) {
        this.eec = eec;
        this.sq = (EecSendQueue) eec.sq;
    }

    /** Chooses what an error of a message's QP does (o9-114.a1); set before the context carries messages. */
    void qpErrors(io.rnic.verbs.RdQpErrorRecovery choice) {
        qpErrors = java.util.Objects.requireNonNull(choice, "choice");
    }

    /** {@code qp}'s next message names this context: it joins the tail of the list (step 2). */
    void enqueue(QpContext qp) {
        QpState s = eec.state;
        if (s == QpState.ERR || s == QpState.RESET) {
            fail(qp, qp.rdSender().head(), WcStatus.INV_EEC_STATE_ERR);
            return;
        }
        waiting.add(qp);
        run();
    }

    /** Takes {@code qp} off the list or off the context; a message it had on the context is dropped. */
    void withdraw(QpContext qp) {
        waiting.remove(qp);
        if (suspendedQp == qp) {
            suspended = null; // the QP leaves: ERR flushes its message, RESET forgets it
            suspendedQp = null;
        }
        if (abandonedQp == qp) {
            SendWqe w = abandoned;
            WcStatus status = abandonedStatus;
            abandoned = null;
            abandonedQp = null;
            if (qp.state == QpState.ERR) {
                // Its own error first, what the RESYNC would have found unknown; the flush follows.
                qp.completions.completeSend(w, status);
            }
        }
        if (sender == qp) {
            sender = null;
            dropCurrent();
            resyncOwed = true;
            run();
        }
    }

    /** SQD on the context: its requester raises SQ_DRAINED once the message it carries is answered. */
    @Override
    public void drainRequested(boolean notify) {
        eec.requester.drainRequested(notify);
    }

    /** Starts the next message if the context is free: the RESYNC owed, else the next QP's (step 3, 10). */
    @Override
    public void run() {
        if (sq.current() != null || eec.state != QpState.RTS) {
            return;
        }
        if (resyncOwed) {
            resyncOwed = false;
            sq.carry(resync);
            eec.requester.run();
            return;
        }
        QpContext qp;
        while ((qp = waiting.poll()) != null) {
            SendWqe w = qp.state == QpState.RTS ? qp.rdSender().head() : null; // SQD starts nothing new
            if (w == null) {
                qp.rdSender().unlink();
                continue;
            }
            sender = qp;
            startMsn = eec.rel.lastResponseMsn;
            sq.carry(w);
            eec.requester.run();
            return;
        }
    }

    /** The context's completer completed {@code w} (its ACK came, or it failed): step 9. */
    void completed(SendWqe w, WcStatus status) {
        if (w == resync) {
            sq.drop();
            if (status == WcStatus.SUCCESS) {
                resynchronised();
            }
            run();
            return;
        }
        QpContext qp = sender;
        sender = null;
        sq.drop();
        qp.rdSender().complete(w, status);
        run();
    }

    /**
     * The message on the context failed with {@code status}: an error of the context moves it to
     * ERR (o9-105); any other abandons the message and RESYNCs (o9-107, o9-114.a1).
     */
    void failed(SendWqe w, WcStatus status, AsyncEvent.Type event) {
        if (w == null || w == resync || contextError(status)) {
            eec.failWith(event, w == null ? null : () -> eec.completions.completeSend(w, status));
            return;
        }
        if (qpErrors == io.rnic.verbs.RdQpErrorRecovery.FAIL_CONTEXT) {
            // o9-114.a1, choice 1: the QP and the context go to ERR, the message completes in error.
            QpContext qp = sender;
            sender = null;
            forget(w);
            sq.drop();
            qp.failWith(event, () -> qp.completions.completeSend(w, status));
            eec.failWith(event, null);
            return;
        }
        // Abandoned: the context carries on after a RESYNC, whose answer tells what became of
        // the message at the responder and so how it completes (resynchronised).
        eec.hca.counters().inc(Counter.RD_MESSAGES_ABANDONED);
        QpContext qp = sender;
        sender = null;
        forget(w);
        sq.drop();
        abandoned = w;
        abandonedQp = qp;
        abandonedStatus = status;
        resyncOwed = true;
        run();
    }

    /** Errors of the context rather than of the message's QP (9.7.8.1: "retry limit exceeded etc."). */
    private static boolean contextError(WcStatus status) {
        return status == WcStatus.RETRY_EXC_ERR || status == WcStatus.BAD_RESP_ERR;
    }

    /**
     * An RNR NAK with timer {@code delayNanos} answered the message on the context: it is
     * suspended (9.7.8.5) unless its RNR retries are spent, which abandons it.
     */
    void rnr(SendWqe w, long delayNanos) {
        if (w == resync || w == null) {
            return; // a RESYNC takes no receive WQE: no RNR NAK can be for it
        }
        if (w.rnrLeft < 0) {
            w.rnrLeft = eec.attrs.rnrRetry();
        }
        if (w.rnrLeft == 0) {
            eec.hca.counters().inc(Counter.RETRY_RNR_EXCEEDED_ERR);
            failed(w, WcStatus.RNR_RETRY_EXC_ERR, AsyncEvent.Type.QP_FATAL);
            return;
        }
        if (w.rnrLeft != 7) { // 7 means retry forever
            w.rnrLeft--;
        }
        eec.hca.counters().inc(Counter.RD_MESSAGES_SUSPENDED);
        QpContext qp = sender;
        sender = null;
        forget(w);
        sq.drop();
        w.restartAsNewMessage();
        suspended = w;
        suspendedQp = qp;
        resyncOwed = true;
        qp.rdSender().suspend(delayNanos);
        run();
    }

    /**
     * The RESYNC was acknowledged. Its MSN, against the responder's before the dropped message,
     * tells what became of that message (9.7.8.6.1):
     * <ul>
     *   <li>one above (the RESYNC's own increment): the responder never completed it. An
     *       abandoned message completes in error, "known incomplete at the responder"; a
     *       suspended one restarts as planned, as a new message;</li>
     *   <li>two above: an earlier try did complete it. A SEND or WRITE completes successfully,
     *       whether it was suspended or abandoned (it is not sent again); an abandoned READ or
     *       atomic completes in error, "known complete at the responder" (its answer never
     *       arrived, or could not be placed); a suspended READ restarts, its data never came;</li>
     *   <li>any other value: the response is corrupt, and the context goes to ERR.</li>
     * </ul>
     * The additional information reaches the application as the completion's {@code vendor_err}.
     */
    private void resynchronised() {
        int advanced = Psn.diff(eec.rel.lastResponseMsn, startMsn);
        if (advanced != 1 && advanced != 2) {
            eec.hca.counters().inc(Counter.RD_RESYNC_CORRUPT_MSN);
            eec.failWith(AsyncEvent.Type.QP_FATAL, null); // stop() completes what it dropped
            return;
        }
        eec.hca.counters().inc(Counter.RD_RESYNCS_COMPLETED);
        boolean completedThere = advanced == 2;
        SendWqe a = abandoned;
        QpContext aq = abandonedQp;
        WcStatus status = abandonedStatus;
        abandoned = null;
        abandonedQp = null;
        if (a != null) {
            if (completedThere && !a.kind.isReadOrAtomic()) {
                eec.hca.counters().inc(Counter.RD_ABANDONED_FOUND_COMPLETE);
                aq.rdSender().complete(a, WcStatus.SUCCESS);
            } else {
                aq.rdSender().complete(a, status, completedThere
                        ? io.rnic.verbs.WorkCompletion.VENDOR_ERR_RD_KNOWN_COMPLETE
                        : io.rnic.verbs.WorkCompletion.VENDOR_ERR_RD_KNOWN_INCOMPLETE);
            }
        }
        SendWqe w = suspended;
        QpContext qp = suspendedQp;
        suspended = null;
        suspendedQp = null;
        if (w == null || qp.rdSender().head() != w) {
            return;
        }
        if (completedThere && !w.kind.isReadOrAtomic()) {
            eec.hca.counters().inc(Counter.RD_SUSPENDED_FOUND_COMPLETE);
            qp.rdSender().resume();
            qp.rdSender().complete(w, WcStatus.SUCCESS);
        }
    }

    /**
     * The message leaves the context's books: it no longer counts against the outstanding
     * READ/atomic limit, and every PSN sent for it counts as answered, so the RESYNC is the
     * oldest unacknowledged PSN and any late response to the message is a duplicate.
     */
    private void forget(SendWqe w) {
        if (w.psnAssigned) {
            eec.requester.retired(w);
        }
        RequesterPsnWindow window = eec.rel.sendWindow;
        if (window.inFlight() > 0) {
            window.acknowledge(Psn.add(window.next(), -1));
        }
        eec.rel.impliedRetryPsn = -1;
        resync.reset();
        resync.kind = RequestKind.RESYNC;
        resync.owner = w.owner;
        resync.remoteQpn = w.remoteQpn;
        resync.remoteQkey = w.remoteQkey;
    }

    private void dropCurrent() {
        SendWqe w = sq.current();
        if (w != null && w != resync) {
            forget(w);
        }
        sq.drop();
    }

    /**
     * The context leaves RTS for ERR or RESET: the message it carries and those waiting for it
     * complete with INV_EEC_STATE_ERR, as any later one that names it will.
     */
    @Override
    public void stop() {
        SendWqe w = sq.current();
        QpContext qp = sender;
        sender = null;
        dropCurrent();
        if (w != null && w != resync && qp != null) {
            fail(qp, w, WcStatus.INV_EEC_STATE_ERR);
        }
        if (abandoned != null) {
            // Abandoned before the context stopped: its own error, what became of it unknown.
            SendWqe a = abandoned;
            QpContext aq = abandonedQp;
            abandoned = null;
            abandonedQp = null;
            aq.rdSender().complete(a, abandonedStatus);
        }
        QpContext next;
        while ((next = waiting.poll()) != null) {
            fail(next, next.rdSender().head(), WcStatus.INV_EEC_STATE_ERR);
        }
        resyncOwed = false;
        suspended = null;
        suspendedQp = null;
    }

    private static void fail(QpContext qp, SendWqe w, WcStatus status) {
        qp.rdSender().complete(w, w != null ? status : WcStatus.SUCCESS);
    }
}
