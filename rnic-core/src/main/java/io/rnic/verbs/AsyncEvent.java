package io.rnic.verbs;

/**
 * An asynchronous event (libibverbs {@code ibv_event_type}), reported to the device's
 * listener from the protocol thread.
 *
 * @param type     what happened
 * @param resource the QP number or CQ identifier it happened to (-1 for device events)
 * @param detail   a human-readable explanation
 */
public record AsyncEvent(Type type, int resource, String detail) {
    /**
     * Checks that the type is given.
     *
     * @param type what happened
     * @param resource the QP number or CQ identifier it happened to (-1 for device events)
     * @param detail a human-readable explanation
     */
    public AsyncEvent {
        java.util.Objects.requireNonNull(type, "type");
    }

    /** Event types, with libibverbs names and values. */
    public enum Type {
        /** {@code IBV_EVENT_CQ_ERR}: a CQ overflowed; the QPs that lost a completion go to ERR. */
        CQ_ERR(0),
        /**
         * {@code IBV_EVENT_QP_FATAL}: the QP went to ERR for an error seen as requester (retries
         * exhausted, an error NAK, a bad response) or a completion lost to a full CQ.
         */
        QP_FATAL(1),
        /** {@code IBV_EVENT_QP_REQ_ERR}: the QP went to ERR for a local error in a send WQE. */
        QP_REQ_ERR(2),
        /**
         * {@code IBV_EVENT_QP_ACCESS_ERR}: the QP went to ERR for an error found as responder (a
         * request it NAKed fatally, such as an access violation; a bad receive WQE; a failed invalidation).
         */
        QP_ACCESS_ERR(3),
        /** {@code IBV_EVENT_COMM_EST}: a packet arrived on a QP in RTR; not raised by this emulator. */
        COMM_EST(4),
        /** {@code IBV_EVENT_SQ_DRAINED}: a QP in SQD has no outstanding send WQEs left. */
        SQ_DRAINED(5),
        /** {@code IBV_EVENT_PATH_MIG}: the alternate path was loaded; not raised (no path migration). */
        PATH_MIG(6),
        /** {@code IBV_EVENT_PATH_MIG_ERR}: path migration failed; not raised (no path migration). */
        PATH_MIG_ERR(7),
        /** {@code IBV_EVENT_DEVICE_FATAL}: the device failed and is unusable; not raised by this emulator. */
        DEVICE_FATAL(8),
        /** {@code IBV_EVENT_PORT_ACTIVE}: the port went ACTIVE; not raised by this emulator. */
        PORT_ACTIVE(9),
        /** {@code IBV_EVENT_PORT_ERR}: the port left ACTIVE; not raised by this emulator. */
        PORT_ERR(10),
        /** {@code IBV_EVENT_LID_CHANGE}: the port's LID changed (InfiniBand only); not raised. */
        LID_CHANGE(11),
        /** {@code IBV_EVENT_PKEY_CHANGE}: the port's P_Key table changed; not raised. */
        PKEY_CHANGE(12),
        /** {@code IBV_EVENT_SM_CHANGE}: the subnet manager changed (InfiniBand only); not raised. */
        SM_CHANGE(13),
        /** {@code IBV_EVENT_SRQ_ERR}: an SRQ failed; not raised by this emulator. */
        SRQ_ERR(14),
        /** {@code IBV_EVENT_SRQ_LIMIT_REACHED}: an armed SRQ fell below its {@code srq_limit}. */
        SRQ_LIMIT_REACHED(15),
        /**
         * {@code IBV_EVENT_QP_LAST_WQE_REACHED}: a QP attached to an SRQ went to ERR and will
         * consume no more of its receive WQEs.
         */
        QP_LAST_WQE_REACHED(16),
        /**
         * {@code IBV_EVENT_CLIENT_REREGISTER}: the SM asks clients to re-register (InfiniBand only);
         * not raised.
         */
        CLIENT_REREGISTER(17),
        /** {@code IBV_EVENT_GID_CHANGE}: the port's GID table changed; not raised. */
        GID_CHANGE(18),
        /** {@code IBV_EVENT_WQ_FATAL}: a work queue ({@code ibv_wq}) failed; not raised (no WQs). */
        WQ_FATAL(19);

        private final int value;

        Type(int value) {
            this.value = value;
        }

        /**
         * The numeric value, as in libibverbs.
         *
         * @return the {@code ibv_event_type} value
         */
        public int value() {
            return value;
        }
    }
}
