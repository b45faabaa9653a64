package io.rnic.core.engine;

/**
 * A receive queue entry: the posted receive work request. Preallocated and reused; a shared
 * receive queue remembers which of its slots the entry is, so it can be freed out of order.
 */
public final class RecvWqe {
    long wrId;
    final SgList sgl;
    /** The entry's index in its queue's slot array (shared receive queues). */
    int slot;

    RecvWqe(int maxSge, int slot) {
        this.sgl = new SgList(maxSge);
        this.slot = slot;
    }

    public long wrId() {
        return wrId;
    }
}
