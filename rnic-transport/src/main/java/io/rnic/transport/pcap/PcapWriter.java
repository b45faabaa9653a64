package io.rnic.transport.pcap;

import io.netty.buffer.ByteBuf;
import io.rnic.core.packet.PseudoHeader;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes RoCEv2 packets to a classic pcap file (nanosecond timestamps, Ethernet link type) with
 * Ethernet, IP and UDP headers that are exactly the pseudo header the ICRC was computed over:
 * IPv4 identification 0 with DF set (see {@code docs/icrc.md}). So the ICRC of every packet
 * validates strictly against the captured headers, in {@code rnic decode} and in wire-check.
 * The IPv4 header checksum and the IPv6 UDP checksum are filled in; the IPv4 UDP checksum is 0,
 * as rxe sends it. Thread-safe.
 */
public final class PcapWriter implements AutoCloseable {
    private static final int MAGIC_NANOS = 0xA1B23C4D;
    private static final int LINKTYPE_ETHERNET = 1;
    private static final int SNAPLEN = 262_144;

    private final OutputStream out;
    private final PseudoHeader pseudo = new PseudoHeader();
    private final byte[] frame = new byte[14 + 48];
    private final byte[] record = new byte[16];
    private long packets;
    private boolean closed;

    /** Creates (or truncates) {@code path} and writes the file header. */
    public PcapWriter(Path path) throws IOException {
        this(Files.newOutputStream(path));
    }

    /** Writes to {@code stream}, starting with the file header. */
    public PcapWriter(OutputStream stream) throws IOException {
        this.out = new BufferedOutputStream(stream, 1 << 16);
        byte[] h = new byte[24];
        le32(h, 0, MAGIC_NANOS);
        le16(h, 4, 2);
        le16(h, 6, 4);
        le32(h, 16, SNAPLEN);
        le32(h, 20, LINKTYPE_ETHERNET);
        out.write(h);
    }

    /**
     * Writes one packet (the readable bytes of {@code packet}: BTH through ICRC) as sent from
     * {@code source} to {@code destination} at {@code timestampNanos} since the epoch.
     */
    public synchronized void write(long timestampNanos, ByteBuf packet, InetSocketAddress source, InetSocketAddress destination) {
        write(timestampNanos, packet, source, destination, 0);
    }

    /**
     * As {@link #write(long, ByteBuf, InetSocketAddress, InetSocketAddress)}, with the IP header's
     * TOS byte (IPv6 traffic class) set to {@code tos}: the DSCP and ECN bits the packet travelled
     * with, a switch's CE mark included. A negative {@code tos} (unknown) is written as 0.
     */
    public synchronized void write(long timestampNanos, ByteBuf packet, InetSocketAddress source, InetSocketAddress destination,
            int tos) {
        if (closed) {
            return;
        }
        int len = packet.readableBytes();
        pseudo.addresses(source.getAddress(), destination.getAddress()).ports(source.getPort(), destination.getPort());
        int ip = 14;
        int ipUdp = pseudo.write(frame, ip, len);
        boolean v6 = pseudo.isIpv6();
        if (tos > 0) {
            if (v6) { // version 6, traffic class, flow label: the class spans the first two bytes
                frame[ip] = (byte) (0x60 | (tos >>> 4));
                frame[ip + 1] = (byte) ((tos & 0x0F) << 4 | (frame[ip + 1] & 0x0F));
            } else {
                frame[ip + 1] = (byte) tos;
            }
        }
        mac(frame, 0, destination);
        mac(frame, 6, source);
        frame[12] = (byte) (v6 ? 0x86 : 0x08);
        frame[13] = (byte) (v6 ? 0xDD : 0x00);
        if (v6) {
            int udpSum = udpChecksumV6(frame, ip, packet, len);
            frame[ip + 40 + 6] = (byte) (udpSum >>> 8);
            frame[ip + 40 + 7] = (byte) udpSum;
        } else {
            int sum = PseudoHeader.ipv4Checksum(frame, ip);
            frame[ip + 10] = (byte) (sum >>> 8);
            frame[ip + 11] = (byte) sum;
        }
        int total = 14 + ipUdp + len;
        long ts = Math.max(0, timestampNanos);
        le32(record, 0, (int) (ts / 1_000_000_000L));
        le32(record, 4, (int) (ts % 1_000_000_000L));
        le32(record, 8, total);
        le32(record, 12, total);
        try {
            out.write(record);
            out.write(frame, 0, 14 + ipUdp);
            packet.getBytes(packet.readerIndex(), out, len);
            packets++;
        } catch (IOException e) {
            throw new io.rnic.verbs.WireException("cannot write pcap record", e);
        }
    }

