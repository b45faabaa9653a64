package io.rnic.core.transport;

/** A receive work request ({@code struct ibv_recv_wr}), mutable and reusable. */
public final class RecvWorkRequest {
    long wrId;
    final Sges sges = new Sges();

    public RecvWorkRequest reset() {
        wrId = 0;
        sges.count = 0;
        return this;
    }

    public RecvWorkRequest wrId(long id) {
        this.wrId = id;
        return this;
    }

    /** Appends a scatter entry: {@code length} bytes at {@code address} of the region with {@code lkey}. */
    public RecvWorkRequest sge(long address, int length, int lkey) {
        sges.add(address, length, lkey);
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public int numSge() {
        return sges.count;
    }
}
