package io.rnic.transport.fabric;

import io.netty.buffer.ByteBuf;

/**
 * IEEE 802.1Qbb priority-based flow control (PFC) frames, as they appear in an Ethernet
 * capture (without the FCS):
 * <pre>
 *  0  destination  01-80-C2-00-00-01 (the MAC Control multicast address)
 *  6  source       the sending port's MAC ({@link #portMac})
 * 12  Ethertype    0x8808 (MAC Control)
 * 14  opcode       0x0101 (PFC; Wireshark: "Class Based Flow Control [CBFC] Pause")
 * 16  class-enable vector, 2 octets: the upper octet 0, bit n of the lower = "priority n's time is valid"
 * 18  eight 2-octet pause times, priority 0 first, in quanta of 512 bit times
 * 34  zero padding to the 60-byte minimum frame
 * </pre>
 * A pause time of 0 for an enabled priority is XON (resume now). Sources: the Altera 10-Gbps
 * Ethernet MAC user guide (App. A.4, "Priority-Based Flow Control Frame") and AMD/Xilinx PG051
 * for the layout; Wireshark's {@code packet-maccontrol.c} for the fields tshark shows
 * ({@code macc.opcode}, {@code macc.cbfc.enbv}, {@code macc.cbfc.pause_time.c0..c7}).
 *
 * <p>HPCC's ns-3 simulator does not send these: its PAUSE is a 9-byte header in an IPv4 packet
 * (protocol 0xFE) with one class per frame, and its pause time is ignored (a pause lasts until
 * RESUME). rnic sends the real frame, whose quanta expire, so a lost RESUME cannot stall a
 * port for ever.
 *
 * <p>Encoding and decoding allocate nothing.
 */
public final class PfcFrame {
    /** Bytes of a PFC frame without the FCS: the 64-byte minimum Ethernet frame less its 4-byte FCS. */
    public static final int LENGTH = 60;
    /** The MAC Control Ethertype. */
    public static final int ETHERTYPE = 0x8808;
    /** The PFC opcode (802.3x PAUSE is 0x0001). */
    public static final int OPCODE = 0x0101;
    /** The destination of every PFC frame, 01-80-C2-00-00-01, as a 48-bit number. */
    public static final long DESTINATION = 0x0180_C200_0001L;
    /** Bit times in one pause quantum. */
    public static final int QUANTUM_BITS = 512;
    /** The largest pause time a frame can carry, in quanta. */
    public static final int MAX_QUANTA = 0xFFFF;

    /** {@link #decode} result: fewer than {@link #LENGTH} bytes. */
    public static final int TOO_SHORT = -1;
    /** {@link #decode} result: the Ethertype is not 0x8808. */
    public static final int NOT_MAC_CONTROL = -2;
    /** {@link #decode} result: a MAC Control frame whose opcode is not 0x0101. */
    public static final int NOT_PFC = -3;
    /** {@link #decode} result: the destination is not 01-80-C2-00-00-01. */
    public static final int BAD_DESTINATION = -4;

    private static final int PRIORITIES = 8;

    private PfcFrame() {
    }

    /**
     * The MAC of port {@code port} of node {@code nodeId}: {@code 02:00:00:NH:NL:PP}, where NH
     * and NL are the node id's high and low octets and PP the port. The first octet, 0x02, sets
     * the locally-administered bit and clears the group bit, so these never collide with a
     * vendor's address and are unicast. Returned as a 48-bit number, first octet most significant.
     *
     * @throws IllegalArgumentException if the node id is outside 0..65,535 or the port outside 0..255
     */
    public static long portMac(int nodeId, int port) {
        if (nodeId < 0 || nodeId > 0xFFFF || port < 0 || port > 0xFF) {
            throw new IllegalArgumentException("port MACs number nodes 0..65535 and ports 0..255, not node " + nodeId + " port " + port);
        }
        return 0x0200_0000_0000L | (long) nodeId << 8 | port;
    }

