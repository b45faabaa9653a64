package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/** Invalidate Extended Transport Header, 4 bytes (reference §2.7). */
public final class IethFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 4;

    @Override
    public IethFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** The R_Key the responder is asked to invalidate. */
    public int rkey() {
        return i32(0);
    }

    public IethFlyweight rkey(int value) {
        i32(0, value);
        return this;
    }
}
