package io.rnic.verbs;

/** A receive work request ({@code struct ibv_recv_wr}), mutable and reusable. */
public final class RecvWorkRequest {
    long wrId;
    final Sges sges = new Sges();

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
     */
    public RecvWorkRequest sge(long address, int length, int lkey) {
        sges.add(address, length, lkey);
        return this;
    }

    /**
     * The caller's tag.
     *
     * @return {@code wr_id}
     */
    public long wrId() {
        return wrId;
    }

    /**
     * The number of scatter entries.
     *
     * @return {@code num_sge}
     */
    public int numSge() {
        return sges.count;
    }

    /**
     * The largest message the request can receive.
     *
     * @return the total bytes the scatter list can take
     */
    public long totalLength() {
        return sges.totalLength();
    }

    /**
     * The address of a scatter entry.
     *
     * @param i an entry, 0 to {@link #numSge()} - 1
     * @return its virtual address
     */
    public long sgeAddress(int i) {
        return sges.addr[i];
    }

    /**
     * The length of a scatter entry.
     *
     * @param i an entry, 0 to {@link #numSge()} - 1
     * @return its length in bytes
     */
    public int sgeLength(int i) {
        return sges.length[i];
    }

    /**
     * The local key of a scatter entry.
     *
     * @param i an entry, 0 to {@link #numSge()} - 1
     * @return its L_Key
     */
    public int sgeLkey(int i) {
        return sges.lkey[i];
    }
}
