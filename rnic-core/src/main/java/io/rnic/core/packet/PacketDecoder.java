package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * Checks the structure of RoCEv2 packets against the opcode table and, given the addresses,
 * their ICRC. Total: for any bytes it returns a {@link DecodeResult} and never throws (as long as
 * the region it is given lies inside the buffer). Allocation-free; not thread-safe, because it
 * keeps an {@link Icrc}.
 */
public final class PacketDecoder {
    private final Icrc icrc = new Icrc();

    /**
     * Checks the packet in {@code buf[offset, offset + length)} (BTH through ICRC) and, on
     * success, points {@code out} at it. The ICRC is not checked.
     */
    public DecodeResult decode(ByteBuf buf, int offset, int length, RocePacket out) {
        if (length < BthFlyweight.LENGTH + Icrc.LENGTH) {
            return DecodeResult.TRUNCATED_BTH;
        }
        // One bounds check for the whole packet, then direct reads: every ByteBuf access would
        // pay its own bounds and reference-count checks.
        if (offset < 0 || offset > buf.capacity() - length) {
            return DecodeResult.TRUNCATED_BTH;
        }
        long address = HeaderFlyweight.addressOf(buf, offset);
        int word0 = address != 0 ? HeaderFlyweight.intAt(address) : buf.getInt(offset);
        Opcode row = OpcodeTable.lookup(word0 >>> 24);
        if (row == null) {
            return DecodeResult.UNKNOWN_OPCODE;
        }
        int flags = (word0 >>> 16) & 0xFF;
        if ((flags & 0x0F) != 0) {
            return DecodeResult.TVER_NONZERO;
        }
        int body = length - row.headerLength() - Icrc.LENGTH;
        if (body < 0) {
            return DecodeResult.TRUNCATED_HEADER;
        }
        if ((length & 3) != 0) {
            return DecodeResult.LENGTH_UNALIGNED;
        }
        int pad = (flags >>> 4) & 0x3;
        // Column tests rather than a switch on the enum: this is the hottest branch of decode.
        PayloadRule rule = row.payload();
        if (rule == PayloadRule.DATA) {
            // FIRST and MIDDLE packets carry exactly one PMTU, a multiple of 4: never padded.
            if (pad > body || (pad != 0 && !row.position().endsMessage())) {
                return DecodeResult.PADCNT_INCONSISTENT;
            }
        } else {
            if (pad != 0) {
                return DecodeResult.PADCNT_INCONSISTENT;
            }
            if (body != (rule == PayloadRule.EIGHT_BYTES ? 8 : 0)) {
                return DecodeResult.LENGTH_MISMATCH;
            }
        }
        out.set(buf, offset, length, row, body - pad, address);
        return DecodeResult.OK;
    }

    /** {@link #decode}, then the ICRC computed over {@code pseudo}. */
    public DecodeResult decode(ByteBuf buf, int offset, int length, PseudoHeader pseudo, RocePacket out) {
        DecodeResult r = decode(buf, offset, length, out);
        if (r.ok() && !icrc.verify(pseudo, buf, offset, length)) {
            return DecodeResult.ICRC_MISMATCH;
        }
        return r;
    }

    /** The ICRC checker this decoder uses, for callers that verify against captured headers. */
    public Icrc icrc() {
        return icrc;
    }
}
