package io.rnic.verbs.cm;

/**
 * An rdma_cm port space ({@code enum rdma_port_space}): which service IDs a port maps to and
 * which QP type connects through it. The service ID is {@code 0x0000000001000000 | space << 16 |
 * port} (the Linux kernel's {@code rdma_get_service_id}).
 */
public enum PortSpace {
    /** {@code RDMA_PS_TCP}: reliable connected QPs, REQ/REP/RTU. */
    TCP(0x0106),
    /** {@code RDMA_PS_UDP}: unreliable datagram QPs, resolved with SIDR. */
    UDP(0x0111),
    /** {@code RDMA_PS_IB}: RC, UC or UD, as the QP says. */
    IB(0x013F);

    private final int value;

    PortSpace(int value) {
        this.value = value;
    }

    /**
     * The numeric value, as in librdmacm.
     *
     * @return the {@code rdma_port_space} value
     */
    public int value() {
        return value;
    }

    /**
     * The service ID of {@code port} in this space.
     *
     * @param port a port, 0 to 65535
     * @return the 64-bit service ID a REQ or SIDR_REQ names
     */
    public long serviceId(int port) {
        return 0x0000000001000000L | (long) value << 16 | (port & 0xFFFF);
    }
}
