package io.rnic.verbs;

/**
 * What send and receive work requests share: the caller's {@code wr_id} and the scatter/gather
 * list ({@code struct ibv_sge} entries). The device reads both when the request is posted.
 */
public abstract class WorkRequest {
    long wrId;
    final Sges sges = new Sges();

    WorkRequest() {
        // only the two kinds of this package
    }

    /**
     * The caller's tag, carried back by the work completion ({@code wr_id}).
     *
     * @return the id
     */
    public long wrId() {
        return wrId;
    }

    /**
     * How many scatter/gather entries the request has ({@code num_sge}).
     *
     * @return the entry count
     */
    public int numSge() {
        return sges.count;
    }

    /**
     * The bytes the scatter/gather list describes, summed over its entries.
     *
     * @return the total length in bytes
     */
    public long totalLength() {
        return sges.totalLength();
    }

    /**
     * The address of one scatter/gather entry ({@code ibv_sge.addr}).
     *
     * @param i the entry, 0 to {@link #numSge()} - 1
     * @return its virtual address
     */
    public long sgeAddress(int i) {
        return sges.addr[i];
    }

    /**
     * The length of one scatter/gather entry ({@code ibv_sge.length}).
     *
     * @param i the entry, 0 to {@link #numSge()} - 1
     * @return its length in bytes
     */
    public int sgeLength(int i) {
        return sges.length[i];
    }

    /**
     * The local key of one scatter/gather entry ({@code ibv_sge.lkey}).
     *
     * @param i the entry, 0 to {@link #numSge()} - 1
     * @return the local key of the region holding it
     */
    public int sgeLkey(int i) {
        return sges.lkey[i];
    }
}
