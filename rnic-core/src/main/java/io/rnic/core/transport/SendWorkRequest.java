package io.rnic.core.transport;

/**
 * A send work request ({@code struct ibv_send_wr}) as a mutable, reusable object: fill it, post
 * it, and fill it again; the QP copies what it needs at post time, so an application can post
 * without allocating. Setters return {@code this}.
 */
public final class SendWorkRequest {
    long wrId;
    WrOpcode opcode = WrOpcode.SEND;
    int flags;
    final Sges sges = new Sges();
    int imm;
    int invalidateRkey;
    long remoteAddr;
    int rkey;
    long compareAdd;
    long swap;
    AddressHandle ah;
    int remoteQpn;
    int remoteQkey;

    /** Clears everything, for reuse. */
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
        return this;
    }

    public SendWorkRequest wrId(long id) {
        this.wrId = id;
        return this;
    }

    public SendWorkRequest opcode(WrOpcode op) {
        this.opcode = java.util.Objects.requireNonNull(op, "opcode");
        return this;
    }

    /** {@code IBV_SEND_SIGNALED}: produce a completion on success too. */
    public SendWorkRequest signaled(boolean on) {
        return flag(SendWqe.SIGNALED, on);
    }

    /** {@code IBV_SEND_FENCE}: wait for earlier READs and atomics to complete first. */
    public SendWorkRequest fence(boolean on) {
        return flag(SendWqe.FENCE, on);
    }

    /** {@code IBV_SEND_SOLICITED}: set the SE bit on the last packet. */
    public SendWorkRequest solicited(boolean on) {
        return flag(SendWqe.SOLICITED, on);
    }

    /** {@code IBV_SEND_INLINE}: copy the data at post time; the buffers may be reused at once. */
    public SendWorkRequest inline(boolean on) {
        return flag(SendWqe.INLINE, on);
    }

    private SendWorkRequest flag(int f, boolean on) {
        flags = on ? flags | f : flags & ~f;
        return this;
    }

    /** Appends a scatter/gather entry: {@code length} bytes at {@code address} of the region with {@code lkey}. */
    public SendWorkRequest sge(long address, int length, int lkey) {
        sges.add(address, length, lkey);
        return this;
    }

    /** Removes every scatter/gather entry. */
    public SendWorkRequest clearSges() {
        sges.count = 0;
        return this;
    }

    /** Immediate data for the WITH_IMM opcodes, copied verbatim to the wire. */
    public SendWorkRequest imm(int value) {
        this.imm = value;
        return this;
    }

    /** The R_Key the responder is to invalidate (SEND_WITH_INV). */
    public SendWorkRequest invalidate(int rkey) {
        this.invalidateRkey = rkey;
        return this;
    }

    /** Remote address and R_Key of an RDMA READ or WRITE. */
    public SendWorkRequest rdma(long remoteAddress, int remoteKey) {
        this.remoteAddr = remoteAddress;
        this.rkey = remoteKey;
        return this;
    }

    /**
     * Remote address, R_Key and operands of an atomic. As in libibverbs, {@code compareAdd} is
     * the compare value of CMP_AND_SWP and the addend of FETCH_AND_ADD; {@code swap} is the swap
     * value.
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
     */
    public SendWorkRequest ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
        this.ah = ah;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public WrOpcode opcode() {
        return opcode;
    }

    public int numSge() {
        return sges.count;
    }

    /** Total bytes of the scatter/gather list. */
    public long totalLength() {
        return sges.totalLength();
    }
}
