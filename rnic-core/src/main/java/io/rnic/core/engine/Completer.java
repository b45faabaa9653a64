package io.rnic.core.engine;

import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.Position;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.psn.Psn;
import io.rnic.core.psn.RequesterPsnWindow;
import io.rnic.core.psn.ResponseRegion;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.Counter;
import io.rnic.verbs.WcStatus;

/**
 * The completer (rxe's {@code rxe_comp.c}): matches responses against the oldest outstanding
 * WQEs, places READ data and atomic results, completes WQEs in order, and drives
 * retransmission on NAKs, implied NAKs, RNR NAKs and the local ACK timeout. Its budgets and
 * timers live in the QP's {@link ReliabilityContext}.
 */
final class Completer {
    /** The completer's states for one response. */
    enum State {
        /** Find the oldest WQE that has been sent. */
        GET_WQE,
        /** Compare the response PSN with the WQE's PSN range. */
        CHECK_PSN,
        /** Check the response opcode against the WQE and dispatch on it. */
        CHECK_ACK,
        /** Place READ response data. */
        READ,
        /** Place an atomic's original value. */
        ATOMIC,
        /** A plain ACK covering SEND/WRITE packets. */
        WRITE_SEND,
        /** Complete the WQE successfully. */
        COMP_WQE,
        /** Retransmit after a sequence NAK, implied NAK or timeout, if retries remain. */
        CHECK_RETRY,
        /** Wait out an RNR NAK's timer, if RNR retries remain. */
        RNR_RETRY,
        /** Complete the WQE with an error and move the QP to ERR. */
        ERROR,
        /** Done with this response. */
        DONE
    }

    /** Requester completion status for NAK codes 0–4 (reference §3.3); unknown codes are REM_OP_ERR. */
    private static final WcStatus[] NAK_STATUS = {
        WcStatus.RETRY_EXC_ERR, WcStatus.REM_INV_REQ_ERR, WcStatus.REM_ACCESS_ERR, WcStatus.REM_OP_ERR,
        WcStatus.REM_INV_RD_REQ_ERR,
    };

    private final QpContext qp;
    private final ReliabilityContext rel;
    private final RequesterPsnWindow window;
    private final Runnable onAckTimer = this::ackTimerFired;
    /** Which responses ahead of the expected one are used (the QP's loss recovery mode). */
    private ResponseWindow responses = ResponseWindow.IN_ORDER;

    private SendWqe wqe;
    private int retryPsn;
    private WcStatus errorStatus;
    private int rnrTimerCode;
    /** Nesting of {@link #runFrom}: progress within it moves the ACK deadline once, at its end. */
    private int runDepth;
    private boolean deadlineOwed;

    Completer(QpContext qp) {
        this.qp = qp;
        this.rel = qp.rel;
        this.window = qp.rel.sendWindow;
    }

    void start() {
        // The responder's MSN starts at zero after RESET (o9-114.a4): nothing heard of it yet.
        rel.lastResponseMsn = 0;
        responses.clear();
        responses = ResponseWindow.of(qp.attrs.lossRecovery(), qp, this);
        rel.retryLeft = qp.attrs.retryCnt();
        rel.rnrLeft = qp.attrs.rnrRetry();
    }

    /** New RTS/SQD attributes: reload the retry budgets. */
    void attributesChanged() {
        rel.retryLeft = qp.attrs.retryCnt();
        rel.rnrLeft = qp.attrs.rnrRetry();
    }

    void reset() {
        stop();
    }

    void stop() {
        rel.stopTimers();
        responses.clear();
    }

    /**
     * Local ACK timeout in nanoseconds: 4.096 µs × 2^timeout, or the response window's shorter one
     * for what is in flight now (the extended protocol's RTO_low); 0 means no timer.
     */
    private long timeoutNanos() {
        int t = qp.attrs.timeout();
        return t == 0 ? 0 : responses.ackTimeoutNanos(4096L << t);
    }

    /** Called for every request packet sent: (re)arms the local ACK timer. */
    void packetSent() {
        long t = timeoutNanos();
        if (t == 0) {
            return;
        }
        rel.ackDeadline = qp.hca.scheduler().nanoTime() + t;
        if (!rel.ackTimerPending) {
            scheduleAckTimer(t);
        } else {
            ackTimerNoLaterThanDeadline();
        }
    }

    private void scheduleAckTimer(long t) {
        rel.ackTimerPending = true;
        rel.ackTimerAt = qp.hca.scheduler().nanoTime() + t;
        rel.ackTimer = qp.hca.scheduler().schedule(t, onAckTimer);
    }

