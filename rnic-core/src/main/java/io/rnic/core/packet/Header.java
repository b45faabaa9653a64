package io.rnic.core.packet;

/**
 * The extension transport headers that may follow the BTH, with their fixed lengths
 * (reference §2). The order in which they appear is given per opcode by {@link OpcodeTable}.
 */
public enum Header {
    /** Reliable Datagram ETH: destination EE context (§2.9). */
    RDETH(4),
    /** Datagram ETH: Q_Key and source QP (§2.8). */
    DETH(8),
    /** XRC ETH: XRC SRQ number at the target (§2.10). */
    XRCETH(4),
    /** FLUSH ETH: selectivity level and placement type (§2.11). */
    FETH(4),
    /** RDMA ETH: virtual address, R_Key, DMA length (§2.2). */
    RETH(16),
    /** ACK ETH: syndrome and MSN (§2.3). */
    AETH(4),
    /** Atomic ETH: address, R_Key, swap/add and compare data (§2.4). */
    ATOMIC_ETH(28),
    /** Atomic ACK ETH: original remote data (§2.5). */
    ATOMIC_ACK_ETH(8),
    /** Immediate data (§2.6). */
    IMMDT(4),
    /** Invalidate ETH: R_Key to invalidate (§2.7). */
    IETH(4),
    /** The 16 reserved bytes that follow the BTH of a CNP (§1.7). */
    CNP_RESERVED(16),
    /**
     * rnic's Selective Retransmission ETH (the selective-retransmission protocol, docs/packets.md): where a
     * request or READ response belongs, so it can be placed on arrival; on an ACKNOWLEDGE, the
     * bitmap of PSNs the responder misses.
     */
    SRETH(32);

    private final int length;

    Header(int length) {
        this.length = length;
    }

    /** Length of this header in bytes. */
    public int length() {
        return length;
    }
}
