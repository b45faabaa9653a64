package io.rnic.verbs;

/**
 * Work completion opcode, the values of libibverbs {@code enum ibv_wc_opcode} (reference §7.2)
 * that this emulator produces. Receive-side opcodes have bit 7 ({@code IBV_WC_RECV}) set.
 */
public enum WcOpcode {
    /** Requester: SEND, SEND with Immediate, SEND with Invalidate. */
    SEND(0),
    /** Requester: RDMA WRITE, RDMA WRITE with Immediate. */
    RDMA_WRITE(1),
    /** Requester: RDMA READ. */
    RDMA_READ(2),
    /** Requester: atomic compare and swap. */
    COMP_SWAP(3),
    /** Requester: atomic fetch and add. */
    FETCH_ADD(4),
    /** Memory window bind. */
    BIND_MW(5),
    /** Local invalidate. */
    LOCAL_INV(6),
    /** TCP segmentation offload (raw packet QPs). */
    TSO(7),
    /** Requester: FLUSH. */
    FLUSH(8),
    /** Requester: ATOMIC WRITE. */
    ATOMIC_WRITE(9),
    /** Requester: fast registration, the kernel's {@code IB_WC_REG_MR} (libibverbs has none). */
    REG_MR(10),
    /** Responder: an incoming SEND (any variant) consumed a receive WQE. */
    RECV(128),
    /** Responder: an incoming RDMA WRITE with Immediate consumed a receive WQE. */
    RECV_RDMA_WITH_IMM(129);

    private static final int RECV_BIT = 128;

    // values() clones its array on every call; keep one copy for the lookup.
    private static final WcOpcode[] ALL = values();

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /**
     * The numeric value, as in libibverbs.
     *
     * @return the {@code ibv_wc_opcode} value
     */
    public int value() {
        return value;
    }

    /**
     * Tells a receive-side completion from a send-side one.
     *
     * @return true for completions of the receive side ({@code opcode & IBV_WC_RECV})
     */
    public boolean isReceive() {
        return (value & RECV_BIT) != 0;
    }

    /**
     * The opcode with numeric value {@code value}.
     *
     * @param value an {@code ibv_wc_opcode} value
     * @return the matching opcode, or {@code null} if there is none
     */
    public static WcOpcode valueOf(int value) {
        for (WcOpcode op : ALL) {
            if (op.value == value) {
                return op;
            }
        }
        return null;
    }
}
