package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/** Atomic Extended Transport Header, 28 bytes (reference §2.4). */
public final class AtomicEthFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 28;
    public static final int VA_OFFSET = 0;
    public static final int RKEY_OFFSET = 8;
    public static final int SWAP_ADD_OFFSET = 12;
    public static final int COMPARE_OFFSET = 20;

    @Override
    public AtomicEthFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    public long virtualAddress() {
        return i64(VA_OFFSET);
    }

    public AtomicEthFlyweight virtualAddress(long value) {
        i64(VA_OFFSET, value);
        return this;
    }

    public int rkey() {
        return i32(RKEY_OFFSET);
    }

    public AtomicEthFlyweight rkey(int value) {
        i32(RKEY_OFFSET, value);
        return this;
    }

    /** Swap data (CmpSwap) or add data (FetchAdd). */
    public long swapAdd() {
        return i64(SWAP_ADD_OFFSET);
    }

    public AtomicEthFlyweight swapAdd(long value) {
        i64(SWAP_ADD_OFFSET, value);
        return this;
    }

    /** Compare data (CmpSwap); ignored for FetchAdd. */
    public long compare() {
        return i64(COMPARE_OFFSET);
    }

    public AtomicEthFlyweight compare(long value) {
        i64(COMPARE_OFFSET, value);
        return this;
    }
}
