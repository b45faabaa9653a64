package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/** Base Transport Header, 12 bytes (reference §2.1). */
public final class BthFlyweight extends HeaderFlyweight {
    public static final int LENGTH = 12;
    public static final int OPCODE_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int PKEY_OFFSET = 2;
    /** Byte 4 (FECN, BECN, resv6) is the one BTH byte masked out of the ICRC. */
    public static final int ECN_OFFSET = 4;
    public static final int DEST_QP_OFFSET = 5;
    public static final int ACK_REQ_OFFSET = 8;
    /** The AckReq bit in byte {@link #ACK_REQ_OFFSET}. */
    public static final int ACK_REQ_BIT = 0x80;
    public static final int PSN_OFFSET = 9;

    @Override
    public BthFlyweight wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    public int opcode() {
        return u8(OPCODE_OFFSET);
    }

    public BthFlyweight opcode(int value) {
        u8(OPCODE_OFFSET, value);
        return this;
    }

    /** Solicited Event bit. */
    public boolean solicited() {
        return bits(FLAGS_OFFSET, 7, 1) != 0;
    }

    public BthFlyweight solicited(boolean value) {
        bits(FLAGS_OFFSET, 7, 1, value ? 1 : 0);
        return this;
    }

    /** MigReq bit; rxe sends 0 and ignores it. */
    public boolean migReq() {
        return bits(FLAGS_OFFSET, 6, 1) != 0;
    }

    public BthFlyweight migReq(boolean value) {
        bits(FLAGS_OFFSET, 6, 1, value ? 1 : 0);
        return this;
    }

    /** Number of pad bytes (0–3) after the payload. */
    public int padCount() {
        return bits(FLAGS_OFFSET, 4, 0x3);
    }

    public BthFlyweight padCount(int value) {
        bits(FLAGS_OFFSET, 4, 0x3, value);
        return this;
    }

    /** Transport header version; must be 0. */
    public int tver() {
        return bits(FLAGS_OFFSET, 0, 0xF);
    }

    public BthFlyweight tver(int value) {
        bits(FLAGS_OFFSET, 0, 0xF, value);
        return this;
    }

    public int pkey() {
        return u16(PKEY_OFFSET);
    }

    public BthFlyweight pkey(int value) {
        u16(PKEY_OFFSET, value);
        return this;
    }

    public boolean fecn() {
        return bits(ECN_OFFSET, 7, 1) != 0;
    }

    public BthFlyweight fecn(boolean value) {
        bits(ECN_OFFSET, 7, 1, value ? 1 : 0);
        return this;
    }

    public boolean becn() {
        return bits(ECN_OFFSET, 6, 1) != 0;
    }

    public BthFlyweight becn(boolean value) {
        bits(ECN_OFFSET, 6, 1, value ? 1 : 0);
        return this;
    }

    /** The six reserved bits of byte 4. */
    public int resv6() {
        return bits(ECN_OFFSET, 0, 0x3F);
    }

    public BthFlyweight resv6(int value) {
        bits(ECN_OFFSET, 0, 0x3F, value);
        return this;
    }

    public int destQp() {
        return u24(DEST_QP_OFFSET);
    }

    public BthFlyweight destQp(int value) {
        u24(DEST_QP_OFFSET, value);
        return this;
    }

    public boolean ackReq() {
        return bits(ACK_REQ_OFFSET, 7, 1) != 0;
    }

    public BthFlyweight ackReq(boolean value) {
        bits(ACK_REQ_OFFSET, 7, 1, value ? 1 : 0);
        return this;
    }

    /** The seven reserved bits of byte 8. */
    public int resv7() {
        return bits(ACK_REQ_OFFSET, 0, 0x7F);
    }

    public BthFlyweight resv7(int value) {
        bits(ACK_REQ_OFFSET, 0, 0x7F, value);
        return this;
    }

    public int psn() {
        return u24(PSN_OFFSET);
    }

    public BthFlyweight psn(int value) {
        u24(PSN_OFFSET, value);
        return this;
    }
}
