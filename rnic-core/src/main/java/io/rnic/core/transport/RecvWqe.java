package io.rnic.core.transport;

/** A receive queue entry: the posted receive work request. Preallocated and reused. */
public final class RecvWqe {
    long wrId;
    final SgList sgl;

    RecvWqe(int maxSge) {
        this.sgl = new SgList(maxSge);
    }

    public long wrId() {
        return wrId;
    }
}