    /**
     * The deadline moved before the pending timer (a shorter timeout now applies, RTO_low): the
     * timer is set again for it. A deadline that moves later (the usual case) leaves the timer,
     * which looks at the deadline when it fires.
     */
    private void ackTimerNoLaterThanDeadline() {
        if (rel.ackTimerPending && rel.ackTimerAt - rel.ackDeadline > 0) {
            rel.ackTimer.cancel();
            scheduleAckTimer(rel.ackDeadline - qp.hca.scheduler().nanoTime());
        }
    }

    /**
     * Arms the local ACK timer if it is not running, without moving its deadline: for a packet
     * sent again by seed 002's recovery (a re-read, a selectively resent packet). Moving the
     * deadline on every such packet let a recovery that could not succeed (its hole lost, the one
     * NAK for it spent) postpone the timeout, and with it go-back-N's recovery, forever.
     */
    void resentPacket() {
        long t = timeoutNanos();
        if (t != 0 && !rel.ackTimerPending) {
            rel.ackDeadline = qp.hca.scheduler().nanoTime() + t;
            scheduleAckTimer(t);
        }
    }

    void progress() {
        rel.impliedRetryPsn = -1;
        rel.retryLeft = qp.attrs.retryCnt();
        rel.rnrLeft = qp.attrs.rnrRetry();
        if (runDepth > 0) {
            // One ACK completes a WQE per message it covers (thirty or so of perf's): the deadline
            // moves once, as the response's handling ends (runFrom), not with a clock read for each.
            deadlineOwed = true;
            return;
        }
        restartAckDeadline();
    }

    private void ackTimerFired() {
        rel.ackTimerPending = false;
        rel.ackTimer = null;
        if (qp.state == io.rnic.verbs.QpState.ERR || qp.state == io.rnic.verbs.QpState.RESET) {
            return;
        }
        if (window.inFlight() == 0) {
            return;
        }
        long now = qp.hca.scheduler().nanoTime();
        if (rel.rnrWait || now < rel.ackDeadline) {
            scheduleAckTimer(rel.rnrWait ? timeoutNanos() : rel.ackDeadline - now);
            return;
        }
        qp.hca.counters().inc(Counter.LOCAL_ACK_TIMEOUTS);
        rel.impliedRetryPsn = -1;
        retryPsn = window.oldestUnacked();
        wqe = oldestSent();
        runFrom(State.CHECK_RETRY, null);
    }

    /** Handles a response packet (ACK, NAK, READ response, atomic ACK). */
    void onResponse(RocePacket p) {
        responses.heard();
        int psn = p.bth().psn();
        ResponseRegion region = window.classify(psn);
        if (region != ResponseRegion.VALID) {
            // A duplicate (seed 000 §2.6.2) or a ghost beyond the last PSN sent (§2.7) is dropped
            // and completes nothing, but the end-to-end credits its AETH carries still count: a
            // responder may repeat its last ACK, or send an unsolicited one, only to hand them over.
            qp.hca.counters().inc(region == ResponseRegion.DUPLICATE ? Counter.DUPLICATE_RESPONSE : Counter.GHOST_RESPONSE);
            if (p.opcode().has(io.rnic.core.packet.Header.AETH)
                    && qp.requester.credits(p.aeth().syndrome(), p.aeth().msn())) {
                qp.requester.run();
            }
            return;
        }
        if (p.opcode().has(io.rnic.core.packet.Header.AETH)) {
            rel.lastResponseMsn = p.aeth().msn();
            qp.requester.credits(p.aeth().syndrome(), p.aeth().msn());
        }
        if (isSelectiveNak(p)) {
            selectiveNak(p);
            qp.requester.run();
            return;
        }
        if (responses.take(p)) {
            qp.requester.run();
            return;
        }
        runFrom(State.GET_WQE, p);
        qp.requester.run();
    }

    /** A sequence NAK of seed 002's extended protocol: its SRETH lists the PSNs the responder misses. */
    private static boolean isSelectiveNak(RocePacket p) {
        return p.opcode().operation() == Operation.ACKNOWLEDGE && p.opcode().has(io.rnic.core.packet.Header.SRETH)
                && p.aeth().syndrome() == AethSyndrome.nak(AethSyndrome.NAK_PSN_SEQUENCE_ERROR);
    }

