package io.rnic.verbs;

import io.rnic.core.engine.QpContext;

/**
 * A queue pair ({@code ibv_qp}). Post from any thread; {@link #modify}, {@link #query} and
 * {@link #close} run on the device's protocol thread and wait for it.
 */
public final class QueuePair implements AutoCloseable {
    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final QpInitAttributes init;
    final QpContext core;
    private volatile boolean closed;

    QueuePair(RdmaDevice device, ProtectionDomain pd, QpInitAttributes init, QpContext core) {
        this.device = device;
        this.pd = pd;
        this.init = init;
        this.core = core;
    }

    /**
     * The QP number, which the peer's packets carry as destination QP.
     *
     * @return the 24-bit QP number
     */
    public int qpn() {
        return core.qpn();
    }

    /**
     * The transport service the QP was created with.
     *
     * @return RC, UC, UD, XRC_SEND or XRC_RECV
     */
    public QpType type() {
        return core.type();
    }

    /**
     * The QP's current state, without a round trip to the protocol thread. A QP that fails moves
     * to ERR before its flushed completions are visible, so a thread that polled an error
     * completion reads ERR here. Once its device is closed, a QP reads ERR, whatever state it was
     * in: the close flushed it, on every wire.
     *
     * @return the current state
     */
    public QpState state() {
        return core.state();
    }

    /**
     * The device the QP belongs to.
     *
     * @return the owning device
     */
    public RdmaDevice device() {
        return device;
    }

    /**
     * The protection domain the QP was created in; its memory regions are the ones the QP's work
     * requests may use. An XRC target QP has none: each message uses its XRC SRQ's.
     *
     * @return the protection domain, or {@code null} for an XRC target QP
     */
    public ProtectionDomain pd() {
        return pd;
    }

    /**
     * The attributes the QP was created with ({@code ibv_query_qp}'s {@code init_attr}).
     *
     * @return the creation attributes, or {@code null} for an XRC target QP ({@link XrcDomain#createTargetQp})
     */
    public QpInitAttributes initAttributes() {
        return init;
    }

    /**
     * The UDP source port of the QP's packets, which spreads flows over paths as RoCEv2 intends.
     *
     * @return the source port from RTR on; -1 before
     */
    public int sourcePort() {
        return core.sourcePort();
    }

    /**
     * Modifies the QP with the attributes set on {@code attrs} (their mask says which). Runs on
     * the device's protocol thread and waits for it.
     *
     * @param attrs the attributes to set, and the target state if it is set
     * @throws IllegalArgumentException naming the transition and attribute if invalid
     * @throws IllegalStateException if the QP or its device is closed
     */
    public void modify(QpAttributes attrs) {
        java.util.Objects.requireNonNull(attrs, "attrs");
        modify(attrs, attrs.mask());
    }

    /**
     * Modifies the QP with an explicit attribute mask ({@code ibv_modify_qp}). The
     * attributes are copied; {@code attrs} may be reused at once. Runs on the device's protocol
     * thread and waits for it.
     *
     * @param attrs the attribute values
     * @param mask  {@link QpAttrMask} bits naming the attributes to apply
     * @throws IllegalArgumentException naming the transition and attribute if invalid, or if
     *     {@code attrs} is null
     * @throws IllegalStateException if the QP or its device is closed
     */
    public void modify(QpAttributes attrs, int mask) {
        java.util.Objects.requireNonNull(attrs, "attrs");
        checkOpen();
        device.modify(core, attrs, mask);
    }

    /**
     * Reads the attributes in force and the current state ({@code ibv_query_qp}), on the
     * device's protocol thread.
     *
     * @return a fresh attributes object
     * @throws IllegalStateException if the QP or its device is closed
     */
    public QpAttributes query() {
        checkOpen();
        return device.onProtocolThread(() -> core.query(new QpAttributes()));
    }

