package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * rnic's Selective Retransmission Extended Transport Header, 32 bytes after the BTH of every
 * packet of a QP using the selective-retransmission protocol (opcodes 0xE0–0xFD, docs/packets.md). On a
 * request or READ response it says where the packet belongs:
 *
 * <pre>
 *  0  PSN offset: the packet's index in its message (a READ response: in the READ's responses)
 *  4  SSN: the message's send sequence number (SEND)
 *  8  receive WQE number (SEND: which receive WQE the message takes, counted from 0 at RTR);
 *     R_Key (WRITE: the message's); L_Key (READ request and response: the requester's buffer)
 * 12  length: the WRITE's DMA length; the READ's local length
 * 16  address: the WRITE's remote VA (of the message's first byte); the READ's local VA
 * 24  reserved, zero
 * </pre>
 *
 * On an ACKNOWLEDGE the 32 bytes are a bitmap of 256 PSNs from the BTH's: bit {@code i} (byte
 * {@code i / 8}, bit {@code i % 8} from the least significant) set means the responder misses
 * PSN + i. All zero on a positive ACK.
 */
public final class SrethFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 32;
    /** PSNs a selective NAK's bitmap covers. */
    public static final int BITMAP_PSNS = 256;
    public static final int PSN_OFFSET = 0;
    public static final int SSN_OFFSET = 4;
    public static final int KEY_OFFSET = 8;
    public static final int LENGTH_OFFSET = 12;
    public static final int ADDRESS_OFFSET = 16;

    @Override
    public SrethFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** The packet's index in its message. */
    public int psnOffset() {
        return i32(PSN_OFFSET);
    }

    public SrethFlyweight psnOffset(int value) {
        i32(PSN_OFFSET, value);
        return this;
    }

    public int ssn() {
        return i32(SSN_OFFSET);
    }

    public SrethFlyweight ssn(int value) {
        i32(SSN_OFFSET, value);
        return this;
    }

    /** The receive WQE number (SEND) or the key (WRITE: R_Key; READ: L_Key). */
    public int key() {
        return i32(KEY_OFFSET);
    }

    public SrethFlyweight key(int value) {
        i32(KEY_OFFSET, value);
        return this;
    }

    /** Unsigned 32 bits in an int. */
    public int length() {
        return i32(LENGTH_OFFSET);
    }

    public SrethFlyweight length(int value) {
        i32(LENGTH_OFFSET, value);
        return this;
    }

    public long address() {
        return i64(ADDRESS_OFFSET);
    }

    public SrethFlyweight address(long value) {
        i64(ADDRESS_OFFSET, value);
        return this;
    }

    /** On an ACKNOWLEDGE: whether the bitmap lists PSN + {@code i} as missing. */
    public boolean missing(int i) {
        return (u8(i >>> 3) & (1 << (i & 7))) != 0;
    }

    /** The header as {@code rnic decode} and tools show it; {@code acknowledge}: as a bitmap. */
    public String describe(boolean acknowledge) {
        if (!acknowledge) {
            return String.format(" SRETH(off=%d ssn=%d key=0x%08x len=%d va=0x%x)", Integer.toUnsignedLong(psnOffset()),
                    ssn(), key(), Integer.toUnsignedLong(length()), address());
        }
        StringBuilder sb = new StringBuilder(" SRETH(missing=");
        int n = 0;
        for (int i = 0; i < BITMAP_PSNS; i++) {
            if (missing(i)) {
                sb.append(n++ == 0 ? "+" : ",+").append(i);
            }
        }
        return sb.append(n == 0 ? "none)" : ")").toString();
    }

    /** On an ACKNOWLEDGE: lists PSN + {@code i} as missing. */
    public SrethFlyweight markMissing(int i) {
        int at = i >>> 3;
        u8(at, u8(at) | (1 << (i & 7)));
        return this;
    }
}