    /**
     * Seed 002's extended protocol: the responder has every request before the NAK's PSN, and
     * lists which after it it misses; exactly those packets are sent again, and nothing is rewound.
     * What it acknowledges stops at a READ or atomic still waiting for its answers (they must stay
     * in the valid region); the response window applies the rest when they complete.
     */
    private void selectiveNak(RocePacket p) {
        int psn = p.bth().psn();
        qp.hca.counters().inc(Counter.RCVD_NAKS);
        qp.hca.counters().inc(Counter.RCVD_SELECTIVE_NAKS);
        int acknowledged = psn;
        SendQueue sq = qp.sq;
        for (long i = sq.completed(); i < sq.posted(); i++) {
            SendWqe w = sq.at(i);
            if (!w.psnAssigned || !Psn.isBefore(w.firstPsn, psn)) {
                break;
            }
            if (w.kind.isReadOrAtomic()) {
                acknowledged = w.firstPsn;
                responses.acknowledgedBeyond(Psn.add(psn, -1));
                break;
            }
        }
        if (Psn.isAfter(acknowledged, window.oldestUnacked())) {
            window.acknowledgeBefore(acknowledged);
            progress();
        }
        completeCoveredBefore(acknowledged);
        var missing = p.sreth();
        for (int i = 0; i < io.rnic.core.packet.SrethFlyweight.BITMAP_PSNS; i++) {
            int q = Psn.add(psn, i);
            if (!Psn.isBefore(q, window.next())) {
                break;
            }
            if (missing.missing(i)) {
                qp.requester.resendPacket(q);
            }
        }
    }

    /** Completes {@code w}, the oldest sent WQE, successfully (for the response window). */
    void complete(SendWqe w) {
        wqe = w;
        completeWqe();
    }

    /** Completes {@code w} with {@code status} and moves the QP to ERR (for the response window). */
    void fail(SendWqe w, WcStatus status) {
        qp.sendFailed(w, status, AsyncEvent.Type.QP_FATAL);
    }

    SendWqe oldestSent() {
        SendQueue sq = qp.sq;
        if (sq.completed() >= sq.posted()) {
            return null;
        }
        SendWqe w = sq.at(sq.completed());
        return w.psnAssigned ? w : null;
    }

    private void runFrom(State start, RocePacket p) {
        runDepth++;
        try {
            runStates(start, p);
        } finally {
            if (--runDepth == 0 && deadlineOwed) {
                deadlineOwed = false;
                restartAckDeadline();
            }
        }
    }

    private void runStates(State start, RocePacket p) {
        State s = start;
        int psn = p == null ? 0 : p.bth().psn();
        while (s != State.DONE) {
            switch (s) {
                case GET_WQE -> {
                    wqe = oldestSent();
                    s = wqe == null ? State.DONE : State.CHECK_PSN;
                }
                case CHECK_PSN -> s = checkPsn(p, psn);
                case CHECK_ACK -> s = checkAck(p, psn);
                case READ -> s = read(p, psn);
                case ATOMIC -> {
                    if (!wqe.sgl.putLong(p.atomicAckEth().originalData())) {
                        errorStatus = WcStatus.LOC_PROT_ERR; // its buffer was deregistered meanwhile
                        s = State.ERROR;
                    } else {
                        window.acknowledge(psn);
                        s = State.COMP_WQE;
                    }
                }
                case WRITE_SEND -> {
                    window.acknowledge(psn);
                    progress();
                    s = psn == wqe.lastPsn ? State.COMP_WQE : State.DONE;
                }
                case COMP_WQE -> {
                    int last = wqe.lastPsn; // the slot may be reposted once completed
                    completeWqe();
                    // A response beyond this WQE (an ACK, or a later READ response or atomic
                    // ACK that implicitly acknowledges it) goes on to the next ones.
                    s = p != null && Psn.isAfter(psn, last) ? State.GET_WQE : State.DONE;
                    if (s == State.DONE) {
                        qp.requester.run();
                    }
                }
                case CHECK_RETRY -> s = checkRetry();
                case RNR_RETRY -> s = rnrRetry();
                case ERROR -> {
                    qp.sendFailed(wqe, errorStatus, AsyncEvent.Type.QP_FATAL);
                    s = State.DONE;
                }
                default -> throw new IllegalStateException("completer state " + s);
            }
        }
        // WQEs the in-order rules just completed may have uncovered ones the response window
        // already holds every answer for (a READ placed while an atomic before it waited).
        responses.settle();
    }

