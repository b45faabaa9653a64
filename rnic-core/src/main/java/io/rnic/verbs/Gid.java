package io.rnic.verbs;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * A 16-byte GID. For RoCEv2 over IPv4 it is the IPv4-mapped IPv6 address {@code ::ffff:a.b.c.d};
 * over IPv6 it is the address itself.
 */
public final class Gid {
    private final byte[] raw;

    private Gid(byte[] raw) {
        this.raw = raw;
    }

    /**
     * The RoCEv2 GID of an IP address.
     *
     * @param ip an IPv4 address (mapped to {@code ::ffff:a.b.c.d}) or an IPv6 address
     * @return the GID
     */
    public static Gid of(InetAddress ip) {
        byte[] g = new byte[16];
        if (ip instanceof Inet4Address) {
            g[10] = (byte) 0xFF;
            g[11] = (byte) 0xFF;
            System.arraycopy(ip.getAddress(), 0, g, 12, 4);
        } else {
            System.arraycopy(ip.getAddress(), 0, g, 0, 16);
        }
        return new Gid(g);
    }

    /**
     * A GID from its 16 bytes, in network order.
     *
     * @param bytes the 16 bytes; copied
     * @return the GID
     * @throws NullPointerException if {@code bytes} is null
     * @throws IllegalArgumentException if it is not 16 bytes long
     */
    public static Gid of(byte[] bytes) {
        java.util.Objects.requireNonNull(bytes, "bytes");
        if (bytes == null || bytes.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + (bytes == null ? "null" : bytes.length));
        }
        return new Gid(bytes.clone());
    }

    /**
     * Parses 32 hex digits, the form libibverbs examples exchange (reference §11.1).
     *
     * @param hex 32 hex digits, either case, no separators
     * @return the GID
     * @throws IllegalArgumentException if {@code hex} is not 32 hex digits
     */
    public static Gid parseHex(String hex) {
        java.util.Objects.requireNonNull(hex, "hex");
        if (hex == null || !hex.matches("[0-9a-fA-F]{32}")) {
            throw new IllegalArgumentException("a GID is 32 hex digits, got \"" + hex + "\"");
        }
        byte[] g = new byte[16];
        for (int i = 0; i < 16; i++) {
            g[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return new Gid(g);
    }

    /**
     * The GID's 16 bytes, in network order, as a GRH carries them.
     *
     * @return a fresh copy of the bytes
     */
    public byte[] bytes() {
        return raw.clone();
    }

    /**
     * The IP address this GID stands for: where RoCEv2 packets to it are sent.
     *
     * @return an IPv4 address for an IPv4-mapped GID, else the IPv6 address
     */
    public InetAddress toInetAddress() {
        try {
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= raw[i] == 0;
            }
            mapped &= raw[10] == (byte) 0xFF && raw[11] == (byte) 0xFF;
            if (mapped) {
                return InetAddress.getByAddress(Arrays.copyOfRange(raw, 12, 16));
            }
            return Inet6Address.getByAddress(null, raw.clone(), null);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are always an address", e);
        }
    }

    /**
     * Formats the GID as {@link #parseHex} reads it.
     *
     * @return 32 lower-case hex digits
     */
    public String toHex() {
        StringBuilder sb = new StringBuilder(32);
        for (byte b : raw) {
            sb.append(String.format("%02x", b & 0xFF));
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid g && Arrays.equals(raw, g.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    /** As {@code inet_ntop} prints a GID: {@code ::ffff:a.b.c.d} for IPv4-mapped ones. */
    @Override
    public String toString() {
        InetAddress a = toInetAddress();
        return a instanceof Inet4Address ? "::ffff:" + a.getHostAddress() : a.getHostAddress();
    }
}
