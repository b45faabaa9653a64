package io.rnic.core.engine;

import io.rnic.verbs.AddressHandle;
import io.rnic.verbs.WrOpcode;

/**
 * A send queue entry: a copy of the posted work request plus the requester's progress on it.
 * Slots are preallocated per QP and reused, so posting does not allocate.
 *
 * <p>A slot comes round every max_send_wr posts, mostly for the same opcode, kind and QP, and
 * lives long enough to be in the old generation: under G1 a reference store into it costs the
 * post-write barrier (a fence) even when it stores the value already there. So
 * {@code copyFrom} stores those references only when they change, and the WQE's state is a
 * byte, not an enum reference.
 */
public final class SendWqe {
    /** Progress of a WQE through the requester and completer. */
    enum State {
        /** Posted, no packet sent yet. */
        POSTED,
        /** Some packets sent. */
        SENDING,
        /** Every packet sent, waiting for the acknowledgement or responses. */
        SENT,
        /** Completed (successfully or not). */
        DONE;

        private static final State[] BY_ORDINAL = values();
    }

    State state() {
        return State.BY_ORDINAL[state];
    }

    void state(State s) {
        state = (byte) s.ordinal();
    }

    public static final int SIGNALED = io.rnic.verbs.SendWorkRequest.SIGNALED;
    public static final int FENCE = io.rnic.verbs.SendWorkRequest.FENCE;
    public static final int SOLICITED = io.rnic.verbs.SendWorkRequest.SOLICITED;
    public static final int INLINE = io.rnic.verbs.SendWorkRequest.INLINE;

    long wrId;
    WrOpcode opcode;
    RequestKind kind;
    int flags;
    final SgList sgl;
    /** Inline data; made at the slot's first inline post (most QPs never send inline). */
    byte[] inline;
    /** A view of {@link #inline} for copying from memory regions without allocating. */
    io.netty.buffer.ByteBuf inlineBuf;
    private final int maxInline;
    int inlineLength;
    int imm;
    int invalidateRkey;
    long remoteAddr;
    int rkey;
    /** The destination of a datagram WQE. */
    AddressHandle ah;
    int remoteQpn;
    /** The remote XRC SRQ (XRC initiator). */
    int remoteSrqn;
    int remoteQkey;
    /** The local EE context an RD work request names. */
    int eecn;
    /**
     * The QP whose send queue holds the WQE, whose protection domain checks its buffers and whose
     * send CQ takes its completion: the QP itself, except where an EE context sends an RD QP's.
     */
    QpContext owner;
    /** RNR retries left to a suspended RD message (9.7.8.5), or -1 before its first RNR NAK. */
    int rnrLeft = -1;

    /** The {@link State}'s ordinal: a WQE changes state three or four times a message (class comment). */
    private byte state;
    boolean psnAssigned;
    int firstPsn;
    int lastPsn;
    int packets;
    /** Packets of a SEND or WRITE whose PSNs have been taken from the window. */
    int reservedPackets;
    /** Index of the next packet to send (also the retry restart point). */
    int nextPacket;
    /** For a READ: bytes of response data placed so far. */
    long readPlaced;
    /** For a READ being retried from the middle: the PSN of the new request. */
    int readRetryPsn;
    boolean localChecked;
    /** The message's send sequence number and, if it takes one, its receive WQE number (SRETH). */
    int ssn;
    int rwqeNumber;
    /** An atomic's, a FLUSH's or a local operation's operands; made at the slot's first such post. */
    private Operands operands;
    /** Selective loss recovery's record of a READ's or an atomic's answers; made at first use. */
    private SelectiveResponses responses;

    SendWqe(int maxSge, int maxInline) {
        this.sgl = new SgList(maxSge);
        this.maxInline = maxInline;
    }

    /**
     * Copies posted work request {@code wr} of kind {@code kind} into this slot, its flags ORed
     * with {@code extraFlags}, for QP {@code owner}; the operands, inline data and SGEs are the
     * poster's to copy.
     */
    void copyFrom(io.rnic.verbs.SendWorkRequest wr, RequestKind kind, int extraFlags, QpContext owner) {
        wrId = wr.wrId();
        WrOpcode op = wr.opcode();
        if (opcode != op) {
            opcode = op;
        }
        if (this.kind != kind) {
            this.kind = kind;
        }
        flags = wr.flags() | extraFlags;
        imm = wr.imm();
        invalidateRkey = wr.invalidateRkey();
        remoteAddr = wr.remoteAddr();
        rkey = wr.rkey();
        ah = wr.ah();
        remoteQpn = wr.remoteQpn();
        remoteQkey = wr.remoteQkey();
        remoteSrqn = wr.remoteSrqn();
        eecn = wr.eecn();
        if (this.owner != owner) {
            this.owner = owner;
        }
    }

    /** The inline data area, made on first use and kept for the slot's later posts. */
    io.netty.buffer.ByteBuf inlineArea() {
        if (inline == null) {
            inline = new byte[maxInline];
            inlineBuf = io.netty.buffer.Unpooled.wrappedBuffer(inline);
        }
        return inlineBuf;
    }

