package io.rnic.core.engine;

import io.rnic.verbs.WcStatus;

/**
 * An EE context's completions: a message it carried is completed at the RD QP that posted it,
 * by its scheduler, which then starts the next; the context has no queues of its own to flush.
 */
final class EecCompletions extends CompletionWriter {
    EecCompletions(QpContext eec) {
        super(eec);
    }

    @Override
    void completeSend(SendWqe w, WcStatus status) {
        qp.ee.completed(w, status);
    }

    @Override
    void flushSend() {
        // The scheduler's stop() completed what the context carried and what waited for it.
    }
}
