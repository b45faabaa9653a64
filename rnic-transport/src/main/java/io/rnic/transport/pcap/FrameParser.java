package io.rnic.transport.pcap;

import java.util.Optional;

/**
 * Finds the UDP datagram in a captured frame: link-layer header (see {@link LinkType}), then
 * IPv4 (with options) or IPv6 (without extension headers), then UDP.
 *
 * <p>Total: any bytes, of any length, give either a datagram or {@link Optional#empty()}; it
 * never throws, because a capture tool must survive whatever a capture contains. Non-first IPv4
 * fragments are skipped since they carry no UDP header. Stateless and thread-safe.
 */
public final class FrameParser {
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86DD;
    private static final int ETHERTYPE_VLAN = 0x8100;
    private static final int ETHERTYPE_QINQ = 0x88A8;
    private static final int ETHERTYPE_QINQ_OLD = 0x9100;
    private static final int PROTO_UDP = 17;
    private static final int UDP_HEADER = 8;
    /** Pseudo-ethertype for link types that give no protocol: look at the IP version nibble. */
    private static final int BY_VERSION = -1;

    private FrameParser() {
    }

    /** The UDP datagram in a frame, if it carries one over IPv4 or IPv6. */
    public static Optional<UdpDatagram> parse(PcapFrame frame) {
        return parse(frame.linkType(), frame.data());
    }

    /** The UDP datagram in {@code frame}, captured with link type {@code linkType}. */
    public static Optional<UdpDatagram> parse(int linkType, byte[] frame) {
        if (frame == null) {
            return Optional.empty();
        }
        int ipOffset;
        int ethertype;
        switch (linkType) {
            case LinkType.ETHERNET: {
                if (frame.length < 14) {
                    return Optional.empty();
                }
                int off = 12;
                ethertype = u16(frame, off);
                off += 2;
                while (ethertype == ETHERTYPE_VLAN || ethertype == ETHERTYPE_QINQ || ethertype == ETHERTYPE_QINQ_OLD) {
                    if (off + 4 > frame.length) {
                        return Optional.empty();
                    }
                    ethertype = u16(frame, off + 2);   // skip the 2-byte TCI
                    off += 4;
                }
                ipOffset = off;
                break;
            }
            case LinkType.LINUX_SLL:
                if (frame.length < 16) {
                    return Optional.empty();
                }
                ethertype = u16(frame, 14);
                ipOffset = 16;
                break;
            case LinkType.LINUX_SLL2:
                if (frame.length < 20) {
                    return Optional.empty();
                }
                ethertype = u16(frame, 0);
                ipOffset = 20;
                break;
            case LinkType.NULL:
            case LinkType.LOOP:
                // The address family's values differ between BSDs; the IP version nibble does not.
                ethertype = BY_VERSION;
                ipOffset = 4;
                break;
            case LinkType.RAW:
            case LinkType.RAW_BSD_12:
            case LinkType.RAW_BSD_14:
            case LinkType.IPV4:
            case LinkType.IPV6:
                ethertype = BY_VERSION;
                ipOffset = 0;
                break;
            default:
                return Optional.empty();
        }
        if (ipOffset >= frame.length) {
            return Optional.empty();
        }
        int version = (frame[ipOffset] >>> 4) & 0xF;
        if (ethertype == ETHERTYPE_IPV4 || (ethertype == BY_VERSION && version == 4)) {
            return ipv4(frame, ipOffset);
        }
        if (ethertype == ETHERTYPE_IPV6 || (ethertype == BY_VERSION && version == 6)) {
            return ipv6(frame, ipOffset);
        }
        return Optional.empty();
    }

    private static Optional<UdpDatagram> ipv4(byte[] f, int ip) {
        if (ip + 20 > f.length || (f[ip] & 0xF0) != 0x40) {
            return Optional.empty();
        }
        int headerLength = (f[ip] & 0x0F) * 4;
        if (headerLength < 20 || ip + headerLength > f.length) {
            return Optional.empty();
        }
        if ((f[ip + 9] & 0xFF) != PROTO_UDP) {
            return Optional.empty();
        }
        if ((u16(f, ip + 6) & 0x1FFF) != 0) {
            return Optional.empty();   // a later fragment: no UDP header in it
        }
        return udp(f, 4, ipv4Text(f, ip + 12), ipv4Text(f, ip + 16), ip, headerLength);
    }

    private static Optional<UdpDatagram> ipv6(byte[] f, int ip) {
        if (ip + 40 > f.length || (f[ip] & 0xF0) != 0x60) {
            return Optional.empty();
        }
        if ((f[ip + 6] & 0xFF) != PROTO_UDP) {
            return Optional.empty();
        }
        return udp(f, 6, ipv6Text(f, ip + 8), ipv6Text(f, ip + 24), ip, 40);
    }

    private static Optional<UdpDatagram> udp(byte[] f, int version, String src, String dst, int ip, int ipHeaderLength) {
        int udp = ip + ipHeaderLength;
        if (udp + UDP_HEADER > f.length) {
            return Optional.empty();
        }
        int udpLength = u16(f, udp + 4);
        if (udpLength < UDP_HEADER) {
            return Optional.empty();   // corrupt, or an IPv6 jumbogram, which RoCEv2 never uses
        }
        int payload = udp + UDP_HEADER;
        int declared = udpLength - UDP_HEADER;
        int captured = Math.min(declared, f.length - payload);
        return Optional.of(new UdpDatagram(version, src, dst, u16(f, udp), u16(f, udp + 2),
                ip, ipHeaderLength, payload, captured, declared));
    }

    private static int u16(byte[] b, int off) {
        return ((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF);
    }

    /** Dotted-quad text of the four bytes at {@code off}. */
    static String ipv4Text(byte[] b, int off) {
        return (b[off] & 0xFF) + "." + (b[off + 1] & 0xFF) + "." + (b[off + 2] & 0xFF) + "." + (b[off + 3] & 0xFF);
    }

    /**
     * RFC 5952 text of the 16 bytes at {@code off}: lower-case hex, the longest run of two or
     * more zero groups shortened to {@code ::}, and IPv4-mapped addresses (what RoCEv2 GIDs of
     * IPv4 ports look like) in mixed notation. {@code InetAddress} would print every group.
     */
    static String ipv6Text(byte[] b, int off) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = u16(b, off + 2 * i);
        }
        if (g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 && g[5] == 0xFFFF) {
            return "::ffff:" + ipv4Text(b, off + 12);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder s = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                s.append("::");
                i += bestLength - 1;
                continue;
            }
            if (s.length() > 0 && s.charAt(s.length() - 1) != ':') {
                s.append(':');
            }
            s.append(Integer.toHexString(g[i]));
        }
        return s.toString();
    }
}
