package io.rnic.verbs;

/** A receive work request ({@code struct ibv_recv_wr}), mutable and reusable. */
public final class RecvWorkRequest extends WorkRequest {

    /**
     * Clears the id and the scatter list, for reuse.
     *
     * @return {@code this}
     */
    public RecvWorkRequest reset() {
        wrId = 0;
        sges.count = 0;
        return this;
    }

    /**
     * Sets {@code wr_id}, the caller's tag that the work completion carries back.
     *
     * @param id any value
     * @return {@code this}
     */
    public RecvWorkRequest wrId(long id) {
        this.wrId = id;
        return this;
    }

    /**
     * Appends a scatter entry ({@code struct ibv_sge}): {@code length} bytes at {@code address}
     * of the region with {@code lkey}.
     *
     * @param address the virtual address of the first byte
     * @param length the length in bytes
     * @param lkey the local key of the memory region holding the buffer
     * @return {@code this}
     * @throws IllegalArgumentException if {@code length} is negative
     */
    public RecvWorkRequest sge(long address, int length, int lkey) {
        sges.add(address, length, lkey);
        return this;
    }

}
