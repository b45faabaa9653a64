package io.rnic.core.engine;

/**
 * What serves a QP's send queue (the send-side seam): the QP's own {@link Requester}; for an RD
 * QP, the EE contexts its work requests name ({@link RdQpSender}); for an EE context, the
 * scheduler of the messages it carries ({@link EecScheduler}). One implementation per
 * {@link TransportPolicy.DestinationKind} family.
 */
interface SendDriver {
    /** Work was posted or the state now allows sending: send what can be sent. Protocol thread. */
    void run();

    /**
     * The QP is leaving for ERR or RESET: whatever of its send queue is on an EE context is
     * taken off it. Protocol thread.
     */
    void stop();

    /**
     * The QP entered SQD: once what was started has completed, SQ_DRAINED is raised if
     * {@code notify} (reference §6.2). Protocol thread.
     */
    void drainRequested(boolean notify);
}
