package io.rnic.verbs;

/**
 * A send work request ({@code struct ibv_send_wr}) as a mutable, reusable object: fill it, post
 * it, and fill it again; the QP copies what it needs at post time, so an application can post
 * without allocating. Setters return {@code this}.
 */
public final class SendWorkRequest extends WorkRequest {
    /** {@code IBV_SEND_SIGNALED} in {@link #flags()}. */
    public static final int SIGNALED = 1;
    /** {@code IBV_SEND_FENCE} in {@link #flags()}. */
    public static final int FENCE = 2;
    /** {@code IBV_SEND_SOLICITED} in {@link #flags()}. */
    public static final int SOLICITED = 4;
    /** {@code IBV_SEND_INLINE} in {@link #flags()}. */
    public static final int INLINE = 8;

    WrOpcode opcode = WrOpcode.SEND;
    int flags;
    int imm;
    int invalidateRkey;
    long remoteAddr;
    int rkey;
    long compareAdd;
    long swap;
    AddressHandle ah;
    int remoteQpn;
    int remoteQkey;
    int remoteSrqn = NO_SRQ;
    int eecn;
    long flushLength;
    int bindMwKey;
    int bindMrKey;
    long bindLength;
    int bindAccess;
    int flushPlacement;
    int flushSelectivity;

    /** FLUSH placement type ({@code IBV_FLUSH_GLOBAL}): make earlier writes globally visible. */
    public static final int FLUSH_GLOBAL = 1;
    /** FLUSH placement type ({@code IBV_FLUSH_PERSISTENT}): make earlier writes persistent. */
    public static final int FLUSH_PERSISTENT = 2;
    /** FLUSH selectivity ({@code IBV_FLUSH_RANGE}): the address range the request names. */
    public static final int FLUSH_RANGE = 0;
    /** FLUSH selectivity ({@code IBV_FLUSH_MR}): the whole region the R_Key names. */
    public static final int FLUSH_MR = 1;

    /** {@link #remoteSrqn()} of a request that names no XRC SRQ. */
    public static final int NO_SRQ = -1;

    /**
     * Clears everything, for reuse: the opcode becomes SEND and every other field zero.
     *
     * @return {@code this}
     */
    public SendWorkRequest reset() {
        wrId = 0;
        opcode = WrOpcode.SEND;
        flags = 0;
        sges.count = 0;
        imm = 0;
        invalidateRkey = 0;
        remoteAddr = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        ah = null;
        remoteQpn = 0;
        remoteQkey = 0;
        remoteSrqn = NO_SRQ;
        eecn = 0;
        flushLength = 0;
        flushPlacement = 0;
        flushSelectivity = 0;
        bindMwKey = 0;
        bindMrKey = 0;
        bindLength = 0;
        bindAccess = 0;
        return this;
    }

    /**
     * Makes this a BIND_MW of a type 2 memory window ({@code ibv_wr_bind_mw} /
     * {@code IBV_WR_BIND_MW}): once the work requests before it have completed, the window whose
     * current R_Key is {@code windowKey} grants {@code access} to {@code [addr, addr + length)} of
     * the region with L_Key {@code regionKey} to peers of this QP (and only this QP), under
     * {@code newRkey} (only its low byte, the key byte, is taken; derive it with
     * {@link MemoryWindow#incRkey}). A bound type 2 window must be invalidated before it is bound
     * again. Completes as {@link WcOpcode#BIND_MW}; a failed bind as {@link WcStatus#MW_BIND_ERR},
     * and the QP moves to ERR. No SGEs. Type 1 windows are bound with {@link QueuePair#bindMw}.
     *
     * <p>The request names the window and the region by their keys ({@code mw.rkey()},
     * {@code mr.lkey()}), as a work request names every other memory: it is a value the device
     * reads, and holds no objects of the application's.
     *
     * @param windowKey the window's current R_Key ({@link MemoryWindow#rkey()}), of this QP's PD
     * @param newRkey   the key the window will have
     * @param regionKey the L_Key of the region ({@link MemoryRegion#lkey()}), registered with
     *                  {@link AccessFlags#MW_BIND}
     * @param addr      the window's first address in the region
     * @param length    the window's length
     * @param access    the window's rights: REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC (the last two
     *                  need LOCAL_WRITE on the region), ZERO_BASED for a window addressed from 0
     * @return {@code this}
     */
    public SendWorkRequest bindMw(int windowKey, int newRkey, int regionKey, long addr, long length, int access) {
        this.opcode = WrOpcode.BIND_MW;
        this.bindMwKey = windowKey;
        this.rkey = newRkey;
        this.bindMrKey = regionKey;
        this.remoteAddr = addr;
        this.bindLength = length;
        this.bindAccess = access;
        return this;
    }