    void reset() {
        sgl.clear();
        inlineLength = 0;
        flags = 0;
        imm = 0;
        invalidateRkey = 0;
        remoteAddr = 0;
        rkey = 0;
        ah = null;
        remoteQpn = 0;
        remoteQkey = 0;
        eecn = 0;
        rnrLeft = -1;
        state(State.POSTED);
        psnAssigned = false;
        firstPsn = 0;
        lastPsn = 0;
        packets = 0;
        reservedPackets = 0;
        nextPacket = 0;
        readPlaced = 0;
        readRetryPsn = -1;
        localChecked = false;
        if (responses != null) {
            responses.reset();
        }
    }

    /**
     * The operands of an atomic, a FLUSH or a local operation. They live apart from the WQE, which
     * most posts (SENDs, WRITEs, READs) then fill and read without touching them: a smaller slot
     * is fewer cache lines per message. Only those operations read them ({@link
     * RequestKind#carriesOperands}), and each post of one sets them all ({@link Operands#copyFrom}),
     * so another post's values never leak into it.
     */
    Operands operands() {
        Operands o = operands;
        if (o == null) {
            o = new Operands();
            operands = o;
        }
        return o;
    }

    /** Selective loss recovery's answers record (seed 002), made at the slot's first use. */
    SelectiveResponses responses() {
        SelectiveResponses r = responses;
        if (r == null) {
            r = new SelectiveResponses();
            responses = r;
        }
        return r;
    }

    /** What an atomic, a FLUSH or a local operation carries beyond a SEND's or WRITE's fields. */
    static final class Operands {
        long compareAdd;
        long swap;
        /** FLUSH: the range's length, placement type and selectivity (FETH). */
        long flushLength;
        int flushPlacement;
        int flushSelectivity;
        /** BIND_MW: the window's current key, the region's key, the window's length and rights. */
        int bindMwKey;
        int bindMrKey;
        long bindLength;
        int bindAccess;

        void copyFrom(io.rnic.verbs.SendWorkRequest wr) {
            compareAdd = wr.compareAdd();
            swap = wr.swap();
            flushLength = wr.flushLength();
            flushPlacement = wr.flushPlacement();
            flushSelectivity = wr.flushSelectivity();
            bindMwKey = wr.bindMwKey();
            bindMrKey = wr.bindMrKey();
            bindLength = wr.bindLength();
            bindAccess = wr.bindAccess();
        }
    }

    /**
     * Selective loss recovery (seed 002): which response packets of a READ have arrived, and an
     * atomic's answer that arrived while an earlier READ was still missing pieces.
     */
    static final class SelectiveResponses {
        private long[] bits;
        int count;
        /** Response packets 0..prefix-1 have all arrived. */
        int prefix;
        boolean atomicAnswered;
        long atomicOriginal;
        /** Response packets before this index have been asked for again since the READ was sent. */
        int rereadUpTo;

        void reset() {
            if (count > 0 && bits != null) {
                java.util.Arrays.fill(bits, 0);
            }
            count = 0;
            prefix = 0;
            rereadUpTo = 0;
            atomicAnswered = false;
        }

        /** Makes room for a message of {@code packets} response packets (kept across posts). */
        void prepare(int packets) {
            int words = (packets + 63) >>> 6;
            if (bits == null || bits.length < words) {
                long[] bigger = new long[Math.max(words, 1)];
                if (bits != null) {
                    System.arraycopy(bits, 0, bigger, 0, bits.length);
                }
                bits = bigger;
            }
        }

        boolean arrived(int index) {
            return (bits[index >>> 6] & (1L << index)) != 0;
        }

        /** Records response packet {@code index} of a message of {@code packets}. */
        void mark(int index, int packets) {
            bits[index >>> 6] |= 1L << index;
            count++;
            while (prefix < packets && arrived(prefix)) {
                prefix++;
            }
        }
    }

    boolean signaled() {
        return (flags & SIGNALED) != 0;
    }

    boolean isInline() {
        return (flags & INLINE) != 0;
    }

    /**
     * Forgets the progress of a message that an EE context suspended (9.7.8.5): it restarts from
     * its first packet as a new message, with new PSNs; its buffers stay checked.
     */
    void restartAsNewMessage() {
        state(State.POSTED);
        psnAssigned = false;
        reservedPackets = 0;
        nextPacket = 0;
        readPlaced = 0;
        readRetryPsn = -1;
    }

    /** Message length in bytes (8 for atomics; a FLUSH's range length). */
    long length() {
        if (kind.isAtomic()) {
            return 8;
        }
        if (kind.operation() == io.rnic.core.packet.Operation.RESYNC) {
            return 0;
        }
        if (kind.operation() == io.rnic.core.packet.Operation.FLUSH) {
            return operands().flushLength;
        }
        return isInline() ? inlineLength : sgl.totalLength();
    }

    public long wrId() {
        return wrId;
    }

    public WrOpcode opcode() {
        return opcode;
    }
}
