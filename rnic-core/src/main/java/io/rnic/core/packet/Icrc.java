package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;
import java.util.zip.CRC32;

/**
 * The RoCEv2 Invariant CRC (reference §4.4): CRC-32 over eight 0xFF bytes, the IP and UDP
 * headers with their variant fields set to ones, the BTH with byte 4 set to ones, and the rest
 * of the packet up to the ICRC; stored least-significant byte first.
 *
 * <p>Uses {@link CRC32}, which the JVM intrinsifies. Not thread-safe: one instance per thread
 * (it keeps a scratch area for the masked headers so that no packet allocates).
 */
public final class Icrc {
    /** Length of the ICRC trailer. */
    public static final int LENGTH = 4;

    private static final int LRH_PLACEHOLDER = 8;
    /** The longest IP header: IPv4 with 40 bytes of options. */
    private static final int MAX_IP_HEADER = 60;
    private final CRC32 crc = new CRC32();
    /**
     * Pseudo-LRH + IP header (up to 60 bytes with options) + UDP + BTH, then a direct buffer's
     * rest of the packet copied behind them; grows to the largest packet seen.
     */
    private byte[] head = new byte[LRH_PLACEHOLDER + MAX_IP_HEADER + 8 + BthFlyweight.LENGTH + 4096 + 64];

    public Icrc() {
        for (int i = 0; i < LRH_PLACEHOLDER; i++) {
            head[i] = (byte) 0xFF;
        }
    }

    /**
     * ICRC of the RoCEv2 packet {@code buf[bthOffset, bthOffset + udpPayloadLength)} (BTH through
     * ICRC) as sent between the addresses of {@code pseudo}.
     */
    public int compute(PseudoHeader pseudo, ByteBuf buf, int bthOffset, int udpPayloadLength) {
        int ipLen = pseudo.write(head, LRH_PLACEHOLDER, udpPayloadLength) - 8;
        return finish(ipLen, pseudo.isIpv6(), buf, bthOffset, udpPayloadLength);
    }

    /**
     * ICRC of a captured packet, over its IP and UDP headers as captured. {@code ipOffset} is the
     * first byte of the IP header, {@code ipHeaderLength} its length including options, and the
     * UDP header follows it directly.
     */
    public int computeCaptured(ByteBuf frame, int ipOffset, int ipHeaderLength, int udpPayloadLength) {
        if (ipHeaderLength > MAX_IP_HEADER) {
            throw new IllegalArgumentException("IP header of " + ipHeaderLength + " bytes is longer than IPv4 allows");
        }
        frame.getBytes(ipOffset, head, LRH_PLACEHOLDER, ipHeaderLength + 8);
        boolean v6 = (head[LRH_PLACEHOLDER] & 0xF0) == 0x60;
        return finish(ipHeaderLength, v6, frame, ipOffset + ipHeaderLength + 8, udpPayloadLength);
    }

    /** Writes the ICRC into the last four bytes of the packet. */
    public void write(PseudoHeader pseudo, ByteBuf buf, int bthOffset, int udpPayloadLength) {
        int value = compute(pseudo, buf, bthOffset, udpPayloadLength);
        int at = bthOffset + udpPayloadLength - LENGTH;
        if (direct(buf) && at >= 0 && at <= buf.capacity() - LENGTH) {
            long a = buf.memoryAddress() + at;
            io.netty.util.internal.PlatformDependent.putInt(a, HeaderFlyweight.LITTLE_ENDIAN_HOST ? value : Integer.reverseBytes(value));
        } else {
            buf.setIntLE(at, value);
        }
    }

    /** True if the packet's trailing ICRC matches the one computed over {@code pseudo}. */
    public boolean verify(PseudoHeader pseudo, ByteBuf buf, int bthOffset, int udpPayloadLength) {
        return compute(pseudo, buf, bthOffset, udpPayloadLength) == stored(buf, bthOffset, udpPayloadLength);
    }

    /** The ICRC a packet carries. */
    public static int stored(ByteBuf buf, int bthOffset, int udpPayloadLength) {
        int at = bthOffset + udpPayloadLength - LENGTH;
        if (direct(buf) && at >= 0 && at <= buf.capacity() - LENGTH) {
            // One range check here instead of the buffer's bounds and reference-count checks.
            int v = io.netty.util.internal.PlatformDependent.getInt(buf.memoryAddress() + at);
            return HeaderFlyweight.LITTLE_ENDIAN_HOST ? v : Integer.reverseBytes(v);
        }
        return buf.getIntLE(at);
    }

    private static boolean direct(ByteBuf buf) {
        return HeaderFlyweight.UNSAFE && buf.hasMemoryAddress();
    }

    private int finish(int ipLen, boolean ipv6, ByteBuf buf, int bthOffset, int udpPayloadLength) {
        int ip = LRH_PLACEHOLDER;
        if (ipv6) {
            head[ip] |= 0x0F;                     // traffic class, high nibble
            head[ip + 1] = (byte) 0xFF;           // traffic class low nibble + flow label
            head[ip + 2] = (byte) 0xFF;
            head[ip + 3] = (byte) 0xFF;
            head[ip + 7] = (byte) 0xFF;           // hop limit
        } else {
            head[ip + 1] = (byte) 0xFF;           // TOS
            head[ip + 8] = (byte) 0xFF;           // TTL
            head[ip + 10] = (byte) 0xFF;          // header checksum
            head[ip + 11] = (byte) 0xFF;
        }
        int udp = ip + ipLen;
        head[udp + 6] = (byte) 0xFF;              // UDP checksum
        head[udp + 7] = (byte) 0xFF;
        int bth = udp + 8;
        copy(buf, bthOffset, head, bth, BthFlyweight.LENGTH);
        head[bth + BthFlyweight.ECN_OFFSET] = (byte) 0xFF;

        crc.reset();
        int headLength = bth + BthFlyweight.LENGTH;
        int rest = udpPayloadLength - BthFlyweight.LENGTH - LENGTH;
        if (rest > 0 && !buf.hasArray()) {
            // The rest behind the masked headers in one array: one pass of the CRC, not two (on a
            // small packet the CRC's per-call cost is as large as its per-byte cost).
            if (head.length < headLength + rest) {
                head = java.util.Arrays.copyOf(head, Math.max(headLength + rest, head.length * 2));
            }
            copy(buf, bthOffset + BthFlyweight.LENGTH, head, headLength, rest);
            crc.update(head, 0, headLength + rest);
        } else {
            crc.update(head, 0, headLength);
            if (rest > 0) {
                crc.update(buf.array(), buf.arrayOffset() + bthOffset + BthFlyweight.LENGTH, rest);
            }
        }
        return (int) crc.getValue();
    }

    /**
     * {@code buf[index, index + length)} into {@code dst}: through the native address where there
     * is one, past the buffer's per-call reference-count and bounds checks (the decoder or the
     * encoder has checked the packet's bounds once).
     */
    private static void copy(ByteBuf buf, int index, byte[] dst, int at, int length) {
        if (buf.hasMemoryAddress() && io.netty.util.internal.PlatformDependent.hasUnsafe()) {
            io.netty.util.internal.PlatformDependent.copyMemory(buf.memoryAddress() + index, dst, at, length);
        } else {
            buf.getBytes(index, dst, at, length);
        }
    }
}
