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
        // One read for opcode and flags: every ByteBuf access pays bounds and liveness checks.
        int word0 = buf.getInt(offset);
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
        switch (row.payload()) {
            case NONE:
                if (pad != 0) {
                    return DecodeResult.PADCNT_INCONSISTENT;
                }
                if (body != 0) {
                    return DecodeResult.LENGTH_MISMATCH;
                }
                break;
            case EIGHT_BYTES:
                if (pad != 0) {
                    return DecodeResult.PADCNT_INCONSISTENT;
                }
                if (body != 8) {
                    return DecodeResult.LENGTH_MISMATCH;
                }
                break;
            default:
                // FIRST and MIDDLE packets carry exactly one PMTU, a multiple of 4: never padded.
                if (pad > body || (pad != 0 && !row.position().endsMessage())) {
                    return DecodeResult.PADCNT_INCONSISTENT;
                }
                break;
        }
        out.set(buf, offset, length, row, body - pad);
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