    /**
     * Writes one whole Ethernet frame as it is (destination MAC first, no FCS): a frame that is not
     * an IP packet, such as an 802.1Qbb PFC PAUSE frame.
     */
    public synchronized void writeFrame(long timestampNanos, byte[] ethernetFrame, int offset, int length) {
        if (closed) {
            return;
        }
        long ts = Math.max(0, timestampNanos);
        le32(record, 0, (int) (ts / 1_000_000_000L));
        le32(record, 4, (int) (ts % 1_000_000_000L));
        le32(record, 8, length);
        le32(record, 12, length);
        try {
            out.write(record);
            out.write(ethernetFrame, offset, length);
            packets++;
        } catch (IOException e) {
            throw new io.rnic.verbs.WireException("cannot write pcap record", e);
        }
    }

    /**
     * The MAC address this writer gives a host in the frames it writes: 02:00 followed by the last
     * four bytes of its IP address (locally administered), as a 48-bit number.
     */
    public static long macOf(InetSocketAddress a) {
        byte[] ip = a.getAddress().getAddress();
        long mac = 0x0200_0000_0000L;
        for (int i = ip.length - 4; i < ip.length; i++) {
            mac |= (long) (ip[i] & 0xFF) << 8 * (ip.length - 1 - i);
        }
        return mac;
    }

    /** Packets written so far. */
    public synchronized long packets() {
        return packets;
    }

    /** Flushes buffered records to the file. */
    public synchronized void flush() throws IOException {
        if (!closed) {
            out.flush();
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (!closed) {
            closed = true;
            out.close();
        }
    }

    /** A locally administered MAC address derived from the IP address: 02:00 + its last four bytes. */
    private static void mac(byte[] b, int off, InetSocketAddress a) {
        byte[] ip = a.getAddress().getAddress();
        b[off] = 0x02;
        b[off + 1] = 0x00;
        System.arraycopy(ip, ip.length - 4, b, off + 2, 4);
    }

    private static int udpChecksumV6(byte[] f, int ip, ByteBuf packet, int len) {
        long sum = 0;
        for (int i = 8; i < 40; i += 2) {      // source and destination addresses
            sum += ((f[ip + i] & 0xFF) << 8) | (f[ip + i + 1] & 0xFF);
        }
        int udpLen = 8 + len;
        sum += udpLen + 17;
        int udp = ip + 40;
        for (int i = 0; i < 8; i += 2) {
            sum += ((f[udp + i] & 0xFF) << 8) | (f[udp + i + 1] & 0xFF);
        }
        int r = packet.readerIndex();
        for (int i = 0; i + 1 < len; i += 2) {
            sum += packet.getUnsignedShort(r + i);
        }
        if ((len & 1) != 0) {
            sum += (packet.getUnsignedByte(r + len - 1)) << 8;
        }
        int c = fold(sum);
        return c == 0 ? 0xFFFF : c;
    }

    private static int fold(long sum) {
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) (~sum & 0xFFFF);
    }

    private static void le16(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
    }

    private static void le32(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
        b[off + 2] = (byte) (v >>> 16);
        b[off + 3] = (byte) (v >>> 24);
    }
}
