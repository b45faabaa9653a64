package io.rnic.core.engine;

import io.rnic.core.psn.RequesterPsnWindow;
import io.rnic.core.psn.ResponderPsnWindow;
import io.rnic.core.time.Scheduler;

/**
 * The state that makes a connection reliable, in one object: the requester's PSN window and
 * retry budgets with their timers, and the responder's expected PSN, MSN and READ/atomic
 * resources. An RC, UC or UD QP owns one (UC and UD use only the PSN counters); an RD EE context
 * owns one that the RD QPs whose messages it carries share. The requester, completer and
 * responder keep no reliability state of their own.
 */
final class ReliabilityContext {
    // ---- requester side
    /** PSNs sent and not yet acknowledged. */
    final RequesterPsnWindow sendWindow = new RequesterPsnWindow(128);
    /** Packets since the last one with AckReq set. */
    int packetsSinceAckReq;
    /** Waiting out an RNR NAK's timer. */
    boolean rnrWait;
    /** Retries left after a timeout or sequence NAK (retry_cnt). */
    int retryLeft;
    /** RNR retries left (rnr_retry; 7 means forever). */
    int rnrLeft;
    /** When the local ACK timer expires, in scheduler time. */
    long ackDeadline;
    Scheduler.Timer ackTimer;
    boolean ackTimerPending;
    /** When the pending ACK timer fires, in scheduler time (it may be before or after the deadline). */
    long ackTimerAt;
    Scheduler.Timer rnrTimer;
    /**
     * The PSN a NAK or an implied NAK last restarted the send queue from, until progress or a
     * timeout: further evidence of the same loss must not restart it again and spend another
     * retry (rxe's started_retry). -1 when none.
     */
    int impliedRetryPsn = -1;
    /** The MSN of the last response with an AETH taken (an RD EE context's RESYNC reads it, 9.7.8.6.1). */
    int lastResponseMsn;

    // ---- responder side
    /** The expected PSN and the duplicate region behind it. */
    final ResponderPsnWindow receiveWindow = new ResponderPsnWindow();
    /** Messages completed (reference §5.7). */
    int msn;
    /** A sequence NAK was sent and not yet answered by the expected PSN. */
    boolean nakSent;
    /** Accepted READs and atomics, for answering duplicates (reference §5.5). */
    final ResponderResources resources = new ResponderResources();

    /** Cancels the timers. */
    void stopTimers() {
        if (ackTimer != null) {
            ackTimer.cancel();
            ackTimer = null;
        }
        ackTimerPending = false;
        if (rnrTimer != null) {
            rnrTimer.cancel();
            rnrTimer = null;
        }
        rnrWait = false;
    }
}