    /** {@code mac} as {@code 02:00:00:00:05:03}. */
    public static String formatMac(long mac) {
        StringBuilder b = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8) {
            int o = (int) (mac >>> shift) & 0xFF;
            b.append(Character.forDigit(o >>> 4, 16)).append(Character.forDigit(o & 0xF, 16));
            if (shift > 0) {
                b.append(':');
            }
        }
        return b.toString();
    }

    /**
     * Writes a PFC frame of {@link #LENGTH} bytes into {@code dst} at {@code offset}.
     *
     * @param sourceMac  the sending port's MAC, 48 bits ({@link #portMac})
     * @param enableMask bit n set: priority n's pause time is valid (0..0xFF)
     * @param quanta     eight pause times in quanta (0..0xFFFF), priority 0 first; a disabled
     *                   priority's time is written as given (802.1Qbb leaves it meaningless)
     */
    public static void encode(byte[] dst, int offset, long sourceMac, int enableMask, int[] quanta) {
        check(sourceMac, enableMask, quanta);
        if (offset < 0 || offset > dst.length - LENGTH) {
            throw new IndexOutOfBoundsException("a PFC frame needs " + LENGTH + " bytes at " + offset + " of " + dst.length);
        }
        put48(dst, offset, DESTINATION);
        put48(dst, offset + 6, sourceMac);
        put16(dst, offset + 12, ETHERTYPE);
        put16(dst, offset + 14, OPCODE);
        put16(dst, offset + 16, enableMask);
        for (int q = 0; q < PRIORITIES; q++) {
            put16(dst, offset + 18 + 2 * q, quanta[q]);
        }
        for (int i = offset + 34; i < offset + LENGTH; i++) {
            dst[i] = 0;
        }
    }

    /** Appends a PFC frame of {@link #LENGTH} bytes to {@code dst} (see {@link #encode(byte[], int, long, int, int[])}). */
    public static void encode(ByteBuf dst, long sourceMac, int enableMask, int[] quanta) {
        check(sourceMac, enableMask, quanta);
        dst.ensureWritable(LENGTH);
        dst.writeShort((int) (DESTINATION >>> 32)).writeInt((int) DESTINATION);
        dst.writeShort((int) (sourceMac >>> 32)).writeInt((int) sourceMac);
        dst.writeShort(ETHERTYPE).writeShort(OPCODE).writeShort(enableMask);
        for (int q = 0; q < PRIORITIES; q++) {
            dst.writeShort(quanta[q]);
        }
        dst.writeZero(LENGTH - 34);
    }

    private static void check(long sourceMac, int enableMask, int[] quanta) {
        if ((sourceMac & ~0xFFFF_FFFF_FFFFL) != 0) {
            throw new IllegalArgumentException("source MAC 0x" + Long.toHexString(sourceMac) + " is more than 48 bits");
        }
        if ((sourceMac >>> 40 & 1) != 0) {
            throw new IllegalArgumentException("source MAC " + formatMac(sourceMac) + " is a group address; a port sends from a unicast MAC");
        }
        if ((enableMask & ~0xFF) != 0) {
            throw new IllegalArgumentException("class-enable vector 0x" + Integer.toHexString(enableMask) + " names priorities above 7 (its upper octet must be 0)");
        }
        if (quanta.length != PRIORITIES) {
            throw new IllegalArgumentException("a PFC frame carries 8 pause times, not " + quanta.length);
        }
        for (int q = 0; q < PRIORITIES; q++) {
            if ((quanta[q] & ~0xFFFF) != 0) {
                throw new IllegalArgumentException("pause time " + quanta[q] + " of priority " + q + " is not 0..65535 quanta");
            }
        }
    }

    /**
     * Reads a PFC frame of {@code length} bytes at {@code offset}: on success returns the
     * class-enable vector (0..0xFF) and fills {@code quantaOut} with the eight pause times; else
     * returns {@link #TOO_SHORT}, {@link #NOT_MAC_CONTROL}, {@link #NOT_PFC} or
     * {@link #BAD_DESTINATION} and leaves {@code quantaOut} alone. The reserved upper octet of
     * the vector and the padding are ignored, as reserved fields are on receipt.
     */
    public static int decode(byte[] src, int offset, int length, int[] quantaOut) {
        if (quantaOut.length != PRIORITIES) {
            throw new IllegalArgumentException("quantaOut must hold 8 pause times, not " + quantaOut.length);
        }
        if (offset < 0 || length < 0 || offset > src.length - length) {
            throw new IndexOutOfBoundsException("bytes " + offset + ".." + (offset + length) + " of " + src.length);
        }
        if (length < LENGTH) {
            return TOO_SHORT;
        }
        if (get16(src, offset + 12) != ETHERTYPE) {
            return NOT_MAC_CONTROL;
        }
        if (get16(src, offset + 14) != OPCODE) {
            return NOT_PFC;
        }
        if (get48(src, offset) != DESTINATION) {
            return BAD_DESTINATION;
        }
        for (int q = 0; q < PRIORITIES; q++) {
            quantaOut[q] = get16(src, offset + 18 + 2 * q);
        }
        return src[offset + 17] & 0xFF;
    }

    /** {@link #decode(byte[], int, int, int[])} of the readable bytes of {@code frame}, which it leaves unread. */
    public static int decode(ByteBuf frame, int[] quantaOut) {
        if (quantaOut.length != PRIORITIES) {
            throw new IllegalArgumentException("quantaOut must hold 8 pause times, not " + quantaOut.length);
        }
        int at = frame.readerIndex();
        if (frame.readableBytes() < LENGTH) {
            return TOO_SHORT;
        }
        if (frame.getUnsignedShort(at + 12) != ETHERTYPE) {
            return NOT_MAC_CONTROL;
        }
        if (frame.getUnsignedShort(at + 14) != OPCODE) {
            return NOT_PFC;
        }
        long dst = (long) frame.getUnsignedShort(at) << 32 | frame.getUnsignedInt(at + 2);
        if (dst != DESTINATION) {
            return BAD_DESTINATION;
        }
        for (int q = 0; q < PRIORITIES; q++) {
            quantaOut[q] = frame.getUnsignedShort(at + 18 + 2 * q);
        }
        return frame.getUnsignedByte(at + 17);
    }

    /** The source MAC of a frame (48 bits), without validating it. */
    public static long sourceMac(byte[] src, int offset) {
        return get48(src, offset + 6);
    }

    /** What a negative {@link #decode} result means, for a log line or a counter's name. */
    public static String describe(int decodeResult) {
        switch (decodeResult) {
            case TOO_SHORT: return "shorter than the 60-byte minimum frame";
            case NOT_MAC_CONTROL: return "not a MAC Control frame (Ethertype is not 0x8808)";
            case NOT_PFC: return "a MAC Control frame that is not PFC (opcode is not 0x0101)";
            case BAD_DESTINATION: return "destination is not 01-80-C2-00-00-01";
            default: return decodeResult >= 0 ? "a PFC frame, class-enable vector 0x" + Integer.toHexString(decodeResult) : "unknown result " + decodeResult;
        }
    }

    /**
     * How long {@code quanta} pause quanta last on a link of {@code bitsPerSecond}, in
     * nanoseconds rounded up (a pause lasts at least what was asked): quanta × 512 bits / rate.
     * 65,535 quanta are 3.355 ms at 10 Gb/s and 335.5 µs at 100 Gb/s.
     */
    public static long quantaToNanos(int quanta, long bitsPerSecond) {
        if ((quanta & ~0xFFFF) != 0 || bitsPerSecond <= 0) {
            throw new IllegalArgumentException("quanta " + quanta + " must be 0..65535 and rate " + bitsPerSecond + " b/s positive");
        }
        long bitNanos = quanta * (long) QUANTUM_BITS * 1_000_000_000L; // ≤ 3.4e16: no overflow
        return bitNanos / bitsPerSecond + (bitNanos % bitsPerSecond == 0 ? 0 : 1);
    }

    /**
     * The fewest quanta that pause a link of {@code bitsPerSecond} for at least {@code nanos},
     * capped at {@link #MAX_QUANTA}.
     */
    public static int nanosToQuanta(long nanos, long bitsPerSecond) {
        if (nanos < 0 || bitsPerSecond <= 0) {
            throw new IllegalArgumentException("time " + nanos + " ns must not be negative and rate " + bitsPerSecond + " b/s must be positive");
        }
        if (nanos >= quantaToNanos(MAX_QUANTA, bitsPerSecond)) {
            return MAX_QUANTA;
        }
        // nanos < 65535 quanta, so nanos × rate < 3.4e16: no overflow.
        long bits = nanos * bitsPerSecond;
        long quantumBitNanos = QUANTUM_BITS * 1_000_000_000L;
        return (int) (bits / quantumBitNanos + (bits % quantumBitNanos == 0 ? 0 : 1));
    }

    private static void put16(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
    }

    private static void put48(byte[] b, int at, long v) {
        for (int i = 0; i < 6; i++) {
            b[at + i] = (byte) (v >>> (40 - 8 * i));
        }
    }

    private static int get16(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | (b[at + 1] & 0xFF);
    }

    private static long get48(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 6; i++) {
            v = v << 8 | (b[at + i] & 0xFF);
        }
        return v;
    }
}
