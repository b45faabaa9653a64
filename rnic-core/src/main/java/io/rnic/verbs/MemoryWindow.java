package io.rnic.verbs;

/**
 * A memory window ({@code ibv_mw}): a remote key granting peers a part of a memory region,
 * bound and unbound without registering memory again. Type 1 windows are bound with
 * {@link QueuePair#bindMw}; type 2 windows with a {@link SendWorkRequest#bindMw BIND_MW} work
 * request, which ties them to the posting QP, and are invalidated by
 * {@link SendWorkRequest#localInvalidate LOCAL_INV} or by a peer's SEND with Invalidate. A
 * window may be deallocated while bound; its region cannot be deregistered while it is.
 */
public final class MemoryWindow implements AutoCloseable {
    private final ProtectionDomain pd;
    final io.rnic.core.memory.MemoryWindow core;
    /** A type 1 window's key as of its last posted bind (libibverbs updates it at post time). */
    private volatile int postedRkey;
    private volatile boolean closed;

    MemoryWindow(ProtectionDomain pd, io.rnic.core.memory.MemoryWindow core) {
        this.pd = pd;
        this.core = core;
        this.postedRkey = core.rkey();
        pd.device().track(this);
    }

    void posted(int rkey) {
        postedRkey = rkey;
    }

    /**
     * The next key of a window ({@code ibv_inc_rkey}): the same index, the key byte plus one.
     *
     * @param rkey a window's key
     * @return the key with its low byte incremented (modulo 256)
     */
    public static int incRkey(int rkey) {
        return (rkey & ~0xFF) | ((rkey + 1) & 0xFF);
    }

    /**
     * The window's remote key: it changes with every bind. For a type 1 window it is the key of
     * the last bind posted, as {@code ibv_bind_mw} sets it at once (if that bind fails, the
     * window keeps its old key); for a type 2 window the key of the last bind done.
     *
     * @return the key peers address the window by
     */
    public int rkey() {
        return core.type() == 1 ? postedRkey : core.rkey();
    }

    /**
     * The window's type.
     *
     * @return 1 or 2
     */
    public int type() {
        return core.type();
    }

    /**
     * Whether the window grants access now: a type 1 window bound to a region, a type 2 window
     * bound and not invalidated.
     *
     * @return true while bound
     */
    public boolean isBound() {
        return core.state() == io.rnic.core.memory.MemoryWindow.State.VALID && core.length() > 0;
    }

    /**
     * The protection domain the window was allocated in.
     *
     * @return the PD
     */
    public ProtectionDomain pd() {
        return pd;
    }

    /**
     * Deallocates the window ({@code ibv_dealloc_mw}), bound or not: its key never grants access
     * again. As deregistration does, it runs on the device's protocol thread between two packets
     * and waits for it there, so no access that checked the window before it still copies after
     * it returns, and no bind the QP is executing meanwhile can bind it again. Closing it again
     * does nothing.
     *
     * @throws IllegalStateException if the device is driven by its application's thread (invoker
     *     threading) and this is another thread, as for every change a QP's protocol must see
     */
    @Override
    public void close() {
        if (!closed) {
            pd.device().onProtocolThreadWhileOpen(() -> pd.device().hca().keys().deallocateWindow(core));
            closed = true;
            pd.device().untrack(this);
        }
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
