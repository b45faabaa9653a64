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
    public ConnectionInfo {
        if (gid == null) {
            throw new IllegalArgumentException("gid is required");
        }
        if ((qpn & ~0xFFFFFF) != 0 || (psn & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("QPN and PSN are 24-bit values, got " + qpn + " and " + psn);
        }
    }

    /** One text line: {@code gid-hex qpn-hex psn-hex address-hex rkey-hex}. */
    public String toLine() {
        return String.format("%s %06x %06x %016x %08x", gid.toHex(), qpn, psn, address, rkey);
    }

    /** Parses {@link #toLine()}. */
    public static ConnectionInfo parse(String line) {
        if (line == null) {
            throw new IllegalArgumentException("no connection information received");
        }
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
