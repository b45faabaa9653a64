package io.rnic.core.hca;

/**
 * An asynchronous event (libibverbs {@code ibv_event_type}), reported to the device's
 * listener from the protocol thread.
 *
 * @param type     what happened
 * @param resource the QP number or CQ identifier it happened to (-1 for device events)
 * @param detail   a human-readable explanation
 */
public record AsyncEvent(Type type, int resource, String detail) {
    /** Event types, with libibverbs names and values. */
    public enum Type {
        CQ_ERR(0), QP_FATAL(1), QP_REQ_ERR(2), QP_ACCESS_ERR(3), COMM_EST(4), SQ_DRAINED(5),
        PATH_MIG(6), PATH_MIG_ERR(7), DEVICE_FATAL(8), PORT_ACTIVE(9), PORT_ERR(10), LID_CHANGE(11),
        PKEY_CHANGE(12), SM_CHANGE(13), SRQ_ERR(14), SRQ_LIMIT_REACHED(15), QP_LAST_WQE_REACHED(16),
        CLIENT_REREGISTER(17), GID_CHANGE(18), WQ_FATAL(19);

        private final int value;

        Type(int value) {
            this.value = value;
        }

        public int value() {
            return value;
        }
    }
}
