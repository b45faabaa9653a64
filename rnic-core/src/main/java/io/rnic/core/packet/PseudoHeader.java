package io.rnic.core.packet;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * The IP and UDP header fields a RoCEv2 packet's ICRC covers, for packets whose real IP header
 * the emulator neither writes nor sees (a UDP socket's datagrams). Mutable and reusable: set it
 * once per flow and use it for every packet.
 *
 * <p>Convention for IPv4 (documented in {@code docs/icrc.md}): identification 0 and the
 * Don't-Fragment flag set, which is what rxe's peers expect from a sender that does not choose
 * the identification. TOS, TTL, checksums, IPv6 traffic class, flow label and hop limit are
 * masked out of the ICRC and therefore need no value here.
 */
public final class PseudoHeader {
    /** The IANA UDP port of RoCEv2. */
    public static final int ROCE_PORT = 4791;

    private boolean ipv6;
    private final byte[] source = new byte[16];
    private final byte[] destination = new byte[16];
    private int sourcePort;
    private int destinationPort = ROCE_PORT;
    private int ipv4Identification;
    private boolean dontFragment = true;
    /** The TOS byte of the IP header a received packet came with; not covered by the ICRC. */
    private int tos;
    /** Changes with every change of a field, so that a user can tell the header is as it last saw it. */
    private long version;
    /** The address objects last given to {@link #addresses}; null once the addresses were set otherwise. */
    private InetAddress lastSource;
    private InetAddress lastDestination;

    /** Sets IPv4 or IPv6 addresses; both must be of the same family. */
    public PseudoHeader addresses(InetAddress src, InetAddress dst) {
        if (src == null || dst == null) {
            throw new IllegalArgumentException("source and destination addresses are required, got " + src + " -> " + dst);
        }
        if (src == lastSource && dst == lastDestination) {
            return this; // a flow seals with the same address objects: skip getAddress()'s copies
        }
        boolean v6 = src instanceof Inet6Address;
        if (v6 != (dst instanceof Inet6Address)) {
            throw new IllegalArgumentException("source " + src + " and destination " + dst + " are not of the same IP family");
        }
        byte[] s = src.getAddress();
        byte[] d = dst.getAddress();
        if (v6 != ipv6 || !java.util.Arrays.equals(s, 0, s.length, source, 0, s.length)
                || !java.util.Arrays.equals(d, 0, d.length, destination, 0, d.length)) {
            this.ipv6 = v6;
            System.arraycopy(s, 0, source, 0, s.length);
            System.arraycopy(d, 0, destination, 0, d.length);
            version++;
        }
        lastSource = src;
        lastDestination = dst;
        return this;
    }

    /** Sets IPv4 addresses given as big-endian ints. */
    public PseudoHeader ipv4(int src, int dst) {
        this.ipv6 = false;
        lastSource = null;
        lastDestination = null;
        putInt(source, src);
        putInt(destination, dst);
        version++;
        return this;
    }

    public PseudoHeader ports(int src, int dst) {
        if ((src & ~0xFFFF) != 0 || (dst & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("UDP ports must be 0..65535, got " + src + " and " + dst);
        }
        if (src != sourcePort || dst != destinationPort) {
            this.sourcePort = src;
            this.destinationPort = dst;
            version++;
        }
        return this;
    }

    /**
     * Sets the IP TOS byte (IPv6 traffic class) a received packet arrived with, or
     * {@code PacketSink.TOS_UNKNOWN} (-1) where the wire could not read it. The ICRC masks it,
     * so it does not change the header's {@link #version}.
     */
    public PseudoHeader tos(int tos) {
        this.tos = tos;
        return this;
    }

    /** The TOS byte set with {@link #tos(int)}, or -1 if unknown. */
    public int tos() {
        return tos;
    }

    /** The IPv4 identification the ICRC assumes (0 by convention). */
    public PseudoHeader ipv4Identification(int id) {
        this.ipv4Identification = id & 0xFFFF;
        version++;
        return this;
    }

    /** Whether the assumed IPv4 header has DF set (true by convention). */
    public PseudoHeader dontFragment(boolean df) {
        this.dontFragment = df;
        version++;
        return this;
    }

    /**
     * A number that changes whenever a field does (it may also change when a setter writes the
     * value a field already had): equal versions of one instance mean equal headers.
     */
    public long version() {
        return version;
    }

    public boolean isIpv6() {
        return ipv6;
    }

    public int sourcePort() {
        return sourcePort;
    }

    public int destinationPort() {
        return destinationPort;
    }

    /**
     * True if the source address is {@code address} (4 bytes for IPv4, 16 for IPv6), compared
     * without allocating.
     */
    public boolean sourceEquals(byte[] address) {
        int n = ipv6 ? 16 : 4;
        if (address.length != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (source[i] != address[i]) {
                return false;
            }
        }
        return true;
    }

    /** A copy of the source address bytes (4 or 16). */
    public InetAddress source() {
        return address(source);
    }

    /** A copy of the destination address bytes (4 or 16). */
    public InetAddress destination() {
        return address(destination);
    }

    /** Copies another pseudo header's fields into this one. */
    public PseudoHeader set(PseudoHeader other) {
        this.ipv6 = other.ipv6;
        System.arraycopy(other.source, 0, source, 0, 16);
        System.arraycopy(other.destination, 0, destination, 0, 16);
        this.sourcePort = other.sourcePort;
        this.destinationPort = other.destinationPort;
        this.ipv4Identification = other.ipv4Identification;
        this.dontFragment = other.dontFragment;
        lastSource = other.lastSource;
        lastDestination = other.lastDestination;
        version++;
        return this;
    }

    /**
     * Writes the IP and UDP headers, unmasked, for a UDP payload of {@code udpPayloadLength}
     * bytes into {@code out} at {@code off}; returns the number of bytes written (28 or 48).
     * Checksums are left 0; the writer of a capture may fill them in.
     */
    public int write(byte[] out, int off, int udpPayloadLength) {
        int udpLength = 8 + udpPayloadLength;
        int p = off;
        if (ipv6) {
            out[p] = 0x60;
            out[p + 1] = 0;
            out[p + 2] = 0;
            out[p + 3] = 0;
            out[p + 4] = (byte) (udpLength >>> 8);
            out[p + 5] = (byte) udpLength;
            out[p + 6] = 17;
            out[p + 7] = 64;
            System.arraycopy(source, 0, out, p + 8, 16);
            System.arraycopy(destination, 0, out, p + 24, 16);
            p += 40;
        } else {
            int total = 20 + udpLength;
            out[p] = 0x45;
            out[p + 1] = 0;
            out[p + 2] = (byte) (total >>> 8);
            out[p + 3] = (byte) total;
            out[p + 4] = (byte) (ipv4Identification >>> 8);
            out[p + 5] = (byte) ipv4Identification;
            out[p + 6] = (byte) (dontFragment ? 0x40 : 0);
            out[p + 7] = 0;
            out[p + 8] = 64;
            out[p + 9] = 17;
            out[p + 10] = 0;
            out[p + 11] = 0;
            System.arraycopy(source, 0, out, p + 12, 4);
            System.arraycopy(destination, 0, out, p + 16, 4);
            p += 20;
        }
        out[p] = (byte) (sourcePort >>> 8);
        out[p + 1] = (byte) sourcePort;
        out[p + 2] = (byte) (destinationPort >>> 8);
        out[p + 3] = (byte) destinationPort;
        out[p + 4] = (byte) (udpLength >>> 8);
        out[p + 5] = (byte) udpLength;
        out[p + 6] = 0;
        out[p + 7] = 0;
        return p + 8 - off;
    }

    /**
     * The header checksum of the 20-byte IPv4 header at {@code out[off..]}, whose checksum field
     * reads 0 (as {@link #write} leaves it); store it at {@code off + 10}.
     */
    public static int ipv4Checksum(byte[] out, int off) {
        int sum = 0;
        for (int i = off; i < off + 20; i += 2) {
            sum += ((out[i] & 0xFF) << 8) | (out[i + 1] & 0xFF);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }

    private InetAddress address(byte[] bytes) {
        byte[] copy = new byte[ipv6 ? 16 : 4];
        System.arraycopy(bytes, 0, copy, 0, copy.length);
        try {
            return InetAddress.getByAddress(copy);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("address of length " + copy.length + " refused", e);
        }
    }

    private static void putInt(byte[] b, int v) {
        b[0] = (byte) (v >>> 24);
        b[1] = (byte) (v >>> 16);
        b[2] = (byte) (v >>> 8);
        b[3] = (byte) v;
    }

    @Override
    public String toString() {
        return source().getHostAddress() + ":" + sourcePort + " -> " + destination().getHostAddress() + ":" + destinationPort
                + (ipv6 ? "" : " id=" + ipv4Identification + (dontFragment ? " DF" : ""));
    }

    static boolean isIpv4(InetAddress a) {
        return a instanceof Inet4Address;
    }
}
