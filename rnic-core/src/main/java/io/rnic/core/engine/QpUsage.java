package io.rnic.core.engine;

import io.rnic.verbs.QpState;

/**
 * How much of its queues and budgets a QP is using, beyond what {@code query()} returns: the
 * columns of a resource view ({@code rdma resource show qp} and rnic's additions). Read on the
 * protocol thread, which owns the PSN window, the retry budgets and the send queue's progress.
 *
 * @param sqUsed          send work requests posted and not yet completed
 * @param sqMax           the send queue's capacity (max_send_wr); 0 for a QP without one
 * @param rqUsed          receive work requests posted to the QP's own queue and not yet completed;
 *                        -1 for a QP that takes them from an SRQ or receives nothing
 * @param rqMax           the own receive queue's capacity, or -1 as above
 * @param inFlight        PSNs sent and not yet acknowledged (the requester's window)
 * @param readsAtomics    READs and atomics started and not yet answered
 * @param retryLeft       retries left of retry_cnt after a timeout or sequence NAK
 * @param rnrLeft         RNR retries left of rnr_retry (7: for ever)
 * @param mtu             the path MTU in bytes
 */
public record QpUsage(int sqUsed, int sqMax, int rqUsed, int rqMax, int inFlight, int readsAtomics, int retryLeft,
                      int rnrLeft, int mtu) {

    /** Reads {@code qp}'s usage. Protocol thread (or a closed device, where nothing else runs). */
    public static QpUsage of(QpContext qp) {
        long posted = qp.sq.posted();
        long completed = qp.sq.completed();
        int readsAtomics = 0;
        if (!(qp.sq instanceof EecSendQueue)) {
            // What the requester's READ/atomic gate counts: started (PSNs assigned), not retired.
            for (long i = completed; i < posted; i++) {
                SendWqe w = qp.sq.at(i);
                if (w.kind != null && w.kind.isReadOrAtomic() && w.psnAssigned) {
                    readsAtomics++;
                }
            }
        }
        boolean ownRq = qp.rq instanceof OwnReceiveQueue;
        int rqUsed = ownRq ? ((OwnReceiveQueue) qp.rq).inUse() : -1;
        int rqMax = ownRq ? ((OwnReceiveQueue) qp.rq).capacity() : -1;
        boolean started = qp.requesterStarted && qp.state != QpState.RESET;
        int sqMax = qp.sq instanceof EecSendQueue || !qp.policy.sides().sends() ? 0 : qp.caps.maxSendWr();
        return new QpUsage((int) (posted - completed), sqMax, rqUsed, rqMax,
                started ? qp.rel.sendWindow.inFlight() : 0, readsAtomics, qp.rel.retryLeft, qp.rel.rnrLeft, qp.mtu);
    }
}
