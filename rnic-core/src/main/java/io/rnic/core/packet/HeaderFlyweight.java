package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteOrder;

/**
 * Base of the header flyweights: a view of one header at an offset of a {@link ByteBuf}. A
 * flyweight is re-pointed with {@link #wrap} instead of being allocated per packet. All fields
 * are big-endian (reference §0); absolute indexing leaves the buffer's indices untouched.
 */
public abstract class HeaderFlyweight {
    static final boolean UNSAFE = PlatformDependent.hasUnsafe() && PlatformDependent.isUnaligned();
    static final boolean LITTLE_ENDIAN_HOST = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /**
     * The buffer, kept only when the header is reached through it ({@link #address} 0): with a
     * native address it is not needed, and storing each packet's new buffer into this long-lived
     * view would cost G1's write barrier, a fence, on every packet.
     */
    private ByteBuf buffer;
    private int offset;
    /**
     * Native address of the header when the buffer is off-heap, else 0. Getters read through it
     * directly: the decoder has already checked that the header lies inside the packet, and
     * the per-access bounds and reference-count checks of {@link ByteBuf} would double the cost
     * of reading a header.
     */
    private long address;

    /** Points this flyweight at the header starting at {@code offset} of {@code buffer}. */
    public HeaderFlyweight wrap(ByteBuf buffer, int offset) {
        return wrap(buffer, offset, addressOf(buffer, offset));
    }

    /** As {@link #wrap(ByteBuf, int)} with the native address already known (0 for none). */
    final HeaderFlyweight wrap(ByteBuf buffer, int offset, long address) {
        if (address == 0 && this.buffer != buffer) { // an unchanged reference needs no GC write barrier
            this.buffer = buffer;
        }
        this.offset = offset;
        this.address = address;
        return this;
    }

    /** The native address of {@code buffer[offset]}, or 0 if the buffer has none or Unsafe is off. */
    static long addressOf(ByteBuf buffer, int offset) {
        return UNSAFE && buffer.hasMemoryAddress() ? buffer.memoryAddress() + offset : 0;
    }

    /** The big-endian int at a native address. */
    static int intAt(long address) {
        int v = PlatformDependent.getInt(address);
        return LITTLE_ENDIAN_HOST ? Integer.reverseBytes(v) : v;
    }

    /** Offset of the header within the buffer it was last wrapped on. */
    public int offset() {
        return offset;
    }

    protected final int u8(int at) {
        long a = address;
        return a != 0 ? PlatformDependent.getByte(a + at) & 0xFF : buffer.getUnsignedByte(offset + at);
    }

    protected final int u16(int at) {
        long a = address;
        if (a != 0) {
            return (PlatformDependent.getByte(a + at) & 0xFF) << 8 | (PlatformDependent.getByte(a + at + 1) & 0xFF);
        }
        return buffer.getUnsignedShort(offset + at);
    }

    protected final int u24(int at) {
        long a = address;
        if (a != 0) {
            return (PlatformDependent.getByte(a + at) & 0xFF) << 16 | (PlatformDependent.getByte(a + at + 1) & 0xFF) << 8
                    | (PlatformDependent.getByte(a + at + 2) & 0xFF);
        }
        return buffer.getUnsignedMedium(offset + at);
    }

    protected final int i32(int at) {
        long a = address;
        if (a != 0) {
            int v = PlatformDependent.getInt(a + at);
            return LITTLE_ENDIAN_HOST ? Integer.reverseBytes(v) : v;
        }
        return buffer.getInt(offset + at);
    }

    protected final long i64(int at) {
        long a = address;
        if (a != 0) {
            long v = PlatformDependent.getLong(a + at);
            return LITTLE_ENDIAN_HOST ? Long.reverseBytes(v) : v;
        }
        return buffer.getLong(offset + at);
    }

    // Setters write through the native address too: the encoder made room for the whole packet
    // (ensureWritable) before it pointed the flyweights at it, and a header never leaves it.

    protected final void u16(int at, int value) {
        long a = address;
        if (a != 0) {
            PlatformDependent.putByte(a + at, (byte) (value >>> 8));
            PlatformDependent.putByte(a + at + 1, (byte) value);
        } else {
            buffer.setShort(offset + at, value);
        }
    }

    protected final void u8(int at, int value) {
        long a = address;
        if (a != 0) {
            PlatformDependent.putByte(a + at, (byte) value);
        } else {
            buffer.setByte(offset + at, value);
        }
    }

    protected final void u24(int at, int value) {
        long a = address;
        if (a != 0) {
            PlatformDependent.putByte(a + at, (byte) (value >>> 16));
            PlatformDependent.putByte(a + at + 1, (byte) (value >>> 8));
            PlatformDependent.putByte(a + at + 2, (byte) value);
        } else {
            buffer.setMedium(offset + at, value & 0xFFFFFF);
        }
    }

    protected final void i32(int at, int value) {
        long a = address;
        if (a != 0) {
            PlatformDependent.putInt(a + at, LITTLE_ENDIAN_HOST ? Integer.reverseBytes(value) : value);
        } else {
            buffer.setInt(offset + at, value);
        }
    }

    protected final void i64(int at, long value) {
        long a = address;
        if (a != 0) {
            PlatformDependent.putLong(a + at, LITTLE_ENDIAN_HOST ? Long.reverseBytes(value) : value);
        } else {
            buffer.setLong(offset + at, value);
        }
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
