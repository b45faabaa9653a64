package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * Immediate data, 4 bytes (reference §2.6). The value is opaque: it is read and written as the
 * big-endian int of the four wire bytes, so copying it never swaps bytes.
 */
public final class ImmDtFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 4;

    @Override
    public ImmDtFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    public int immediate() {
        return i32(0);
    }

    public ImmDtFlyweight immediate(int value) {
        i32(0, value);
        return this;
    }
}
