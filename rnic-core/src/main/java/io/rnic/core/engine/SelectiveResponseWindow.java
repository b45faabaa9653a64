package io.rnic.core.engine;

import io.rnic.core.hca.RecoveryTuning;
import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.psn.Psn;
import io.rnic.core.psn.RequesterPsnWindow;
import io.rnic.core.time.Scheduler;
import io.rnic.verbs.Counter;
import io.rnic.verbs.WcStatus;

/**
 * Seed 002's requester for READ responses: a response ahead of the expected one is placed in the
 * local buffer at once (the requester knows where each response PSN of each READ lands), a bit
 * per response packet records what has arrived, and only the missing MTU-sized pieces are asked
 * for again, with smaller READ requests at their own PSNs (which the responder answers as
 * duplicate READs of a subset, seed 000 §3.3.2.1). The one-packet answers of atomics, ATOMIC
 * WRITE and FLUSH are kept the same way, and a missing one is asked for by sending that request
 * alone again (answered from the responder's saved result), not by going back. A hole is taken
 * for a loss when {@link RecoveryTuning#holeRun} responses have arrived behind it, or nothing has
 * arrived for {@link RecoveryTuning#holeTimeoutNanos}.
 *
 * <p>Completions stay in posting order: a WQE completes when its answers are in and every WQE
 * before it has completed; an ACK that arrives beyond a READ or atomic still waiting is
 * remembered and applied to the WQEs it covers once that one completes.
 */
final class SelectiveResponseWindow implements ResponseWindow {
    private final QpContext qp;
    private final Completer completer;
    private final RequesterPsnWindow window;
    private final RecoveryTuning tuning;
    private final Runnable onHoleTimer = this::holeTimerFired;

    /** The newest plain ACK that arrived beyond a READ still missing pieces. */
    private boolean ackDeferred;
    private int deferredAckPsn;
    /** The highest response PSN seen since the window last emptied. */
    private boolean seen;
    private int highestSeen;
    /** Responses that arrived behind a hole since the last re-read. */
    private int arrivedBehindHoles;
    private long lastProgressAt;
    /**
     * Timeout re-reads (the quiet of a hole timeout) made since an answer last came. The second
     * waits one hole timeout like the first (the first re-read may itself have been lost); from
     * then on each doubles the wait, up to {@link #MAX_QUIET_BACKOFF} doublings, as a
     * retransmission timeout backs off. A responder that is slow rather than lossy (a stalled JVM, a long queue)
     * then draws a few duplicates, not one request every hole timeout; on the simulated network's
     * random loss the recovery is unchanged ({@code rnic experiment loss} prints the same table).
     */
    private int quietRereads;
    /** At most 2^6 hole timeouts of quiet (6.4 ms with the default 100 µs) between two re-reads. */
    static final int MAX_QUIET_BACKOFF = 6;
    private Scheduler.Timer holeTimer;
    private boolean settling;

    /** IRN's RTO_low, 0 for none (see {@link RecoveryTuning#rtoLowNanos}). */
    private final long rtoLowNanos;

    SelectiveResponseWindow(QpContext qp, Completer completer, long rtoLowNanos) {
        this.qp = qp;
        this.completer = completer;
        this.window = qp.rel.sendWindow;
        this.tuning = qp.hca.limits().recovery();
        this.rtoLowNanos = rtoLowNanos;
    }

    /**
     * IRN's RTO_low: with at most {@link RecoveryTuning#rtoLowPackets} PSNs in flight nothing is
     * queued ahead of their ACK, and a lost last packet has nothing behind it to reveal it, so
     * the timeout is short; but only until it has fired once without progress since (the retry
     * budget is full), so that a slow peer costs one early retransmission, not every retry.
     */
    @Override
    public long ackTimeoutNanos(long normal) {
        if (rtoLowNanos == 0 || rtoLowNanos >= normal || window.inFlight() > tuning.rtoLowPackets()
                || qp.rel.retryLeft != qp.attrs.retryCnt()) {
            return normal;
        }
        return rtoLowNanos;
    }

