package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/** FLUSH Extended Transport Header, 4 bytes (reference §2.11). */
public final class FethFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 4;

    @Override
    public FethFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** Selectivity level, bits 5..4: 0 memory-region range, 1 whole region. */
    public int selectivity() {
        return bits(3, 4, 0x3);
    }

    /** Placement type, bits 3..0: bit 0 global visibility, bit 1 persistence. */
    public int placementType() {
        return bits(3, 0, 0xF);
    }

    /** Writes both fields and clears the reserved bits. */
    public FethFlyweight set(int selectivity, int placementType) {
        i32(0, ((selectivity & 0x3) << 4) | (placementType & 0xF));
        return this;
    }
}
