package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/** RDMA Extended Transport Header, 16 bytes (reference §2.2). */
public final class RethFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 16;
    public static final int VA_OFFSET = 0;
    public static final int RKEY_OFFSET = 8;
    public static final int DMA_LENGTH_OFFSET = 12;

    @Override
    public RethFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    public long virtualAddress() {
        return i64(VA_OFFSET);
    }

    public RethFlyweight virtualAddress(long value) {
        i64(VA_OFFSET, value);
        return this;
    }

    public int rkey() {
        return i32(RKEY_OFFSET);
    }

    public RethFlyweight rkey(int value) {
        i32(RKEY_OFFSET, value);
        return this;
    }

    /** Total length of the whole RDMA message, as an unsigned 32-bit value in an int. */
    public int dmaLength() {
        return i32(DMA_LENGTH_OFFSET);
    }

    public RethFlyweight dmaLength(int value) {
        i32(DMA_LENGTH_OFFSET, value);
        return this;
    }
}
