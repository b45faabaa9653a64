package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/** Datagram Extended Transport Header, 8 bytes (reference §2.8). */
public final class DethFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 8;
    public static final int QKEY_OFFSET = 0;
    public static final int SRC_QP_OFFSET = 5;

    @Override
    public DethFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    public int qkey() {
        return i32(QKEY_OFFSET);
    }

    public DethFlyweight qkey(int value) {
        i32(QKEY_OFFSET, value);
        return this;
    }

    public int srcQp() {
        return u24(SRC_QP_OFFSET);
    }

    /** Writes the source QP and clears the reserved byte before it. */
    public DethFlyweight srcQp(int value) {
        u8(4, 0);
        u24(SRC_QP_OFFSET, value);
        return this;
    }
}
