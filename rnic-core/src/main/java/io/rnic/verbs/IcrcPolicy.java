package io.rnic.verbs;

/**
 * How an HCA treats the ICRC of packets it receives (see {@code docs/icrc.md}).
 */
public enum IcrcPolicy {
    /**
     * Verify every ICRC over the pseudo header rebuilt from the datagram's addresses and ports
     * (IPv4 identification 0, DF set). The default, and right between emulated HCAs.
     */
    STRICT,
    /**
     * Accept packets whose ICRC cannot be verified because the sender's kernel chose an IPv4
     * identification the receiver cannot see (a kernel rxe peer): the ICRC is checked, and a
     * mismatch is counted but the packet is still processed.
     */
    ACCEPT_UNVERIFIABLE
}
