package io.rnic.core.transport;

import java.util.Arrays;

/** A receive work request ({@code struct ibv_recv_wr}), mutable and reusable. */
public final class RecvWorkRequest {
    long wrId;
    long[] addr = new long[4];
    int[] length = new int[4];
    int[] lkey = new int[4];
    int numSge;

    public RecvWorkRequest reset() {
        wrId = 0;
        numSge = 0;
        return this;
    }

    public RecvWorkRequest wrId(long id) {
        this.wrId = id;
        return this;
    }

    /** Appends a scatter entry: {@code length} bytes at {@code address} of the region with {@code lkey}. */
    public RecvWorkRequest sge(long address, int length, int lkey) {
        if (numSge == addr.length) {
            addr = Arrays.copyOf(addr, numSge * 2);
            this.length = Arrays.copyOf(this.length, numSge * 2);
            this.lkey = Arrays.copyOf(this.lkey, numSge * 2);
        }
        addr[numSge] = address;
        this.length[numSge] = length;
        this.lkey[numSge] = lkey;
        numSge++;
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public int numSge() {
        return numSge;
    }
}
