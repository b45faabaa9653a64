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
    /** CRC-32's polynomial, reflected. */
    private static final int POLYNOMIAL = 0xEDB88320;
    /** Four bytes stand for the pseudo-LRH, IP and UDP headers (see {@link #forcePrefix}). */
    private static final int FORCED = 4;
    private final CRC32 crc = new CRC32();
    /** The pseudo-LRH and the masked IP and UDP headers, while their CRC is taken. */
    private final byte[] head = new byte[LRH_PLACEHOLDER + MAX_IP_HEADER + 8];
    /**
     * The bytes the CRC runs over: four that stand for the masked headers, the masked BTH, then
     * a direct buffer's rest of the packet; grows to the largest packet seen.
     */
    private byte[] body = new byte[FORCED + BthFlyweight.LENGTH + 4096 + 64];
    /** The pseudo header, its version and the UDP payload length that {@link #body}'s first four bytes stand for. */
    private PseudoHeader primedFor;
    private long primedVersion;
    private int primedLength = -1;

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
        // A flow's packets of one size share their masked IP and UDP headers: their CRC is taken
        // once, not for every packet (on a 64-byte packet they are a third of the bytes).
        if (pseudo != primedFor || pseudo.version() != primedVersion || udpPayloadLength != primedLength) {
            int ipLen = pseudo.write(head, LRH_PLACEHOLDER, udpPayloadLength) - 8;
            forcePrefix(ipLen, pseudo.isIpv6());
            primedFor = pseudo;
            primedVersion = pseudo.version();
            primedLength = udpPayloadLength;
        }
        return overBthAndRest(buf, bthOffset, udpPayloadLength);
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
        forcePrefix(ipHeaderLength, v6);
        primedFor = null;
        return overBthAndRest(frame, ipOffset + ipHeaderLength + 8, udpPayloadLength);
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

    /**
     * Masks the headers in {@link #head}, takes their CRC, and puts into {@link #body}'s first
     * four bytes the ones that bring CRC-32's register from its initial value to that same state:
     * a CRC over {@code body} then equals one over the headers and everything after them. Four
     * bytes can reach any state, because 32 steps of the register are an invertible linear map.
     */
    private void forcePrefix(int ipLen, boolean ipv6) {
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
        crc.reset();
        crc.update(head, 0, udp + 8);
        int state = ~(int) crc.getValue();        // the register, before CRC-32's final inversion
        // Run the register back 32 steps: each forward step shifts right and, when the bit shifted
        // out was 1, adds the polynomial, whose top bit then marks it.
        for (int i = 0; i < 32; i++) {
            state = state < 0 ? ((state ^ POLYNOMIAL) << 1) | 1 : state << 1;
        }
        int forced = ~state;                      // what the four bytes XOR into the initial register
        body[0] = (byte) forced;
        body[1] = (byte) (forced >>> 8);
        body[2] = (byte) (forced >>> 16);
        body[3] = (byte) (forced >>> 24);
    }

    /** The CRC of {@link #body}'s four forced bytes, then the packet's masked BTH and the rest up to the ICRC. */
    private int overBthAndRest(ByteBuf buf, int bthOffset, int udpPayloadLength) {
        int bth = FORCED;
        int headLength = bth + BthFlyweight.LENGTH;
        int rest = udpPayloadLength - BthFlyweight.LENGTH - LENGTH;
        crc.reset();
        if (rest > 0 && !buf.hasArray()) {
            // The BTH and the rest behind the forced bytes in one array and one copy: one pass of
            // the CRC, not two (on a small packet the CRC's per-call cost is as large as its
            // per-byte cost).
            if (body.length < headLength + rest) {
                body = java.util.Arrays.copyOf(body, Math.max(headLength + rest, body.length * 2));
            }
            copy(buf, bthOffset, body, bth, BthFlyweight.LENGTH + rest);
            body[bth + BthFlyweight.ECN_OFFSET] = (byte) 0xFF;
            crc.update(body, 0, headLength + rest);
        } else {
            copy(buf, bthOffset, body, bth, BthFlyweight.LENGTH);
            body[bth + BthFlyweight.ECN_OFFSET] = (byte) 0xFF;
            crc.update(body, 0, headLength);
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
        } else if (buf.isDirect() && buf.nioBufferCount() == 1) {
            // Without Unsafe (Java 24 and later by default) a direct buffer's getBytes into an
            // array copies through a duplicate of its NIO buffer, an object per call; the buffer's
            // own scratch view, read at an absolute index, is made once per buffer.
            java.nio.ByteBuffer view = buf.internalNioBuffer(index, length);
            view.get(view.position(), dst, at, length);
        } else {
            buf.getBytes(index, dst, at, length);
        }
    }
}
