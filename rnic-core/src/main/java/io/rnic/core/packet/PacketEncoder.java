package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * Lays out RoCEv2 packets from the opcode table: BTH, the opcode's extension headers at the
 * row's offsets, payload, pad bytes to a 4-byte boundary, and the ICRC. Allocation-free; not
 * thread-safe (it keeps an {@link Icrc}).
 *
 * <p>Use {@link #layout} to reserve and zero the packet, set the header fields through the
 * returned view's flyweights and copy the payload to {@link RocePacket#payloadOffset()}, then
 * call {@link #seal} to write the ICRC.
 */
public final class PacketEncoder {
    private final Icrc icrc = new Icrc();

    /** Total UDP payload bytes of a packet of opcode {@code op} with {@code payloadLength} data bytes. */
    public static int packetLength(Opcode op, int payloadLength) {
        return op.headerLength() + payloadLength + padCount(payloadLength) + Icrc.LENGTH;
    }

    /** Pad bytes that bring a payload to a multiple of 4. */
    public static int padCount(int payloadLength) {
        return -payloadLength & 3;
    }

    /**
     * Writes a packet skeleton of opcode {@code op} at {@code buf}'s writer index (headers zeroed
     * but for the opcode, TVer 0, PadCnt set, pad bytes and ICRC zero; the payload is left as the
     * buffer had it, for the caller to write in full), advances the writer index past it and points
     * {@code out} at it.
     *
     * @throws IllegalArgumentException if {@code op} does not allow {@code payloadLength} bytes
     */
    public RocePacket layout(ByteBuf buf, Opcode op, int payloadLength, RocePacket out) {
        checkPayload(op, payloadLength);
        int length = packetLength(op, payloadLength);
        int offset = buf.writerIndex();
        buf.ensureWritable(length);
        // Zero the headers and the pad + ICRC tail only: the payload is always written over.
        int headers = length - payloadLength - padCount(payloadLength) - Icrc.LENGTH;
        int tail = length - headers - payloadLength;
        if (buf.hasMemoryAddress() && io.netty.util.internal.PlatformDependent.hasUnsafe()) {
            // ensureWritable checked the range: zero it without the buffer's per-call checks.
            long address = buf.memoryAddress() + offset;
            zero(address, headers);
            zero(address + headers + payloadLength, tail);
        } else {
            buf.setZero(offset, headers);
            buf.setZero(offset + headers + payloadLength, tail);
        }
        buf.writerIndex(offset + length);
        out.set(buf, offset, length, op, payloadLength, HeaderFlyweight.addressOf(buf, offset));
        out.bth().opcode(op.code()).padCount(padCount(payloadLength));
        return out;
    }

    private static final boolean UNALIGNED = io.netty.util.internal.PlatformDependent.isUnaligned();

    /**
     * Zeroes {@code n} bytes at a native address. Headers and the tail are tens of bytes, where
     * {@code Unsafe.setMemory} is a call into the VM per range (a few percent of a 64-byte
     * WRITE's cost on the simulated network): word stores instead.
     */
    private static void zero(long address, int n) {
        if (!UNALIGNED || n > 128) {
            io.netty.util.internal.PlatformDependent.setMemory(address, n, (byte) 0);
            return;
        }
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            io.netty.util.internal.PlatformDependent.putLong(address + i, 0L);
        }
        if (i + 4 <= n) {
            io.netty.util.internal.PlatformDependent.putInt(address + i, 0);
            i += 4;
        }
        for (; i < n; i++) {
            io.netty.util.internal.PlatformDependent.putByte(address + i, (byte) 0);
        }
    }

    /** Computes and writes the ICRC of the packet {@code p} for the flow {@code pseudo}. */
    public void seal(RocePacket p, PseudoHeader pseudo) {
        icrc.write(pseudo, p.buffer(), p.offset(), p.length());
    }

    /** Encodes {@code f} at {@code buf}'s writer index and returns the packet's length. */
    public int encode(PacketFields f, PseudoHeader pseudo, ByteBuf buf, RocePacket scratch) {
        Opcode op = f.opcode();
        byte[] data = f.payload();
        RocePacket p = layout(buf, op, data.length, scratch);
        f.writeTo(p);
        buf.setBytes(p.payloadOffset(), data);
        seal(p, pseudo);
        return p.length();
    }

    private static void checkPayload(Opcode op, int payloadLength) {
        if (op == null) {
            throw new IllegalArgumentException("opcode is required");
        }
        if (payloadLength < 0) {
            throw new IllegalArgumentException("payload length " + payloadLength + " is negative");
        }
        boolean ok;
        switch (op.payload()) {
            case NONE:
                ok = payloadLength == 0;
                break;
            case EIGHT_BYTES:
                ok = payloadLength == 8;
                break;
            default:
                ok = op.position().endsMessage() || (payloadLength & 3) == 0;
                break;
        }
        if (!ok) {
            throw new IllegalArgumentException(op.name() + " cannot carry a payload of " + payloadLength
                    + " bytes (rule " + op.payload() + ", position " + op.position() + ")");
        }
    }
}
