package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/** XRC Extended Transport Header, 4 bytes (reference §2.10). */
public final class XrcEthFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 4;

    @Override
    public XrcEthFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** XRC SRQ number at the target. */
    public int xrcSrq() {
        return u24(1);
    }

    /** Writes the XRC SRQ number and clears the reserved byte. */
    public XrcEthFlyweight xrcSrq(int value) {
        u8(0, 0);
        u24(1, value);
        return this;
    }
}
