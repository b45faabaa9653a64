package io.rnic.verbs;

/** QP states with the values of libibverbs {@code enum ibv_qp_state} (reference §6.1). */
public enum QpState {
    /** Just created or reset: queues empty, nothing processed. */
    RESET(0),
    /** Receives may be posted; packets are dropped. */
    INIT(1),
    /** Ready to receive: requests are processed, nothing is sent but responses. */
    RTR(2),
    /** Ready to send. */
    RTS(3),
    /** Send queue drain: outstanding requests finish, no new ones start. */
    SQD(4),
    /** Send queue error (UC/UD): the send queue is in error, the receive side still works. */
    SQE(5),
    /** Error: everything is flushed. */
    ERR(6);

    private static final QpState[] BY_VALUE = values();

    private final int value;

    QpState(int value) {
        this.value = value;
    }

    /**
     * The numeric value, as in libibverbs.
     *
     * @return the {@code ibv_qp_state} value
     */
    public int value() {
        return value;
    }

    /**
     * The state with numeric value {@code value}.
     *
     * @param value an {@code ibv_qp_state} value, 0..6
     * @return the matching state
     * @throws IllegalArgumentException if there is none (7 is {@code IBV_QPS_UNKNOWN})
     */
    public static QpState ofValue(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("QP state " + value + " is not a valid ibv_qp_state (0..6)");
        }
        return BY_VALUE[value];
    }
}
