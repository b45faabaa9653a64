package io.rnic.core.packet;

/**
 * Outcome of {@link PacketDecoder#decode}: {@link #OK} or the first reason the bytes are not a
 * well-formed RoCEv2 packet. Each reason names the check that failed, so a receiver can count
 * drops per reason.
 */
public enum DecodeResult {
    OK("decoded"),
    /** Fewer bytes than a BTH plus an ICRC. */
    TRUNCATED_BTH("shorter than BTH + ICRC"),
    /** The opcode is reserved, manufacturer-specific or otherwise not in the table. */
    UNKNOWN_OPCODE("reserved or unknown opcode"),
    /** BTH TVer is not 0. */
    TVER_NONZERO("BTH transport version is not 0"),
    /** Fewer bytes than the opcode's extension headers plus the ICRC. */
    TRUNCATED_HEADER("shorter than the opcode's headers + ICRC"),
    /** Length not a multiple of 4: headers, payload+pad and ICRC are all 4-byte multiples. */
    LENGTH_UNALIGNED("length is not a multiple of 4"),
    /** Payload on an opcode that carries none, or the wrong size for a fixed-size payload. */
    LENGTH_MISMATCH("payload length not allowed for the opcode"),
    /** PadCnt on a packet without payload, on a FIRST/MIDDLE packet, or larger than the data. */
    PADCNT_INCONSISTENT("PadCnt inconsistent with the payload"),
    /** The stored ICRC differs from the one computed over the packet. */
    ICRC_MISMATCH("ICRC mismatch");

    private final String description;

    DecodeResult(String description) {
        this.description = description;
    }

    public boolean ok() {
        return this == OK;
    }

    /** A short human-readable reason. */
    public String description() {
        return description;
    }
}