    /**
     * Makes this a LOCAL_INV ({@code IBV_WR_LOCAL_INV}): once the work requests before it have
     * completed, the type 2 memory window with key {@code rkey} is invalidated: its key grants
     * nothing until it is bound again. Completes as {@link WcOpcode#LOCAL_INV}; invalidating a
     * type 1 window, an unbound window or an unknown key completes as
     * {@link WcStatus#LOC_QP_OP_ERR}, and the QP moves to ERR.
     *
     * @param rkey the window's current key
     * @return {@code this}
     */
    public SendWorkRequest localInvalidate(int rkey) {
        this.opcode = WrOpcode.LOCAL_INV;
        this.invalidateRkey = rkey;
        return this;
    }

    /**
     * Makes this a REG_MR, a fast registration (the kernel's {@code IB_WR_REG_MR}): once the work
     * requests before it have completed, the memory last {@link FastMemoryRegion#map mapped} into
     * the region with key {@code regionKey} is registered at {@code iova} with {@code access}
     * under {@code newKey} (only the key byte may differ from the region's key; derive it with
     * {@link MemoryWindow#incRkey}). The region must be free: allocated, or invalidated since its
     * last registration. Completes as {@link WcOpcode#REG_MR}; a failure as
     * {@link WcStatus#LOC_QP_OP_ERR}, and the QP moves to ERR. No SGEs.
     *
     * @param regionKey the region's current key ({@link FastMemoryRegion#lkey()}), of this QP's PD
     * @param newKey    the key it will have (lkey and rkey)
     * @param iova      the virtual address of its first byte
     * @param access    its {@link AccessFlags}
     * @return {@code this}
     */
    public SendWorkRequest regMr(int regionKey, int newKey, long iova, int access) {
        this.opcode = WrOpcode.REG_MR;
        this.bindMrKey = regionKey;
        this.rkey = newKey;
        this.remoteAddr = iova;
        this.bindAccess = access;
        return this;
    }

    /**
     * A BIND_MW's window key.
     *
     * @return the current key of the window being bound
     */
    public int bindMwKey() {
        return bindMwKey;
    }

    /**
     * A BIND_MW's region key.
     *
     * @return the local key of the region, or 0 for none
     */
    public int bindMrKey() {
        return bindMrKey;
    }

    /**
     * A BIND_MW's length.
     *
     * @return the window's length
     */
    public long bindLength() {
        return bindLength;
    }

    /**
     * A BIND_MW's access rights.
     *
     * @return the window's {@link AccessFlags}
     */
    public int bindAccess() {
        return bindAccess;
    }

    /**
     * Makes this an ATOMIC WRITE ({@code ibv_wr_atomic_write}, IBTA 1.5): the 8 bytes of the
     * request's one 8-byte SGE (or inline data) are written at once at {@code remoteAddress},
     * which must be 8-byte aligned, in a region that grants REMOTE_WRITE. The bytes are copied
     * verbatim (no byte-order conversion). RC and XRC only; completes as
     * {@link WcOpcode#ATOMIC_WRITE} once the responder has placed them.
     *
     * @param remoteAddress the remote address, 8-byte aligned
     * @param remoteKey     the remote key
     * @return {@code this}
     */
    public SendWorkRequest atomicWrite(long remoteAddress, int remoteKey) {
        this.opcode = WrOpcode.ATOMIC_WRITE;
        this.remoteAddr = remoteAddress;
        this.rkey = remoteKey;
        return this;
    }

    /**
     * Makes this a FLUSH ({@code ibv_wr_flush}, IBTA 1.5): once every earlier write of the QP is
     * placed, the responder makes {@code [remoteAddress, remoteAddress + length)} (or the whole
     * region, with {@link #FLUSH_MR}) globally visible and/or persistent, then answers. RC and
     * XRC only; no SGEs; completes as {@link WcOpcode#FLUSH} with {@code byte_len} = length.
     *
     * @param remoteAddress the first address of the range (ignored with {@link #FLUSH_MR})
     * @param remoteKey     the remote key; the region must grant FLUSH_GLOBAL / FLUSH_PERSISTENT
     *                      as {@code placement} asks
     * @param length        the range's length, 0 to 2^31 − 1 (ignored with {@link #FLUSH_MR})
     * @param placement     {@link #FLUSH_GLOBAL}, {@link #FLUSH_PERSISTENT} or both
     * @param selectivity   {@link #FLUSH_RANGE} or {@link #FLUSH_MR}
     * @return {@code this}
     */
    public SendWorkRequest flush(long remoteAddress, int remoteKey, long length, int placement, int selectivity) {
        this.opcode = WrOpcode.FLUSH;
        this.remoteAddr = remoteAddress;
        this.rkey = remoteKey;
        this.flushLength = length;
        this.flushPlacement = placement;
        this.flushSelectivity = selectivity;
        return this;
    }

