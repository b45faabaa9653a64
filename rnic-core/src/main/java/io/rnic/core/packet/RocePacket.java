package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * A decoded (or being encoded) RoCEv2 packet: a reusable view over a buffer region that holds
 * BTH through ICRC, with the opcode's table row and typed header flyweights at the offsets the
 * row gives. One instance is reused for every packet; nothing is copied.
 */
public final class RocePacket {
    private ByteBuf buffer;
    private int offset;
    private int length;
    private Opcode opcode;
    private int payloadLength;
    /** Native address of the BTH, or 0: every flyweight is wrapped relative to it. */
    private long address;

    private final BthFlyweight bth = new BthFlyweight();
    private final RethFlyweight reth = new RethFlyweight();
    private final AethFlyweight aeth = new AethFlyweight();
    private final AtomicEthFlyweight atomicEth = new AtomicEthFlyweight();
    private final AtomicAckEthFlyweight atomicAckEth = new AtomicAckEthFlyweight();
    private final ImmDtFlyweight immDt = new ImmDtFlyweight();
    private final IethFlyweight ieth = new IethFlyweight();
    private final DethFlyweight deth = new DethFlyweight();
    private final RdethFlyweight rdeth = new RdethFlyweight();
    private final XrcEthFlyweight xrcEth = new XrcEthFlyweight();
    private final FethFlyweight feth = new FethFlyweight();
    private final SrethFlyweight sreth = new SrethFlyweight();

    /** Points the view at a packet whose structure has been checked. */
    void set(ByteBuf buffer, int offset, int length, Opcode opcode, int payloadLength, long address) {
        // Reference stores into this long-lived view cost a GC write barrier; skip unchanged ones
        // (pooled buffers and a flow's opcodes repeat).
        if (this.buffer != buffer) {
            this.buffer = buffer;
        }
        this.offset = offset;
        this.length = length;
        if (this.opcode != opcode) {
            this.opcode = opcode;
        }
        this.payloadLength = payloadLength;
        this.address = address;
        bth.wrap(buffer, offset, address);
    }

    /** The buffer holding the packet. */
    public ByteBuf buffer() {
        return buffer;
    }

    /** Offset of the BTH in {@link #buffer()}. */
    public int offset() {
        return offset;
    }

    /** Bytes from the BTH through the ICRC (the UDP payload length). */
    public int length() {
        return length;
    }

    /** The opcode's table row. */
    public Opcode opcode() {
        return opcode;
    }

    /** Offset of the first payload byte in {@link #buffer()}. */
    public int payloadOffset() {
        return offset + opcode.headerLength();
    }

    /** Payload bytes, not counting pad bytes. */
    public int payloadLength() {
        return payloadLength;
    }

    /** The ICRC the packet carries. */
    public int icrc() {
        return Icrc.stored(buffer, offset, length);
    }

    public BthFlyweight bth() {
        return bth;
    }

    public RethFlyweight reth() {
        wrapAt(reth, Header.RETH);
        return reth;
    }

    public AethFlyweight aeth() {
        wrapAt(aeth, Header.AETH);
        return aeth;
    }

    public AtomicEthFlyweight atomicEth() {
        wrapAt(atomicEth, Header.ATOMIC_ETH);
        return atomicEth;
    }

    public AtomicAckEthFlyweight atomicAckEth() {
        wrapAt(atomicAckEth, Header.ATOMIC_ACK_ETH);
        return atomicAckEth;
    }

    public ImmDtFlyweight immDt() {
        wrapAt(immDt, Header.IMMDT);
        return immDt;
    }

    public IethFlyweight ieth() {
        wrapAt(ieth, Header.IETH);
        return ieth;
    }

    public DethFlyweight deth() {
        wrapAt(deth, Header.DETH);
        return deth;
    }

    public RdethFlyweight rdeth() {
        wrapAt(rdeth, Header.RDETH);
        return rdeth;
    }

    public XrcEthFlyweight xrcEth() {
        wrapAt(xrcEth, Header.XRCETH);
        return xrcEth;
    }

    public FethFlyweight feth() {
        wrapAt(feth, Header.FETH);
        return feth;
    }

    /** rnic's selective-retransmission header (opcodes 0xE0–0xFD). */
    public SrethFlyweight sreth() {
        wrapAt(sreth, Header.SRETH);
        return sreth;
    }

    private void wrapAt(HeaderFlyweight f, Header h) {
        int rel = opcode.offsetOf(h);
        if (rel < 0) {
            throw new IllegalStateException(opcode.name() + " carries no " + h);
        }
        f.wrap(buffer, offset + rel, address == 0 ? 0 : address + rel);
    }
}