    @Override
    public boolean take(RocePacket p) {
        SendWqe oldest = completer.oldestSent();
        if (oldest == null) {
            return false;
        }
        int psn = p.bth().psn();
        boolean hasAeth = p.opcode().has(Header.AETH);
        if (hasAeth && AethSyndrome.type(p.aeth().syndrome()) != AethSyndrome.TYPE_ACK) {
            return false; // NAKs keep their rules
        }
        Operation op = p.opcode().operation();
        if (op == Operation.RDMA_READ_RESPONSE || op == Operation.ATOMIC_ACKNOWLEDGE) {
            SendWqe w = containing(psn);
            if (w == null || !w.kind.isReadOrAtomic()) {
                return false; // stale, or the wrong kind of answer: the in-order rules
            }
            if (w.kind.isRead()) {
                read(w, p, psn);
            } else {
                answer(w, p, psn);
            }
            return true;
        }
        if (!answerMissingBefore(psn)) {
            return false;
        }
        // An ACK beyond a READ or atomic still waiting for answers: the responder has sent every
        // response before it, so what is missing before it was lost; the WQEs it covers complete
        // after that one (completeReady), never before it.
        acknowledgedBeyond(psn);
        sawBeyondHole(psn);
        completeReady();
        return true;
    }

    /**
     * The one answer of an atomic (its original value), an ATOMIC WRITE or a FLUSH (a READ
     * RESPONSE ONLY without data), kept until the WQE is the oldest.
     */
    private void answer(SendWqe w, RocePacket p, int psn) {
        boolean atomicAck = p.opcode().operation() == Operation.ATOMIC_ACKNOWLEDGE;
        if (atomicAck != w.kind.isAtomic() || (!atomicAck && p.payloadLength() != 0)) {
            completer.fail(w, WcStatus.BAD_RESP_ERR);
            return;
        }
        SendWqe.SelectiveResponses r = w.responses();
        if (r.atomicAnswered) {
            qp.hca.counters().inc(Counter.DUPLICATE_RESPONSE);
            return;
        }
        r.atomicAnswered = true;
        if (atomicAck) {
            r.atomicOriginal = p.atomicAckEth().originalData();
        }
        completer.progress();
        arrived(psn, w != completer.oldestSent());
    }

    /**
     * After a new answer at {@code psn} was kept: completes what it finished, then counts it
     * behind a hole if it came {@code ahead} of its turn, or else watches for a lost tail (which
     * has nothing behind it, so only the quiet of a hole timeout tells).
     */
    private void arrived(int psn, boolean ahead) {
        completeReady();
        if (ahead) {
            sawBeyondHole(psn);
            return;
        }
        if (!seen || Psn.isAfter(psn, highestSeen)) {
            seen = true;
            highestSeen = psn;
        }
        if (readMissing()) {
            armTimer();
        }
    }

    /** True if a sent READ, atomic, ATOMIC WRITE or FLUSH that ends before {@code psn} still waits for answers. */
    private boolean answerMissingBefore(int psn) {
        SendQueue sq = qp.sq;
        for (long i = sq.completed(); i < sq.posted(); i++) {
            SendWqe w = sq.at(i);
            if (!w.psnAssigned || !Psn.isBefore(w.lastPsn, psn)) {
                return false;
            }
            if (awaitsAnswer(w)) {
                return true;
            }
        }
        return false;
    }

    /** A READ missing response packets, or an atomic, ATOMIC WRITE or FLUSH without its answer. */
    private static boolean awaitsAnswer(SendWqe w) {
        return w.kind.isRead() ? w.responses().count < w.packets : w.kind.isReadOrAtomic() && !w.responses().atomicAnswered;
    }

    @Override
    public void acknowledgedBeyond(int psn) {
        if (!ackDeferred || Psn.isAfter(psn, deferredAckPsn)) {
            ackDeferred = true;
            deferredAckPsn = psn;
        }
    }

    /** The sent WQE whose PSN range holds {@code psn}, or null. */
    private SendWqe containing(int psn) {
        SendQueue sq = qp.sq;
        for (long i = sq.completed(); i < sq.posted(); i++) {
            SendWqe w = sq.at(i);
            if (!w.psnAssigned) {
                return null;
            }
            if (!Psn.isBefore(psn, w.firstPsn) && !Psn.isAfter(psn, w.lastPsn)) {
                return w;
            }
        }
        return null;
    }