    /**
     * The FLUSH range's length.
     *
     * @return the length set with {@link #flush}
     */
    public long flushLength() {
        return flushLength;
    }

    /**
     * The FLUSH placement type.
     *
     * @return {@link #FLUSH_GLOBAL}, {@link #FLUSH_PERSISTENT} or both
     */
    public int flushPlacement() {
        return flushPlacement;
    }

    /**
     * The FLUSH selectivity level.
     *
     * @return {@link #FLUSH_RANGE} or {@link #FLUSH_MR}
     */
    public int flushSelectivity() {
        return flushSelectivity;
    }

    /**
     * Sets {@code wr_id}, the caller's tag that the work completion carries back.
     *
     * @param id any value
     * @return {@code this}
     */
    public SendWorkRequest wrId(long id) {
        this.wrId = id;
        return this;
    }

    /**
     * Sets the operation ({@code opcode}); a new or reset request is a SEND.
     *
     * @param op the operation
     * @return {@code this}
     * @throws NullPointerException if {@code op} is null
     */
    public SendWorkRequest opcode(WrOpcode op) {
        this.opcode = java.util.Objects.requireNonNull(op, "opcode");
        return this;
    }

    /**
     * Sets or clears {@code IBV_SEND_SIGNALED}: produce a completion on success too.
     *
     * @param on whether to set the flag
     * @return {@code this}
     */
    public SendWorkRequest signaled(boolean on) {
        return flag(SIGNALED, on);
    }

    /**
     * Sets or clears {@code IBV_SEND_FENCE}: wait for earlier READs and atomics to complete first.
     *
     * @param on whether to set the flag
     * @return {@code this}
     */
    public SendWorkRequest fence(boolean on) {
        return flag(FENCE, on);
    }

    /**
     * Sets or clears {@code IBV_SEND_SOLICITED}: set the SE bit on the last packet.
     *
     * @param on whether to set the flag
     * @return {@code this}
     */
    public SendWorkRequest solicited(boolean on) {
        return flag(SOLICITED, on);
    }

    /**
     * Sets or clears {@code IBV_SEND_INLINE}: copy the data at post time; the buffers may be
     * reused at once.
     *
     * @param on whether to set the flag
     * @return {@code this}
     */
    public SendWorkRequest inline(boolean on) {
        return flag(INLINE, on);
    }

    private SendWorkRequest flag(int f, boolean on) {
        flags = on ? flags | f : flags & ~f;
        return this;
    }

    /**
     * Appends a scatter/gather entry ({@code struct ibv_sge}): {@code length} bytes at
     * {@code address} of the region with {@code lkey}.
     *
     * @param address the virtual address of the first byte
     * @param length the length in bytes
     * @param lkey the local key of the memory region holding the buffer
     * @return {@code this}
     * @throws IllegalArgumentException if {@code length} is negative
     */
    public SendWorkRequest sge(long address, int length, int lkey) {
        sges.add(address, length, lkey);
        return this;
    }

    /**
     * Removes every scatter/gather entry.
     *
     * @return {@code this}
     */
    public SendWorkRequest clearSges() {
        sges.count = 0;
        return this;
    }

    /**
     * Sets the immediate data ({@code imm_data}) of the WITH_IMM opcodes, copied verbatim to the wire.
     *
     * @param value the four bytes of ImmDt as a big-endian int
     * @return {@code this}
     */
    public SendWorkRequest imm(int value) {
        this.imm = value;
        return this;
    }

    /**
     * Sets the R_Key the responder is to invalidate ({@code invalidate_rkey} of SEND_WITH_INV).
     *
     * @param rkey the remote key to invalidate
     * @return {@code this}
     */
    public SendWorkRequest invalidate(int rkey) {
        this.invalidateRkey = rkey;
        return this;
    }

    /**
     * Sets the remote address and R_Key of an RDMA READ or WRITE ({@code wr.rdma}).
     *
     * @param remoteAddress the remote virtual address ({@code remote_addr})
     * @param remoteKey the remote key ({@code rkey})
     * @return {@code this}
     */
    public SendWorkRequest rdma(long remoteAddress, int remoteKey) {
        this.remoteAddr = remoteAddress;
        this.rkey = remoteKey;
        return this;
    }

