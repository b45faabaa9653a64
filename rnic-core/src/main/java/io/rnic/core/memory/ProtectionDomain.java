package io.rnic.core.memory;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A protection domain: a handle that memory regions and QPs belong to. A remote or local access
 * through a key is only allowed when the MR's PD is the PD of the QP using it (reference §8.3).
 *
 * <p>The use count lets the verbs layer refuse {@code ibv_dealloc_pd} (EBUSY) while MRs or QPs
 * still belong to the PD; objects call {@link #retain()} when created in the PD and
 * {@link #release()} when destroyed. Safe for use from several threads.
 */
public final class ProtectionDomain {
    private final int id;
    private final AtomicInteger uses = new AtomicInteger();

    /**
     * Creates a protection domain.
     *
     * @param id the handle number reported to the application
     */
    public ProtectionDomain(int id) {
        this.id = id;
    }

    /** The handle number. */
    public int id() {
        return id;
    }

    /** Records one more object (MR, QP) belonging to this PD. */
    public void retain() {
        uses.incrementAndGet();
    }

    /**
     * Records that an object belonging to this PD was destroyed.
     *
     * @throws IllegalStateException if the use count is already zero
     */
    public void release() {
        int n;
        do {
            n = uses.get();
            if (n == 0) {
                throw new IllegalStateException("protection domain " + id + " released more often than retained");
            }
        } while (!uses.compareAndSet(n, n - 1));
    }

    /** The number of objects currently belonging to this PD. */
    public int useCount() {
        return uses.get();
    }

    /** True while any MR or QP belongs to this PD. */
    public boolean isInUse() {
        return uses.get() > 0;
    }

    @Override
    public String toString() {
        return "pd " + id;
    }
}