    /**
     * Any answer, even a duplicate or stale one, shows the responder is still working through what
     * it was asked: the quiet that says a tail was lost is the absence of all answers. (Counting
     * only new data made re-reads feed themselves: the duplicates a re-read drew kept the link busy
     * while the quiet timer asked again.)
     */
    @Override
    public void heard() {
        lastProgressAt = qp.hca.scheduler().nanoTime();
        quietRereads = 0;
    }

    private void read(SendWqe w, RocePacket p, int psn) {
        int index = Psn.forward(w.firstPsn, psn);
        SendWqe.SelectiveResponses r = w.responses();
        r.prepare(w.packets);
        if (r.arrived(index)) {
            qp.hca.counters().inc(Counter.DUPLICATE_RESPONSE);
            return;
        }
        int mtu = qp.mtu;
        long offset = (long) index * mtu;
        int len = p.payloadLength();
        long expected = index == w.packets - 1 ? w.length() - offset : mtu;
        if (len != expected) {
            completer.fail(w, WcStatus.BAD_RESP_ERR);
            return;
        }
        if (len > 0 && !w.sgl.scatter(offset, p.buffer(), p.payloadOffset(), len)) {
            completer.fail(w, WcStatus.LOC_PROT_ERR); // its buffer was deregistered meanwhile
            return;
        }
        boolean ahead = index > r.prefix || w != completer.oldestSent();
        r.mark(index, w.packets);
        completer.progress();
        if (ahead) {
            qp.hca.counters().inc(Counter.OOO_READ_RESPONSES);
        }
        arrived(psn, ahead);
    }

    /** A response arrived beyond a hole: after enough of them the holes before it are re-read. */
    private void sawBeyondHole(int psn) {
        if (!seen || Psn.isAfter(psn, highestSeen)) {
            seen = true;
            highestSeen = psn;
        }
        arrivedBehindHoles++;
        if (arrivedBehindHoles >= tuning.holeRun()) {
            reread(false);
        }
        armTimer();
    }

    @Override
    public void settle() {
        completeReady();
    }

    /** Completes, in posting order, every WQE at the head whose answers have all arrived. */
    private void completeReady() {
        if (settling) {
            return; // a completion below ran the completer, which settles again: one pass does it
        }
        settling = true;
        try {
            completeHead();
        } finally {
            settling = false;
        }
    }

    private void completeHead() {
        SendWqe w;
        while ((w = completer.oldestSent()) != null) {
            if (w.kind.isRead()) {
                SendWqe.SelectiveResponses r = w.responses();
                if (r.count < w.packets) {
                    if (r.prefix > 0) { // the in-order part of the oldest READ is acknowledged
                        window.acknowledge(Psn.add(w.firstPsn, r.prefix - 1));
                    }
                    break;
                }
            } else if (w.kind.isReadOrAtomic()) { // an atomic, ATOMIC WRITE or FLUSH: its one answer
                SendWqe.SelectiveResponses r = w.responses();
                if (!r.atomicAnswered) {
                    break;
                }
                if (w.kind.isAtomic() && !w.sgl.putLong(r.atomicOriginal)) {
                    completer.fail(w, WcStatus.LOC_PROT_ERR);
                    return;
                }
            } else if (!ackDeferred || w.state() != SendWqe.State.SENT || Psn.isAfter(w.lastPsn, deferredAckPsn)) {
                break; // a SEND or WRITE no deferred ACK covers: the in-order rules
            }
            completer.complete(w);
        }
        if (ackDeferred && !Psn.isAfter(deferredAckPsn, Psn.add(window.oldestUnacked(), -1))) {
            ackDeferred = false; // applied
        }
        if (completer.oldestSent() == null) {
            seen = false;
            ackDeferred = false;
        }
    }

