package io.rnic.verbs;

/**
 * Send work request opcode, the values of libibverbs {@code enum ibv_wr_opcode} (reference §7.2).
 * The numbering has gaps (12 and 13 are unused).
 */
public enum WrOpcode {
    /** RDMA WRITE. */
    RDMA_WRITE(0),
    /** RDMA WRITE with Immediate. */
    RDMA_WRITE_WITH_IMM(1),
    /** SEND. */
    SEND(2),
    /** SEND with Immediate. */
    SEND_WITH_IMM(3),
    /** RDMA READ. */
    RDMA_READ(4),
    /** Atomic compare and swap. */
    ATOMIC_CMP_AND_SWP(5),
    /** Atomic fetch and add. */
    ATOMIC_FETCH_AND_ADD(6),
    /** Local invalidate. */
    LOCAL_INV(7),
    /** Memory window bind. */
    BIND_MW(8),
    /** SEND with Invalidate. */
    SEND_WITH_INV(9),
    /** TCP segmentation offload (raw packet QPs). */
    TSO(10),
    /** Vendor-specific. */
    DRIVER1(11),
    /** FLUSH. */
    FLUSH(14),
    /** ATOMIC WRITE. */
    ATOMIC_WRITE(15),
    /**
     * Fast registration of a region allocated without memory: the kernel's {@code IB_WR_REG_MR}
     * (libibverbs has no user-space equivalent; rnic offers it to Java applications).
     */
    REG_MR(0x20);

    // values() clones its array on every call; keep one copy for the lookup.
    private static final WrOpcode[] ALL = values();

    private final int value;

    WrOpcode(int value) {
        this.value = value;
    }

    /**
     * The numeric value, as in libibverbs.
     *
     * @return the {@code ibv_wr_opcode} value
     */
    public int value() {
        return value;
    }

    /**
     * The opcode with numeric value {@code value}.
     *
     * @param value an {@code ibv_wr_opcode} value
     * @return the matching opcode, or {@code null} if there is none
     */
    public static WrOpcode valueOf(int value) {
        for (WrOpcode op : ALL) {
            if (op.value == value) {
                return op;
            }
        }
        return null;
    }
}
