package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * Base of the header flyweights: a view of one header at an offset of a {@link ByteBuf}. A
 * flyweight is re-pointed with {@link #wrap} instead of being allocated per packet. All fields
 * are big-endian (reference §0); absolute indexing leaves the buffer's indices untouched.
 */
public abstract class HeaderFlyweight {
    protected ByteBuf buffer;
    protected int offset;

    /** Points this flyweight at the header starting at {@code offset} of {@code buffer}. */
    public HeaderFlyweight wrap(ByteBuf buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** The buffer this flyweight currently views. */
    public ByteBuf buffer() {
        return buffer;
    }

    /** Offset of the header within {@link #buffer()}. */
    public int offset() {
        return offset;
    }

    protected final int u8(int at) {
        return buffer.getUnsignedByte(offset + at);
    }

    protected final int u24(int at) {
        return buffer.getUnsignedMedium(offset + at);
    }

    protected final int i32(int at) {
        return buffer.getInt(offset + at);
    }

    protected final long i64(int at) {
        return buffer.getLong(offset + at);
    }

    protected final void u8(int at, int value) {
        buffer.setByte(offset + at, value);
    }

    protected final void u24(int at, int value) {
        buffer.setMedium(offset + at, value & 0xFFFFFF);
    }

    protected final void i32(int at, int value) {
        buffer.setInt(offset + at, value);
    }

    protected final void i64(int at, long value) {
        buffer.setLong(offset + at, value);
    }

    /** Reads {@code mask} bits of byte {@code at}, shifted down by {@code shift}. */
    protected final int bits(int at, int shift, int mask) {
        return (u8(at) >>> shift) & mask;
    }

    /** Writes {@code mask} bits of byte {@code at} at {@code shift}, keeping the other bits. */
    protected final void bits(int at, int shift, int mask, int value) {
        int b = u8(at) & ~(mask << shift);
        u8(at, b | ((value & mask) << shift));
    }
}