    /**
     * Asks again for missing pieces: of every READ whose request has gone, those before the newest
     * response seen (they were lost); or ({@code all}: nothing has arrived for a hole timeout, so a
     * tail may be lost too) every piece the oldest READ still misses. Only the oldest: the READs
     * behind it may simply not have had their turn at the responder yet, and asking for them again
     * would only lengthen its queue.
     */
    private void reread(boolean all) {
        arrivedBehindHoles = 0;
        SendQueue sq = qp.sq;
        for (long i = sq.completed(); i < sq.posted(); i++) {
            SendWqe w = sq.at(i);
            if (!w.psnAssigned || w.nextPacket < w.packets) {
                return; // not (fully) requested yet
            }
            if (!awaitsAnswer(w)) {
                continue;
            }
            SendWqe.SelectiveResponses r = w.responses();
            if (!w.kind.isRead()) {
                // An atomic, ATOMIC WRITE or FLUSH without its answer: the request again (the
                // responder answers it from its saved result, never executing it twice).
                if (all || (r.rereadUpTo == 0 && seen && Psn.isAfter(highestSeen, w.firstPsn))) {
                    qp.requester.reissue(w);
                    qp.hca.counters().inc(Counter.SELECTIVE_REREADS);
                    r.rereadUpTo = 1;
                }
                if (all) {
                    return;
                }
                continue;
            }
            r.prepare(w.packets);
            // A hole seen behind later responses is asked for once; only the quiet of a hole
            // timeout asks again (the re-read itself may be lost).
            int k = all ? r.prefix : Math.max(r.prefix, r.rereadUpTo);
            while (k < w.packets) {
                if (r.arrived(k)) {
                    k++;
                    continue;
                }
                int start = k;
                while (k < w.packets && !r.arrived(k)) {
                    k++;
                }
                int end = k;
                if (!all) {
                    if (!seen || !Psn.isAfter(highestSeen, Psn.add(w.firstPsn, start))) {
                        return; // nothing arrived after this hole: not known to be lost
                    }
                    end = Math.min(end, Psn.forward(w.firstPsn, highestSeen));
                }
                if (end <= start) {
                    return;
                }
                qp.requester.reread(w, start, end - start);
                qp.hca.counters().inc(Counter.SELECTIVE_REREADS);
                r.rereadUpTo = Math.max(r.rereadUpTo, end);
            }
            if (all) {
                return; // the oldest READ missing pieces
            }
        }
    }

    private void armTimer() {
        if (holeTimer == null) {
            holeTimer = qp.hca.scheduler().schedule(tuning.holeTimeoutNanos(), onHoleTimer);
        }
    }

    /** The quiet the next timeout re-read waits for ({@link #quietRereads}). */
    private long quietWait() {
        return tuning.holeTimeoutNanos() << Math.min(Math.max(quietRereads - 1, 0), MAX_QUIET_BACKOFF);
    }

    private void holeTimerFired() {
        holeTimer = null;
        if (qp.state == io.rnic.verbs.QpState.ERR || qp.state == io.rnic.verbs.QpState.RESET || !readMissing()) {
            return;
        }
        long quiet = qp.hca.scheduler().nanoTime() - lastProgressAt;
        long wait = quietWait();
        if (quiet >= wait) {
            reread(true);
            quietRereads++;
            lastProgressAt = qp.hca.scheduler().nanoTime();
            holeTimer = qp.hca.scheduler().schedule(quietWait(), onHoleTimer);
        } else {
            holeTimer = qp.hca.scheduler().schedule(wait - quiet, onHoleTimer);
        }
    }

    /** True if a READ, atomic, ATOMIC WRITE or FLUSH whose request has gone waits for answers. */
    private boolean readMissing() {
        SendQueue sq = qp.sq;
        for (long i = sq.completed(); i < sq.posted(); i++) {
            SendWqe w = sq.at(i);
            if (!w.psnAssigned) {
                return false;
            }
            if (awaitsAnswer(w)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void clear() {
        if (holeTimer != null) {
            holeTimer.cancel();
            holeTimer = null;
        }
        ackDeferred = false;
        seen = false;
        arrivedBehindHoles = 0;
        quietRereads = 0;
    }
}
