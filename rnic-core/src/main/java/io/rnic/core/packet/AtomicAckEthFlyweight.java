package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/** Atomic ACK Extended Transport Header, 8 bytes (reference §2.5). */
public final class AtomicAckEthFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 8;
    public static final int ORIGINAL_OFFSET = 0;

    @Override
    public AtomicAckEthFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** The value at the target before the atomic executed. */
    public long originalData() {
        return i64(ORIGINAL_OFFSET);
    }

    public AtomicAckEthFlyweight originalData(long value) {
        i64(ORIGINAL_OFFSET, value);
        return this;
    }
}