    private State checkPsn(RocePacket p, int psn) {
        if (Psn.isAfter(psn, wqe.lastPsn)) {
            if (wqe.kind.isReadOrAtomic()) {
                // Responses come back in order: a later PSN means this READ's or atomic's
                // responses were lost (an implied NAK).
                return impliedNak(expectedPsn(wqe));
            }
            if (wqe.state() != SendWqe.State.SENT) {
                return State.DONE; // an ACK cannot cover a message not fully sent; stale
            }
            window.acknowledge(wqe.lastPsn);
            progress();
            return State.COMP_WQE;
        }
        if (Psn.isBefore(psn, wqe.firstPsn)) {
            return State.DONE;
        }
        return State.CHECK_ACK;
    }

    private State checkAck(RocePacket p, int psn) {
        Operation op = p.opcode().operation();
        if (op == Operation.RDMA_READ_RESPONSE) {
            if (!wqe.kind.answeredByReadResponse()) {
                errorStatus = WcStatus.BAD_RESP_ERR;
                return State.ERROR;
            }
            return State.READ;
        }
        if (op == Operation.ATOMIC_ACKNOWLEDGE) {
            if (!wqe.kind.isAtomic()) {
                errorStatus = WcStatus.BAD_RESP_ERR;
                return State.ERROR;
            }
            if (!AethIsAck(p)) {
                return nak(p, psn);
            }
            progress();
            return State.ATOMIC;
        }
        // ACKNOWLEDGE
        int syn = p.aeth().syndrome();
        int type = AethSyndrome.type(syn);
        if (type == AethSyndrome.TYPE_ACK) {
            if (wqe.kind.isReadOrAtomic()) {
                return State.DONE; // a READ or atomic completes only from its own responses
            }
            return State.WRITE_SEND;
        }
        return nak(p, psn);
    }

    private static boolean AethIsAck(RocePacket p) {
        return AethSyndrome.type(p.aeth().syndrome()) == AethSyndrome.TYPE_ACK;
    }

    private State nak(RocePacket p, int psn) {
        int syn = p.aeth().syndrome();
        int type = AethSyndrome.type(syn);
        int value = AethSyndrome.value(syn);
        if (type == AethSyndrome.TYPE_RNR_NAK) {
            qp.hca.counters().inc(Counter.RCVD_RNR_ERR);
            window.acknowledgeBefore(psn);
            retryPsn = psn;
            rnrTimerCode = value;
            return State.RNR_RETRY;
        }
        qp.hca.counters().inc(Counter.RCVD_NAKS);
        if (type == AethSyndrome.TYPE_NAK && value == AethSyndrome.NAK_PSN_SEQUENCE_ERROR) {
            if (Psn.isAfter(psn, window.oldestUnacked())) {
                // The NAK implicitly acknowledges everything before its PSN: forward progress.
                qp.hca.counters().inc(Counter.RCVD_SEQ_ERR);
                window.acknowledgeBefore(psn);
                progress();
            }
            completeCoveredBefore(psn);
            if (rel.impliedRetryPsn == psn) {
                qp.hca.counters().inc(Counter.DUPLICATE_RESPONSE); // a retry from this PSN is under way
                return State.DONE;
            }
            rel.impliedRetryPsn = psn;
            retryPsn = psn;
            return State.CHECK_RETRY;
        }
        errorStatus = type == AethSyndrome.TYPE_NAK && value < NAK_STATUS.length ? NAK_STATUS[value] : WcStatus.REM_OP_ERR;
        return State.ERROR;
    }

    /** A sequence NAK at {@code psn} acknowledges SEND/WRITE WQEs that end before it. */
    private void completeCoveredBefore(int psn) {
        SendWqe w;
        while ((w = oldestSent()) != null && !w.kind.isReadOrAtomic() && w.state() == SendWqe.State.SENT
                && Psn.isBefore(w.lastPsn, psn)) {
            wqe = w;
            completeWqe();
        }
        wqe = oldestSent();
    }

