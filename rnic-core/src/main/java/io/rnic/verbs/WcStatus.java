package io.rnic.verbs;

/**
 * Work completion status, the values of libibverbs {@code enum ibv_wc_status} (reference §7.1).
 * Only {@link #SUCCESS} means the work request completed; with any other status only the WR id,
 * status, QP number and vendor error of the completion are meaningful.
 */
public enum WcStatus {
    /** The operation completed. */
    SUCCESS(0, "success"),
    /** Local length error. */
    LOC_LEN_ERR(1, "local length error"),
    /** Local QP operation error: malformed WQE, opcode invalid for the QP type. */
    LOC_QP_OP_ERR(2, "local QP operation error"),
    /** Local EE context operation error (RD only). */
    LOC_EEC_OP_ERR(3, "local EE context operation error"),
    /** Local protection error: a local buffer is not accessible with its lkey. */
    LOC_PROT_ERR(4, "local protection error"),
    /** The WQE was flushed because the QP is in the error state. */
    WR_FLUSH_ERR(5, "Work Request Flushed Error"),
    /** Memory window bind failed. */
    MW_BIND_ERR(6, "memory management operation error"),
    /** Unexpected response opcode or sequence. */
    BAD_RESP_ERR(7, "bad response error"),
    /** Local access error on the responder while placing incoming data. */
    LOC_ACCESS_ERR(8, "local access error"),
    /** The responder answered NAK Invalid Request. */
    REM_INV_REQ_ERR(9, "remote invalid request error"),
    /** The responder answered NAK Remote Access Error. */
    REM_ACCESS_ERR(10, "remote access error"),
    /** The responder answered NAK Remote Operational Error. */
    REM_OP_ERR(11, "remote operation error"),
    /** The transport retry counter was exhausted. */
    RETRY_EXC_ERR(12, "transport retry counter exceeded"),
    /** The RNR retry counter was exhausted. */
    RNR_RETRY_EXC_ERR(13, "RNR retry counter exceeded"),
    /** Local RDD violation (RD only). */
    LOC_RDD_VIOL_ERR(14, "local RDD violation error"),
    /** The responder answered NAK Invalid RD Request (RD only). */
    REM_INV_RD_REQ_ERR(15, "remote invalid RD request"),
    /** The responder aborted the operation. */
    REM_ABORT_ERR(16, "aborted error"),
    /** Invalid EE context number (RD only). */
    INV_EECN_ERR(17, "invalid EE context number"),
    /** Invalid EE context state (RD only). */
    INV_EEC_STATE_ERR(18, "invalid EE context state"),
    /** Catastrophic error. */
    FATAL_ERR(19, "fatal error"),
    /** Response timeout. */
    RESP_TIMEOUT_ERR(20, "response timeout error"),
    /** Any other error. */
    GENERAL_ERR(21, "general error"),
    /** Tag matching error. */
    TM_ERR(22, "TM error"),
    /** Tag matching rendezvous incomplete. */
    TM_RNDV_INCOMPLETE(23, "TM software rendezvous");

    // Values are dense from 0, so the ordinal table doubles as the lookup by value.
    private static final WcStatus[] BY_VALUE = values();

    private final int value;
    private final String text;

    WcStatus(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /**
     * The status as text, for messages.
     *
     * @return what {@code ibv_wc_status_str} says of it ("local length error", ...)
     */
    public String text() {
        return text;
    }

    /**
     * The numeric value, as in libibverbs.
     *
     * @return the {@code ibv_wc_status} value
     */
    public int value() {
        return value;
    }

    /**
     * The status with numeric value {@code value}.
     *
     * @param value an {@code ibv_wc_status} value
     * @return the matching status, or {@code null} if there is none
     */
    public static WcStatus valueOf(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }
}
