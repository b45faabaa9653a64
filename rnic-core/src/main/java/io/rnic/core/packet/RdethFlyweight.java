package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/** Reliable Datagram Extended Transport Header, 4 bytes (reference §2.9). */
public final class RdethFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 4;

    @Override
    public RdethFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** Destination EE context number. */
    public int eeContext() {
        return u24(1);
    }

    /** Writes the EE context number and clears the reserved byte. */
    public RdethFlyweight eeContext(int value) {
        u8(0, 0);
        u24(1, value);
        return this;
    }
}
