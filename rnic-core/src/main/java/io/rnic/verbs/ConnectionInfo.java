package io.rnic.verbs;

/**
 * What two sides of an RC connection tell each other out of band: GID, QP number, starting
 * PSN, and, for RDMA, the address and R_Key of a region the peer may access.
 *
 * @param gid     the side's GID
 * @param qpn     its QP number
 * @param psn     its starting send PSN (the peer's expected PSN)
 * @param address virtual address of its exposed region, or 0
 * @param rkey    R_Key of its exposed region, or 0
 */
public record ConnectionInfo(Gid gid, int qpn, int psn, long address, int rkey) {
    /**
     * Checks the fields: a GID is required, and the QP number and PSN are 24-bit values.
     *
     * @param gid     the side's GID
     * @param qpn     its QP number
     * @param psn     its starting send PSN
     * @param address virtual address of its exposed region, or 0
     * @param rkey    R_Key of its exposed region, or 0
     * @throws NullPointerException if {@code gid} is null
     * @throws IllegalArgumentException if {@code qpn} or {@code psn} does
     *     not fit in 24 bits
     */
    public ConnectionInfo {
        java.util.Objects.requireNonNull(gid, "gid");
        if ((qpn & ~0xFFFFFF) != 0 || (psn & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("QPN and PSN are 24-bit values, got " + qpn + " and " + psn);
        }
    }

    /**
     * Formats the information as the one text line {@link Connections#serve} and
     * {@link Connections#dial} exchange, the same fields rdma-core's pingpong examples send.
     *
     * @return {@code gid-hex qpn-hex psn-hex address-hex rkey-hex}, without a line terminator
     */
    public String toLine() {
        return String.format("%s %06x %06x %016x %08x", gid.toHex(), qpn, psn, address, rkey);
    }

    /**
     * Parses a line written by {@link #toLine()}.
     *
     * @param line the received line, surrounding white space allowed
     * @return the peer's connection information
     * @throws IllegalArgumentException if {@code line} is null (the peer hung up) or malformed
     */
    public static ConnectionInfo parse(String line) {
        java.util.Objects.requireNonNull(line, "line");
        String[] f = line.trim().split(" ");
        if (f.length != 5) {
            throw new IllegalArgumentException("connection information needs 5 fields, got \"" + line + "\"");
        }
        try {
            return new ConnectionInfo(Gid.parseHex(f[0]), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                    Long.parseUnsignedLong(f[3], 16), (int) Long.parseLong(f[4], 16));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("malformed connection information \"" + line + "\"", e);
        }
    }
}
