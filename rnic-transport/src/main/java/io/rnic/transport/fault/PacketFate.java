package io.rnic.transport.fault;

import io.netty.buffer.ByteBuf;
import io.rnic.core.packet.BthFlyweight;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.Operation;
import java.util.random.RandomGenerator;

/**
 * What is to happen to one packet on a faulty link: the fault models of a {@link FaultChain}
 * read the packet and record their decisions here. One instance is reused for every packet.
 */
public final class PacketFate {
    private ByteBuf packet;
    private long index;
    private RandomGenerator random;
    private boolean drop;
    private int duplicates;
    private long extraDelayNanos;
    private boolean holdForNext;
    private boolean corrupted;
    private boolean truncated;

    void reset(ByteBuf packet, long index, RandomGenerator random) {
        this.packet = packet;
        this.index = index;
        this.random = random;
        this.drop = false;
        this.duplicates = 0;
        this.extraDelayNanos = 0;
        this.holdForNext = false;
        this.corrupted = false;
        this.truncated = false;
    }

    /** The packet (BTH through ICRC as the readable bytes). Faults may modify it. */
    public ByteBuf packet() {
        return packet;
    }

    /** Zero-based position of this packet among those offered to this chain. */
    public long index() {
        return index;
    }

    /** The chain's seeded random generator: the only randomness faults may use. */
    public RandomGenerator random() {
        return random;
    }

    /** The BTH opcode, or -1 if the packet is too short to have one. */
    public int opcode() {
        return packet.readableBytes() >= 1 ? packet.getUnsignedByte(packet.readerIndex()) : -1;
    }

    /** The BTH destination QP, or -1 if the packet is shorter than a BTH. */
    public int destQp() {
        return hasBth() ? packet.getUnsignedMedium(packet.readerIndex() + BthFlyweight.DEST_QP_OFFSET) : -1;
    }

    /** The BTH PSN, or -1 if the packet is shorter than a BTH. */
    public int psn() {
        return hasBth() ? packet.getUnsignedMedium(packet.readerIndex() + BthFlyweight.PSN_OFFSET) : -1;
    }

    /** The operation of the packet's opcode, or {@code null} for unknown opcodes. */
    public Operation operation() {
        int code = opcode();
        Opcode row = code < 0 ? null : OpcodeTable.lookup(code);
        return row == null ? null : row.operation();
    }

    /** True for ACKNOWLEDGE and ATOMIC ACKNOWLEDGE packets. */
    public boolean isAck() {
        Operation op = operation();
        return op == Operation.ACKNOWLEDGE || op == Operation.ATOMIC_ACKNOWLEDGE;
    }

    private boolean hasBth() {
        return packet.readableBytes() >= BthFlyweight.LENGTH;
    }

    public void drop() {
        this.drop = true;
    }

    public void duplicate() {
        this.duplicates++;
    }

    public void delay(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("extra delay " + nanos + " ns is negative");
        }
        this.extraDelayNanos += nanos;
    }

    /** Holds the packet back until the next packet on the link has gone, then sends it. */
    public void holdForNext() {
        this.holdForNext = true;
    }

    /** Flips bit {@code bit} (0–7) of byte {@code index} of the packet. */
    public void flipBit(int index, int bit) {
        int at = packet.readerIndex() + index;
        packet.setByte(at, packet.getByte(at) ^ (1 << bit));
        this.corrupted = true;
    }

    /** Cuts the packet to its first {@code length} bytes. */
    public void truncate(int length) {
        if (length < packet.readableBytes()) {
            packet.writerIndex(packet.readerIndex() + Math.max(0, length));
            this.truncated = true;
        }
    }

    public boolean dropped() {
        return drop;
    }

    public int duplicates() {
        return duplicates;
    }

    public long extraDelayNanos() {
        return extraDelayNanos;
    }

    public boolean heldForNext() {
        return holdForNext;
    }

    public boolean corrupted() {
        return corrupted;
    }

    public boolean truncated() {
        return truncated;
    }
}