    private State read(RocePacket p, int psn) {
        int expected = expectedPsn(wqe);
        if (psn != expected) {
            if (Psn.isAfter(psn, expected)) {
                return impliedNak(expected);
            }
            qp.hca.counters().inc(Counter.DUPLICATE_RESPONSE);
            return State.DONE;
        }
        Position pos = p.opcode().position();
        boolean first = wqe.readPlaced == 0;
        // A fresh stream starts with FIRST/ONLY; after a partial retry the responder may continue
        // with MIDDLE/LAST (rxe) — both are accepted as long as the PSN is the expected one.
        if (first && !pos.startsMessage() && psn == wqe.firstPsn) {
            errorStatus = WcStatus.BAD_RESP_ERR;
            return State.ERROR;
        }
        if (pos.startsMessage() || pos == Position.LAST) {
            if (!AethIsAck(p)) {
                return nak(p, psn);
            }
        }
        int len = p.payloadLength();
        // ATOMIC WRITE and FLUSH are answered by one READ RESPONSE ONLY without data (rxe).
        long remaining = (wqe.kind.isRead() ? wqe.length() : 0) - wqe.readPlaced;
        boolean last = pos.endsMessage();
        if (len > remaining || (!last && len != qp.mtu) || (last && len != remaining)) {
            errorStatus = WcStatus.BAD_RESP_ERR;
            return State.ERROR;
        }
        if (len > 0 && !wqe.sgl.scatter(wqe.readPlaced, p.buffer(), p.payloadOffset(), len)) {
            errorStatus = WcStatus.LOC_PROT_ERR; // its buffer was deregistered meanwhile
            return State.ERROR;
        }
        wqe.readPlaced += len;
        window.acknowledge(psn);
        progress();
        return last ? State.COMP_WQE : State.DONE;
    }

    /** A response beyond {@code expected} means the ones before it were lost: retry once per loss. */
    private State impliedNak(int expected) {
        if (rel.impliedRetryPsn == expected) {
            qp.hca.counters().inc(Counter.DUPLICATE_RESPONSE); // the old stream, already being retried
            return State.DONE;
        }
        qp.hca.counters().inc(Counter.IMPLIED_NAK);
        rel.impliedRetryPsn = expected;
        retryPsn = expected;
        return State.CHECK_RETRY;
    }

    /** The next response PSN a READ or atomic WQE is waiting for. */
    private int expectedPsn(SendWqe w) {
        if (w.kind.isRead()) {
            return Psn.add(w.firstPsn, (int) (w.readPlaced / qp.mtu));
        }
        return w.firstPsn;
    }

    private void completeWqe() {
        qp.requester.retired(wqe);
        window.acknowledge(wqe.lastPsn);
        qp.completions.completeSend(wqe, WcStatus.SUCCESS);
        qp.requester.checkDrained();
    }

    private State checkRetry() {
        if (wqe == null) {
            return State.DONE;
        }
        if (rel.retryLeft == 0) {
            qp.hca.counters().inc(Counter.RETRY_EXCEEDED_ERR);
            errorStatus = WcStatus.RETRY_EXC_ERR;
            return State.ERROR;
        }
        rel.retryLeft--;
        qp.hca.counters().inc(Counter.COMPLETER_RETRY_ERR);
        qp.requester.rewind(retryPsn);
        qp.requester.run();
        return State.DONE;
    }

    private State rnrRetry() {
        if (qp.policy.recovery() == TransportPolicy.Recovery.ABANDON_OR_SUSPEND_THEN_RESYNC) {
            // An EE context does not wait for one QP's receive queue: the message is suspended.
            qp.ee.rnr(wqe, AethSyndrome.rnrDelayMicros(rnrTimerCode) * 1000L);
            return State.DONE;
        }
        if (rel.rnrLeft == 0) {
            qp.hca.counters().inc(Counter.RETRY_RNR_EXCEEDED_ERR);
            errorStatus = WcStatus.RNR_RETRY_EXC_ERR;
            return State.ERROR;
        }
        if (rel.rnrLeft != 7) { // 7 means retry forever
            rel.rnrLeft--;
        }
        if (rel.rnrWait) {
            return State.DONE;
        }
        rel.rnrWait = true;
        int psn = retryPsn;
        long delay = AethSyndrome.rnrDelayMicros(rnrTimerCode) * 1000L;
        rel.rnrTimer = qp.hca.scheduler().schedule(delay, () -> {
            rel.rnrTimer = null;
            rel.rnrWait = false;
            if (qp.state == io.rnic.verbs.QpState.ERR) {
                return;
            }
            qp.requester.rewind(psn);
            restartAckDeadline();
            qp.requester.run();
        });
        return State.DONE;
    }

    private void restartAckDeadline() {
        long t = timeoutNanos();
        if (t != 0) {
            rel.ackDeadline = qp.hca.scheduler().nanoTime() + t;
            ackTimerNoLaterThanDeadline();
        }
    }
}
