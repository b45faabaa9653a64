package io.rnic.core.packet;

/** What an opcode allows after its headers, before the pad and ICRC. */
public enum PayloadRule {
    /** No payload at all, and therefore PadCnt 0. */
    NONE,
    /** Any payload length the path MTU allows (the transport checks the MTU). */
    DATA,
    /** Exactly 8 bytes: ATOMIC WRITE. */
    EIGHT_BYTES
}
