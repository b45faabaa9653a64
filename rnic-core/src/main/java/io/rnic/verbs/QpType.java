package io.rnic.verbs;

/** QP transport types with the values of libibverbs {@code enum ibv_qp_type}. */
public enum QpType {
    /**
     * The general services interface QP, the kernel's {@code IB_QPT_GSI}: a UD QP whose number is
     * always 1 (one per device), whose Q_Key is 0x80010000, and which carries management
     * datagrams such as the connection manager's (reference §11.6).
     */
    GSI(1),
    /** Reliable Connected. */
    RC(2),
    /** Unreliable Connected. */
    UC(3),
    /** Unreliable Datagram. */
    UD(4),
    /** XRC initiator (send) side, the kernel's XRC_INI. */
    XRC_SEND(9),
    /** XRC target (receive) side, the kernel's XRC_TGT. */
    XRC_RECV(10),
    /**
     * Reliable Datagram (IBA 9.7.8): a QP of a reliable datagram domain that sends each
     * message through the EE context its work request names, to any RD QP of that context's
     * node, and receives from any EE context of its domain. libibverbs has no RD; 16 is rnic's
     * value, above every {@code ibv_qp_type}.
     */
    RD(16);

    private static final QpType[] ALL = values();

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    /**
     * The numeric value, as in libibverbs.
     *
     * @return the {@code ibv_qp_type} value
     */
    public int value() {
        return value;
    }

    /**
     * The type with numeric value {@code value}.
     *
     * @param value an {@code ibv_qp_type} value
     * @return the matching type
     * @throws IllegalArgumentException if there is none
     */
    public static QpType ofValue(int value) {
        for (QpType t : ALL) {
            if (t.value == value) {
                return t;
            }
        }
        throw new IllegalArgumentException("QP type " + value + " is not supported (GSI 1, RC 2, UC 3, UD 4, XRC_SEND 9, XRC_RECV 10, RD 16)");
    }
}
