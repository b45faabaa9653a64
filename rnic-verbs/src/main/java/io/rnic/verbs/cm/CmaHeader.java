package io.rnic.verbs.cm;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * The 36-byte header rdma_cm puts before the application's private data in a REQ and a SIDR_REQ
 * (the Linux kernel's {@code struct cma_hdr}; reference §11.6): version 0, the IP version in the
 * high nibble of the second byte, the source port, then the source and destination addresses
 * as 16 bytes each (IPv4 in the last four). It is how the passive side learns the active side's
 * IP addresses and port, since a CM MAD has no room for them otherwise.
 */
final class CmaHeader {
    static final int SIZE = 36;

    private CmaHeader() {
    }

    /** The private data of a request: the header, then {@code user} (up to {@code room - 36} bytes). */
    static byte[] wrap(InetSocketAddress source, InetSocketAddress destination, byte[] user, int room) {
        int userLength = user == null ? 0 : user.length;
        if (userLength > room - SIZE) {
            throw new IllegalArgumentException("private data of " + userLength + " bytes exceeds the " + (room - SIZE)
                    + " an rdma_cm request carries after its " + SIZE + "-byte IP header");
        }
        byte[] out = new byte[SIZE + userLength];
        boolean v4 = source.getAddress() instanceof Inet4Address;
        out[1] = (byte) ((v4 ? 4 : 6) << 4);
        out[2] = (byte) (source.getPort() >>> 8);
        out[3] = (byte) source.getPort();
        put(out, 4, source.getAddress());
        put(out, 20, destination.getAddress());
        if (userLength > 0) {
            System.arraycopy(user, 0, out, SIZE, userLength);
        }
        return out;
    }

    private static void put(byte[] out, int off, InetAddress a) {
        byte[] b = a.getAddress();
        System.arraycopy(b, 0, out, off + 16 - b.length, b.length);
    }

    /** True if {@code pd} starts with a header of version 0 for IPv4 or IPv6. */
    static boolean valid(byte[] pd) {
        int ipVersion = (pd[1] & 0xFF) >>> 4;
        return pd.length >= SIZE && pd[0] == 0 && (ipVersion == 4 || ipVersion == 6);
    }

    static InetSocketAddress source(byte[] pd) {
        return new InetSocketAddress(address(pd, 4), (pd[2] & 0xFF) << 8 | pd[3] & 0xFF);
    }

    static InetAddress destination(byte[] pd) {
        return address(pd, 20);
    }

    /** The application's part of the private data, after the header. */
    static byte[] user(byte[] pd) {
        return java.util.Arrays.copyOfRange(pd, SIZE, pd.length);
    }

    private static InetAddress address(byte[] pd, int off) {
        boolean v4 = (pd[1] & 0xFF) >>> 4 == 4;
        try {
            return InetAddress.getByAddress(v4 ? java.util.Arrays.copyOfRange(pd, off + 12, off + 16)
                    : java.util.Arrays.copyOfRange(pd, off, off + 16));
        } catch (UnknownHostException e) {
            throw new IllegalStateException("4 or 16 bytes are always an address", e);
        }
    }
}
