package io.rnic.core.transport;

/**
 * Work completion status, the values of libibverbs {@code enum ibv_wc_status} (reference §7.1).
 * Only {@link #SUCCESS} means the work request completed; with any other status only the WR id,
 * status, QP number and vendor error of the completion are meaningful.
 */
public enum WcStatus {
    /** The operation completed. */
    SUCCESS(0),
    /** Local length error. */
    LOC_LEN_ERR(1),
    /** Local QP operation error: malformed WQE, opcode invalid for the QP type. */
    LOC_QP_OP_ERR(2),
    /** Local EE context operation error (RD only). */
    LOC_EEC_OP_ERR(3),
    /** Local protection error: a local buffer is not accessible with its lkey. */
    LOC_PROT_ERR(4),
    /** The WQE was flushed because the QP is in the error state. */
    WR_FLUSH_ERR(5),
    /** Memory window bind failed. */
    MW_BIND_ERR(6),
    /** Unexpected response opcode or sequence. */
    BAD_RESP_ERR(7),
    /** Local access error on the responder while placing incoming data. */
    LOC_ACCESS_ERR(8),
    /** The responder answered NAK Invalid Request. */
    REM_INV_REQ_ERR(9),
    /** The responder answered NAK Remote Access Error. */
    REM_ACCESS_ERR(10),
    /** The responder answered NAK Remote Operational Error. */
    REM_OP_ERR(11),
    /** The transport retry counter was exhausted. */
    RETRY_EXC_ERR(12),
    /** The RNR retry counter was exhausted. */
    RNR_RETRY_EXC_ERR(13),
    /** Local RDD violation (RD only). */
    LOC_RDD_VIOL_ERR(14),
    /** The responder answered NAK Invalid RD Request (RD only). */
    REM_INV_RD_REQ_ERR(15),
    /** The responder aborted the operation. */
    REM_ABORT_ERR(16),
    /** Invalid EE context number (RD only). */
    INV_EECN_ERR(17),
    /** Invalid EE context state (RD only). */
    INV_EEC_STATE_ERR(18),
    /** Catastrophic error. */
    FATAL_ERR(19),
    /** Response timeout. */
    RESP_TIMEOUT_ERR(20),
    /** Any other error. */
    GENERAL_ERR(21),
    /** Tag matching error. */
    TM_ERR(22),
    /** Tag matching rendezvous incomplete. */
    TM_RNDV_INCOMPLETE(23);

    // Values are dense from 0, so the ordinal table doubles as the lookup by value.
    private static final WcStatus[] BY_VALUE = values();

    private final int value;

    WcStatus(int value) {
        this.value = value;
    }

    /** The numeric {@code ibv_wc_status} value. */
    public int value() {
        return value;
    }

    /** The status with numeric value {@code value}, or {@code null} if there is none. */
    public static WcStatus valueOf(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }
}
