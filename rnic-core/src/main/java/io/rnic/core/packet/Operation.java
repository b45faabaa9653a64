package io.rnic.core.packet;

/** The operation an opcode performs, independent of transport and position. */
public enum Operation {
    SEND,
    RDMA_WRITE,
    RDMA_READ_REQUEST,
    RDMA_READ_RESPONSE,
    ACKNOWLEDGE,
    ATOMIC_ACKNOWLEDGE,
    COMPARE_SWAP,
    FETCH_ADD,
    RESYNC,
    FLUSH,
    ATOMIC_WRITE,
    CNP;

    /** True for operations sent by a responder (read responses and acknowledgements). */
    public boolean isResponse() {
        return this == RDMA_READ_RESPONSE || this == ACKNOWLEDGE || this == ATOMIC_ACKNOWLEDGE;
    }
}
