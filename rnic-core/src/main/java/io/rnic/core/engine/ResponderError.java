package io.rnic.core.engine;

import io.rnic.core.packet.AethSyndrome;
import io.rnic.verbs.WcStatus;

/**
 * Conditions the responder detects, each mapped to what the specification says to do: which
 * NAK (if any) goes back, what status a receive WQE held by the message completes with, and
 * whether the responder's QP moves to ERR (rxe's class A/C errors do).
 */
enum ResponderError {
    /** A MIDDLE/LAST without a FIRST, or a new FIRST while a message is open. */
    OPCODE_SEQUENCE(AethSyndrome.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, true),
    /** The QP's access flags do not allow the operation, or the opcode is not supported. */
    OPERATION_NOT_ALLOWED(AethSyndrome.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, true),
    /** A READ or atomic arrived but max_dest_rd_atomic is 0. */
    NO_RESPONDER_RESOURCES(AethSyndrome.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, true),
    /** Payload length not allowed by the position and path MTU, or DMA length inconsistent. */
    LENGTH(AethSyndrome.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, true),
    /** An incoming SEND does not fit in the receive WQE (spec: LOC_LEN_ERR on the RWQE). */
    RECEIVE_TOO_SHORT(AethSyndrome.NAK_INVALID_REQUEST, WcStatus.LOC_LEN_ERR, true),
    /** The R_Key, PD, bounds or access rights of the target region do not allow the access. */
    REMOTE_ACCESS(AethSyndrome.NAK_REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR, true),
    /** An atomic's address is not 8-byte aligned. */
    MISALIGNED_ATOMIC(AethSyndrome.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, true),
    /** The XRC SRQ a message's first or only packet names is not one of the target QP's XRC domain (o9-114.a6). */
    XRC_DOMAIN(AethSyndrome.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, true),
    /** A middle or last XRC packet names another XRC SRQ than its message's first (o9-114.a5). */
    XRC_SRQ_CHANGED(AethSyndrome.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, true),
    /**
     * An RD request for a QP that is not an RD QP able to receive, of another RDD than the EE
     * context's, or whose Q_Key is not the QP's (9.7.8.1); concerns that QP, not the context.
     */
    INVALID_RD_REQUEST(AethSyndrome.NAK_INVALID_RD_REQUEST, WcStatus.REM_INV_RD_REQ_ERR, false),
    /** A reserved value in a header field the operation depends on (FLUSH's selectivity or placement type). */
    RESERVED_FIELD(AethSyndrome.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, true),
    /** A receive WQE's own buffers are not writable (bad lkey, bounds or LOCAL_WRITE). */
    RECEIVE_BUFFER(AethSyndrome.NAK_REMOTE_OPERATIONAL_ERROR, WcStatus.LOC_PROT_ERR, true) {
        @Override
        boolean wqeAtFault() {
            return true;
        }
    };

    private final int nakCode;
    private final WcStatus receiveStatus;
    private final boolean fatal;

    ResponderError(int nakCode, WcStatus receiveStatus, boolean fatal) {
        this.nakCode = nakCode;
        this.receiveStatus = receiveStatus;
        this.fatal = fatal;
    }

    int nakCode() {
        return nakCode;
    }

    WcStatus receiveStatus() {
        return receiveStatus;
    }

    boolean fatal() {
        return fatal;
    }

    /**
     * True when the receive WQE itself is at fault, not the packet: it completes with the error
     * and the QP moves to ERR whatever the transport (rxe's class A).
     */
    boolean wqeAtFault() {
        return false;
    }
}