    /**
     * Remote address, R_Key and operands of an atomic. As in libibverbs, {@code compareAdd} is
     * the compare value of CMP_AND_SWP and the addend of FETCH_AND_ADD; {@code swap} is the swap
     * value.
     *
     * @param remoteAddress the remote virtual address, 8-byte aligned ({@code remote_addr})
     * @param remoteKey the remote key ({@code rkey})
     * @param compareAdd the compare value or addend ({@code compare_add})
     * @param swap the swap value ({@code swap})
     * @return {@code this}
     */
    public SendWorkRequest atomic(long remoteAddress, int remoteKey, long compareAdd, long swap) {
        this.remoteAddr = remoteAddress;
        this.rkey = remoteKey;
        this.compareAdd = compareAdd;
        this.swap = swap;
        return this;
    }

    /**
     * The destination of a datagram (UD) work request ({@code wr.ud}): the address handle, the
     * remote QP number and the Q_Key to send with. A Q_Key with its high-order bit set asks for
     * the sending QP's own Q_Key instead.
     *
     * @param ah the address handle ({@code ah})
     * @param remoteQpn the destination QP number ({@code remote_qpn})
     * @param remoteQkey the Q_Key ({@code remote_qkey})
     * @return {@code this}
     */
    public SendWorkRequest ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
        this.ah = ah;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    /**
     * The destination of a reliable datagram (RD) work request (IBA 9.7.8.2.1): the local EE
     * context that carries the message, the remote RD QP and the Q_Key. The context must be of the
     * QP's reliable datagram domain; a Q_Key with its high-order bit set asks for the sending QP's
     * own. Required on an {@link QpType#RD} QP, ignored by other types.
     *
     * @param eecn the local EE context's number ({@link EeContext#eecn()})
     * @param remoteQpn the destination RD QP number on the context's peer node
     * @param remoteQkey the Q_Key
     * @return {@code this}
     */
    public SendWorkRequest rd(int eecn, int remoteQpn, int remoteQkey) {
        this.eecn = eecn;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    /**
     * The local EE context an RD work request names.
     *
     * @return the context number set with {@link #rd}, or 0
     */
    public int eecn() {
        return eecn;
    }

    /**
     * The XRC SRQ on the remote node that the message is for ({@code wr.qp_type.xrc.remote_srqn}):
     * required on an XRC initiator ({@link QpType#XRC_SEND}) QP, whose packets carry it in their
     * XRCETH; ignored by other QP types.
     *
     * @param srqn the remote XRC SRQ number (24 bits, from {@link SharedReceiveQueue#srqn()} on the peer)
     * @return {@code this}
     */
    public SendWorkRequest xrc(int srqn) {
        this.remoteSrqn = srqn;
        return this;
    }

    /**
     * The remote XRC SRQ number.
     *
     * @return the SRQ number set with {@link #xrc}, or {@link #NO_SRQ}
     */
    public int remoteSrqn() {
        return remoteSrqn;
    }

    /**
     * The operation.
     *
     * @return {@code opcode}
     */
    public WrOpcode opcode() {
        return opcode;
    }

    /**
     * The send flags.
     *
     * @return the {@code send_flags}: {@link #SIGNALED}, {@link #FENCE}, {@link #SOLICITED}, {@link #INLINE}
     */
    public int flags() {
        return flags;
    }

    /**
     * The immediate data.
     *
     * @return the immediate data of a WITH_IMM opcode
     */
    public int imm() {
        return imm;
    }

    /**
     * The R_Key to invalidate.
     *
     * @return the R_Key a SEND_WITH_INV asks the responder to invalidate
     */
    public int invalidateRkey() {
        return invalidateRkey;
    }

    /**
     * The remote address.
     *
     * @return the remote address of an RDMA or atomic operation
     */
    public long remoteAddr() {
        return remoteAddr;
    }

    /**
     * The remote key.
     *
     * @return the R_Key of an RDMA or atomic operation
     */
    public int rkey() {
        return rkey;
    }

    /**
     * The first atomic operand.
     *
     * @return the compare value (CMP_AND_SWP) or addend (FETCH_AND_ADD) of an atomic
     */
    public long compareAdd() {
        return compareAdd;
    }

    /**
     * The second atomic operand.
     *
     * @return the swap value of a CMP_AND_SWP
     */
    public long swap() {
        return swap;
    }

    /**
     * The datagram destination.
     *
     * @return the address handle of a UD work request, or null
     */
    public AddressHandle ah() {
        return ah;
    }

    /**
     * The destination QP.
     *
     * @return the destination QP number of a UD work request
     */
    public int remoteQpn() {
        return remoteQpn;
    }

    /**
     * The datagram Q_Key.
     *
     * @return the Q_Key of a UD work request
     */
    public int remoteQkey() {
        return remoteQkey;
    }

}
