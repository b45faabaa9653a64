package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * ACK Extended Transport Header, 4 bytes (reference §2.3): the syndrome byte and the 24-bit
 * MSN. Interpret the syndrome with {@link AethSyndrome}.
 */
public final class AethFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 4;
    public static final int SYNDROME_OFFSET = 0;
    public static final int MSN_OFFSET = 1;

    @Override
    public AethFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    public int syndrome() {
        return u8(SYNDROME_OFFSET);
    }

    public AethFlyweight syndrome(int value) {
        u8(SYNDROME_OFFSET, value);
        return this;
    }

    public int msn() {
        return u24(MSN_OFFSET);
    }

    public AethFlyweight msn(int value) {
        u24(MSN_OFFSET, value);
        return this;
    }
}
