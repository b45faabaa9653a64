package io.rnic.transport.pcap;

/**
 * The pcap link-layer header types ({@code LINKTYPE_*} values of tcpdump.org) that
 * {@link FrameParser} understands. Captures of RoCEv2 come from Ethernet ports, from
 * {@code tcpdump -i any} (Linux cooked headers), from loopback, and from tools that write bare IP
 * packets; anything else is reported as "not IP" rather than guessed at.
 */
public final class LinkType {
    /** BSD loopback: a 4-byte address family in the writer's byte order, then the IP packet. */
    public static final int NULL = 0;
    /** Ethernet II, possibly with 802.1Q / 802.1ad VLAN tags. */
    public static final int ETHERNET = 1;
    /** Raw IP as some BSDs number {@code DLT_RAW} in files. */
    public static final int RAW_BSD_12 = 12;
    /** Raw IP as OpenBSD numbers {@code DLT_RAW} in files. */
    public static final int RAW_BSD_14 = 14;
    /** Raw IP, version taken from the first nibble. */
    public static final int RAW = 101;
    /** OpenBSD loopback: like {@link #NULL} but the family is big-endian. */
    public static final int LOOP = 108;
    /** Linux cooked capture v1 ({@code tcpdump -i any} before libpcap 1.10). */
    public static final int LINUX_SLL = 113;
    /** Raw IPv4 only. */
    public static final int IPV4 = 228;
    /** Raw IPv6 only. */
    public static final int IPV6 = 229;
    /** Linux cooked capture v2 ({@code tcpdump -i any} since libpcap 1.10). */
    public static final int LINUX_SLL2 = 276;
    /** Used for frames whose pcapng interface is not described by any IDB. */
    public static final int UNKNOWN = -1;

    private LinkType() {
    }

    /** A short name for messages, for example {@code ETHERNET} or {@code LINKTYPE_147}. */
    public static String name(int linkType) {
        switch (linkType) {
            case NULL: return "NULL";
            case ETHERNET: return "ETHERNET";
            case RAW_BSD_12:
            case RAW_BSD_14:
            case RAW: return "RAW";
            case LOOP: return "LOOP";
            case LINUX_SLL: return "LINUX_SLL";
            case IPV4: return "IPV4";
            case IPV6: return "IPV6";
            case LINUX_SLL2: return "LINUX_SLL2";
            case UNKNOWN: return "UNKNOWN";
            default: return "LINKTYPE_" + linkType;
        }
    }
}
