package io.rnic.core.engine;

import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.QpState;

/**
 * Error injection into a QP (protocol thread): each error takes the path of the real one, so the
 * application sees the same events and completions as when the QP meets it itself.
 */
public final class InjectedErrors {
    private InjectedErrors() {
    }

    /**
     * The QP fails as on a fatal error it detects itself: {@code event} (QP_FATAL; none when the
     * device or its SRQ failed), ERR, every outstanding WQE flushed. Nothing happens to a QP that
     * is destroyed or already in ERR.
     */
    public static void fatal(QpContext qp, AsyncEvent.Type event) {
        if (!qp.destroyed && qp.state != QpState.ERR) {
            qp.moveToError(event);
        }
    }

    /**
     * The next send WQE the QP has not started names a local key that grants nothing, so the
     * requester's own check fails it with LOC_PROT_ERR and the QP goes to ERR, as for a key the
     * application got wrong.
     *
     * @throws IllegalStateException if no send WQE with a non-empty first entry waits to start
     */
    public static void localProtection(QpContext qp) {
        for (long i = Math.max(qp.requester.cursor, qp.sq.completed()); i < qp.sq.posted(); i++) {
            SendWqe w = qp.sq.at(i);
            if (!w.localChecked && !w.psnAssigned && !w.isInline() && w.sgl.count > 0 && w.sgl.length(0) > 0) {
                w.sgl.spoilFirstKey();
                qp.sendDriver.run(); // the requester meets it now, as if it had just been posted
                return;
            }
        }
        throw new IllegalStateException("QP 0x" + Integer.toHexString(qp.qpn) + " has no send work request waiting"
                + " to start with a scatter/gather entry to fail");
    }
}
