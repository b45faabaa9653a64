package io.rnic.core.engine;

import io.rnic.core.psn.Psn;
import io.rnic.verbs.Pitfall;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;

/**
 * The pitfalls a modify_qp can walk into: a PSN wider than 24 bits (masked, RNIC-W005), a short
 * minimum RNR timer with endless RNR retries (RNIC-W002), and RESET with work outstanding
 * (RNIC-W006). Checked on the protocol thread, in the modify, never per packet.
 */
final class ModifyPitfalls {
    /** RNR timer codes 1 to 11 wait 0.01 to 0.48 ms; 12 is 0.64 ms; 0 is the longest, 655.36 ms (the RNR NAK timer field's encoding). */
    private static final int SHORTEST_SENSIBLE_RNR_TIMER = 12;

    private final QpContext qp;

    ModifyPitfalls(QpContext qp) {
        this.qp = qp;
    }

    /**
     * After {@code a}'s attributes were copied into the QP's: masks a PSN wider than 24 bits, as
     * real stacks do (IBA 9.7.1: PSNs are 24 bits), and looks at the RNR settings now in force.
     */
    void afterCopy(QpAttributes a, int mask) {
        if ((mask & QpAttrMask.SQ_PSN) != 0 && (a.sqPsn() & ~Psn.MASK) != 0) {
            qp.attrs.sqPsn(a.sqPsn() & Psn.MASK);
            psnMasked("send", a.sqPsn());
        }
        if ((mask & QpAttrMask.RQ_PSN) != 0 && (a.rqPsn() & ~Psn.MASK) != 0) {
            qp.attrs.rqPsn(a.rqPsn() & Psn.MASK);
            psnMasked("receive", a.rqPsn());
        }
        if ((mask & (QpAttrMask.MIN_RNR_TIMER | QpAttrMask.RNR_RETRY)) != 0 && qp.policy.ack().acked()) {
            int timer = qp.attrs.minRnrTimer();
            if (timer > 0 && timer < SHORTEST_SENSIBLE_RNR_TIMER && qp.attrs.rnrRetry() == 7
                    && qp.hca.pitfalls().occurred(Pitfall.SHORT_RNR_TIMER_WITH_ENDLESS_RETRY, qp.qpn)) {
                qp.hca.pitfalls().log(Pitfall.SHORT_RNR_TIMER_WITH_ENDLESS_RETRY, String.format("QP 0x%x: min_rnr_timer"
                        + " %d with rnr_retry 7 (retry forever): a receiver short of receives is asked again every"
                        + " few microseconds", qp.qpn, timer));
            }
        }
    }

    private void psnMasked(String side, int given) {
        if (qp.hca.pitfalls().occurred(Pitfall.PSN_WIDER_THAN_24_BITS, qp.qpn)) {
            qp.hca.pitfalls().log(Pitfall.PSN_WIDER_THAN_24_BITS, String.format("QP 0x%x: %s PSN 0x%x is wider than 24"
                    + " bits; 0x%06x is used", qp.qpn, side, given, given & Psn.MASK));
        }
    }

    /** Before the QP goes to RESET: work requests still outstanding will never complete. */
    void beforeReset() {
        long sends = qp.sq == null ? 0 : qp.sq.posted() - qp.sq.completed();
        int receives = qp.rq == null || qp.srq != null ? 0 : qp.rq.available(); // an SRQ's WQEs stay in it
        if ((sends > 0 || receives > 0) && qp.hca.pitfalls().occurred(Pitfall.RESET_WITH_OUTSTANDING_WORK, qp.qpn)) {
            qp.hca.pitfalls().log(Pitfall.RESET_WITH_OUTSTANDING_WORK, String.format("QP 0x%x moved to RESET with %d send"
                    + " and %d receive work requests outstanding: they will never complete", qp.qpn, sends, receives));
        }
    }
}
