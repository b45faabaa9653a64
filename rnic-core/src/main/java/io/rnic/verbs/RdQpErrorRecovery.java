package io.rnic.verbs;

/**
 * What an EE context's requester does when a message fails for a reason that concerns its QP
 * rather than the context (an R_Key or Q_Key violation, an invalid RD request, RNR retries spent):
 * the two choices of o9-114.a1 (IBA 9.7.8.5).
 */
public enum RdQpErrorRecovery {
    /**
     * Choice 2, the default: the message completes in error, its QP's send queue goes to SQE, and
     * the context sends a RESYNC and carries on with other QPs' messages.
     */
    RESYNC,
    /**
     * Choice 1: the message completes in error and both the QP and the context move to ERR; the
     * application re-establishes the context (RESET, then RTR and RTS with new PSNs), which
     * resynchronises both ends as a RESYNC would.
     */
    FAIL_CONTEXT
}