    /**
     * Posts a send work request ({@code ibv_post_send}). The request is copied: {@code wr} may
     * be reused at once. A refused request posts nothing. An accepted one completes exactly once
     * (if signaled, or in error) unless the QP is destroyed first: in WR_FLUSH_ERR if the QP
     * moves to ERR, whether by an error, a modify or the device's close, however the post races
     * them.
     *
     * @param wr the work request
     * @throws IllegalStateException if the QP's state does not allow sends, the send queue is
     *     full, or the QP or its device is closed
     * @throws NullPointerException if {@code wr} is null
     * @throws IllegalArgumentException if it is invalid for this QP (opcode,
     *     SGEs, inline size, message size, atomic alignment)
     */
    public void postSend(SendWorkRequest wr) {
        java.util.Objects.requireNonNull(wr, "wr");
        checkOpen();
        core.postSend(wr);
    }

    /**
     * Posts a receive work request to the QP's own receive queue ({@code ibv_post_recv}). The
     * request is copied: {@code wr} may be reused at once.
     *
     * @param wr the work request
     * @throws IllegalStateException in RESET, when the receive queue is full, if the QP takes its
     *     receive WQEs from an SRQ (post to the SRQ instead), or if the QP or its device is closed
     * @throws NullPointerException if {@code wr} is null
     * @throws IllegalArgumentException if it has too many SGEs
     */
    public void postRecv(RecvWorkRequest wr) {
        java.util.Objects.requireNonNull(wr, "wr");
        checkOpen();
        core.postRecv(wr);
    }

    /**
     * Binds a type 1 memory window ({@code ibv_bind_mw}): posts a BIND_MW on this QP's send queue
     * that, once the work requests before it have completed, gives the window the returned key
     * and {@code access} to {@code [addr, addr + length)} of {@code mr} (any QP of the PD may then
     * use it); a {@code length} of 0 unbinds it. Completes as {@link WcOpcode#BIND_MW} if
     * {@code signaled}; a failed bind completes as {@link WcStatus#MW_BIND_ERR} and the QP moves
     * to ERR.
     *
     * @param wrId     the work completion's {@code wr_id}
     * @param signaled whether a successful bind produces a completion
     * @param mw       a type 1 window of this QP's PD
     * @param mr       the region (registered with {@link AccessFlags#MW_BIND}) or, to unbind, any
     * @param addr     the window's first address in the region
     * @param length   the window's length; 0 unbinds
     * @param access   REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC (no ZERO_BASED for type 1, as rxe)
     * @return the key the window has once the bind is done ({@code ibv_inc_rkey} of the current one)
     * @throws IllegalArgumentException if the window is not type 1, or it and the region are in
     *     different PDs (libibverbs: EINVAL, EPERM), or the QP cannot post binds
     * @throws IllegalStateException as {@link #postSend} does
     */
    public int bindMw(long wrId, boolean signaled, MemoryWindow mw, MemoryRegion mr, long addr, long length,
                      int access) {
        java.util.Objects.requireNonNull(mw, "mw");
        if (mw == null || mw.type() != 1) {
            throw new IllegalArgumentException("bindMw binds type 1 windows; post a BIND_MW work request for type 2");
        }
        if (mr == null && length != 0) {
            throw new IllegalArgumentException("a bind of a non-zero length names its memory region");
        }
        if (mr != null && mr.pd() != mw.pd()) {
            throw new IllegalArgumentException("the window and the region are in different PDs (ibv_bind_mw: EPERM)");
        }
        int next = MemoryWindow.incRkey(mw.rkey());
        postSend(new SendWorkRequest().wrId(wrId).signaled(signaled).bindMw(mw.rkey(), next, mr == null ? 0 : mr.lkey(), addr,
                length, access));
        mw.posted(next);
        return next;
    }

    /**
     * Tells whether {@link #close} has run.
     *
     * @return true once the QP is destroyed
     */
    public boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        device.checkOpen(); // a closed device's QPs take no work: it would never leave
        if (closed) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(core.qpn()) + " is destroyed");
        }
    }

    /**
     * Destroys the QP ({@code ibv_destroy_qp}): outstanding work is dropped without completions
     * (move the QP to ERR first to have it flushed), its number stops receiving, and its CQs,
     * PD and SRQ are no longer in use by it; completions already in a CQ stay there. A post
     * racing the destruction either came first, and is dropped with the rest, or throws.
     * Closing it again does nothing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.forget(core);
        device.destroy(core);
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
