package io.rnic.transport.pcap;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads classic pcap (either byte order, microsecond or nanosecond timestamps, and the
 * "modified" Kuznetzov variant) and pcapng (Section Header, Interface Description, Enhanced and
 * Simple Packet Blocks, plus the obsolete Packet Block; every other block is skipped), one
 * {@link PcapFrame} at a time.
 *
 * <p>Captures handed to a debugging tool are often cut short (a killed {@code tcpdump}) or
 * damaged, and the frames before the damage are exactly what the user wants to see. So only a
 * file that does not start like pcap or pcapng is an error ({@link PcapFormatException}); a
 * truncated or corrupt record later on ends the stream quietly, and {@link #problem()} says what
 * was wrong. Genuine I/O errors of the underlying stream still propagate.
 *
 * <p>Lengths read from the file are bounded before anything is allocated, so a corrupt length
 * field cannot make the reader allocate gigabytes. Not thread-safe.
 */
public final class PcapReader implements Closeable {
    /** The container format of the file. */
    public enum Format { PCAP, PCAPNG }

    /** Larger records or blocks than this are taken as corruption, not as data. */
    static final int MAX_RECORD = 64 << 20;

    private static final int PCAP_MICROS = 0xA1B2C3D4;
    private static final int PCAP_NANOS = 0xA1B23C4D;
    private static final int PCAP_MODIFIED = 0xA1B2CD34;
    private static final int PCAPNG_SHB = 0x0A0D0D0A;
    private static final int PCAPNG_BOM = 0x1A2B3C4D;
    private static final int BLOCK_IDB = 1;
    private static final int BLOCK_PB = 2;
    private static final int BLOCK_SPB = 3;
    private static final int BLOCK_EPB = 6;
    private static final int OPTION_END = 0;
    private static final int OPTION_IF_TSRESOL = 9;
    private static final int OPTION_IF_TSOFFSET = 14;
    private static final int DEFAULT_TSRESOL = 6;

    private static final long[] POW10 = {
        1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L,
        1_000_000_000L, 10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L,
        10_000_000_000_000L, 100_000_000_000_000L, 1_000_000_000_000_000L,
        10_000_000_000_000_000L, 100_000_000_000_000_000L, 1_000_000_000_000_000_000L,
    };

    /** What a pcapng IDB says about the frames of its interface. */
    private record Interface(int linkType, int tsresol, long tsoffsetSeconds) { }

    private final InputStream in;
    private final Format format;
    private ByteOrder order;
    private long position;
    private int lastNumber;
    private boolean finished;
    private String problem;

    // classic pcap
    private boolean nanosecond;
    private int recordHeaderLength;
    private int classicLinkType;

    // pcapng: interfaces of the current section, indexed by interface id
    private final List<Interface> interfaces = new ArrayList<>();

    /**
     * Reads the file header from {@code in}. The reader takes ownership of the stream and closes
     * it in {@link #close()}.
     *
     * @throws PcapFormatException if the stream does not start with a pcap or pcapng header
     * @throws IOException         if reading fails
     */
    public PcapReader(InputStream in) throws IOException {
        this.in = in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 1 << 16);
        byte[] magic = read(4);
        if (magic.length == 0) {
            throw new PcapFormatException("empty file, not a pcap or pcapng capture");
        }
        if (magic.length < 4) {
            throw new PcapFormatException("only " + magic.length + " bytes, not a pcap or pcapng capture");
        }
        int big = ByteBuffer.wrap(magic).order(ByteOrder.BIG_ENDIAN).getInt();
        int little = ByteBuffer.wrap(magic).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (big == PCAPNG_SHB) {
            format = Format.PCAPNG;
            openPcapng(magic);
        } else if (isPcapMagic(big) || isPcapMagic(little)) {
            format = Format.PCAP;
            order = isPcapMagic(big) ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
            int m = isPcapMagic(big) ? big : little;
            nanosecond = m == PCAP_NANOS;
            recordHeaderLength = m == PCAP_MODIFIED ? 24 : 16;
            openPcap();
        } else {
            throw new PcapFormatException(String.format(
                    "not a pcap or pcapng capture (starts with %02x %02x %02x %02x)",
                    magic[0], magic[1], magic[2], magic[3]));
        }
    }

    /** Opens a capture file. */
    public static PcapReader open(Path path) throws IOException {
        InputStream in = Files.newInputStream(path);
        try {
            return new PcapReader(in);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    /** Every frame of a capture file; see {@link #problem()} for why reading may stop early. */
    public static List<PcapFrame> readAll(Path path) throws IOException {
        try (PcapReader reader = open(path)) {
            return reader.readAll();
        }
    }

    /** The remaining frames. */
    public List<PcapFrame> readAll() throws IOException {
        List<PcapFrame> frames = new ArrayList<>();
        for (PcapFrame f = next(); f != null; f = next()) {
            frames.add(f);
        }
        return frames;
    }

    /** The next frame, or {@code null} at the end of the capture or at the first damage. */
    public PcapFrame next() throws IOException {
        if (finished) {
            return null;
        }
        return format == Format.PCAP ? nextRecord() : nextBlock();
    }

    /** Whether the file is classic pcap or pcapng, as its first bytes said. */
    public Format format() {
        return format;
    }

    /**
     * Why the stream ended before the end of the file, or {@code null} if it has not ended or
     * ended cleanly. Truncation and corruption both land here rather than in an exception.
     */
    public String problem() {
        return problem;
    }

    /** True if the capture ended in a truncated or corrupt record. */
    public boolean damaged() {
        return problem != null;
    }

    /**
     * The link type of a classic pcap file, or of the first interface of a pcapng file
     * ({@link LinkType#UNKNOWN} if none has been described yet).
     */
    public int linkType() {
        if (format == Format.PCAP) {
            return classicLinkType;
        }
        return interfaces.isEmpty() ? LinkType.UNKNOWN : interfaces.get(0).linkType();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    // ---------------------------------------------------------------- classic pcap

    private static boolean isPcapMagic(int m) {
        return m == PCAP_MICROS || m == PCAP_NANOS || m == PCAP_MODIFIED;
    }

    private void openPcap() throws IOException {
        byte[] rest = read(20);
        if (rest.length < 20) {
            end("file header truncated after " + position + " bytes");
            return;
        }
        // version (4), thiszone (4), sigfigs (4), snaplen (4), then the link type, whose upper
        // four bits may carry FCS information.
        classicLinkType = buf(rest).getInt(16) & 0x0FFFFFFF;
    }

    private PcapFrame nextRecord() throws IOException {
        long at = position;
        byte[] h = read(recordHeaderLength);
        if (h.length == 0) {
            return end(null);
        }
        if (h.length < recordHeaderLength) {
            return end("record header of frame " + (lastNumber + 1) + " truncated at byte " + position);
        }
        ByteBuffer b = buf(h);
        long seconds = Integer.toUnsignedLong(b.getInt(0));
        long fraction = Integer.toUnsignedLong(b.getInt(4));
        long captured = Integer.toUnsignedLong(b.getInt(8));
        long original = Integer.toUnsignedLong(b.getInt(12));
        if (captured > MAX_RECORD) {
            return end("corrupt record header of frame " + (lastNumber + 1) + " at byte " + at
                    + ": captured length " + captured);
        }
        byte[] data = read((int) captured);
        if (data.length < captured) {
            return end("frame " + (lastNumber + 1) + " truncated: " + data.length + " of " + captured + " bytes");
        }
        long nanos = seconds * 1_000_000_000L + fraction * (nanosecond ? 1 : 1000);
        return frame(nanos, classicLinkType, original, data);
    }

    // ---------------------------------------------------------------- pcapng

    /** A block with its body, that is without type, length fields and the SHB byte-order magic. */
    private record Block(int type, byte[] body) { }

    private void openPcapng(byte[] typeBytes) throws IOException {
        byte[] lengthAndBom = read(8);
        if (lengthAndBom.length < 8) {
            end("section header truncated after " + position + " bytes");
            return;
        }
        ByteOrder bom = byteOrderOf(lengthAndBom, 4);
        if (bom == null) {
            throw new PcapFormatException("starts like pcapng but has no byte-order magic, not a capture");
        }
        byte[] head = new byte[12];
        System.arraycopy(typeBytes, 0, head, 0, 4);
        System.arraycopy(lengthAndBom, 0, head, 4, 8);
        Block shb = finishBlock(head, bom, 0);
        if (shb != null) {
            startSection();
        }
    }

    private PcapFrame nextBlock() throws IOException {
        while (true) {
            Block block = readBlock();
            if (block == null) {
                return null;
            }
            byte[] body = block.body();
            ByteBuffer b = buf(body);
            switch (block.type()) {
                case PCAPNG_SHB:
                    startSection();
                    break;
                case BLOCK_IDB:
                    interfaces.add(describeInterface(body));
                    break;
                case BLOCK_EPB:
                    if (body.length >= 20) {
                        Interface itf = iface(b.getInt(0));
                        long units = (Integer.toUnsignedLong(b.getInt(4)) << 32) | Integer.toUnsignedLong(b.getInt(8));
                        return packet(itf, units, b.getInt(12), b.getInt(16), body, 20);
                    }
                    break;
                case BLOCK_SPB:
                    if (body.length >= 4) {
                        int original = b.getInt(0);
                        Interface itf = iface(0);
                        byte[] data = Arrays.copyOfRange(body, 4,
                                4 + (int) Math.min(Integer.toUnsignedLong(original), body.length - 4));
                        return frame(0, itf == null ? LinkType.UNKNOWN : itf.linkType(),
                                Integer.toUnsignedLong(original), data);
                    }
                    break;
                case BLOCK_PB:
                    if (body.length >= 20) {
                        Interface itf = iface(b.getShort(0) & 0xFFFF);
                        long units = (Integer.toUnsignedLong(b.getInt(4)) << 32) | Integer.toUnsignedLong(b.getInt(8));
                        return packet(itf, units, b.getInt(12), b.getInt(16), body, 20);
                    }
                    break;
                default:
                    break;   // name resolution, statistics, custom, decryption secrets...
            }
        }
    }

    private PcapFrame packet(Interface itf, long units, int captured, int original, byte[] body, int dataOffset) {
        long available = body.length - dataOffset;
        int length = (int) Math.min(Integer.toUnsignedLong(captured), available);
        byte[] data = Arrays.copyOfRange(body, dataOffset, dataOffset + length);
        if (itf == null) {
            return frame(0, LinkType.UNKNOWN, Integer.toUnsignedLong(original), data);
        }
        long nanos = toNanos(units, itf.tsresol()) + itf.tsoffsetSeconds() * 1_000_000_000L;
        return frame(nanos, itf.linkType(), Integer.toUnsignedLong(original), data);
    }

    private Interface iface(int id) {
        return id >= 0 && id < interfaces.size() ? interfaces.get(id) : null;
    }

    private void startSection() {
        interfaces.clear();
    }

    private Interface describeInterface(byte[] body) {
        if (body.length < 8) {
            return new Interface(LinkType.UNKNOWN, DEFAULT_TSRESOL, 0);
        }
        ByteBuffer b = buf(body);
        int linkType = b.getShort(0) & 0xFFFF;
        int tsresol = DEFAULT_TSRESOL;
        long tsoffset = 0;
        int p = 8;
        while (p + 4 <= body.length) {
            int code = b.getShort(p) & 0xFFFF;
            int length = b.getShort(p + 2) & 0xFFFF;
            p += 4;
            if (code == OPTION_END || p + length > body.length) {
                break;
            }
            if (code == OPTION_IF_TSRESOL && length >= 1) {
                tsresol = body[p] & 0xFF;
            } else if (code == OPTION_IF_TSOFFSET && length >= 8) {
                tsoffset = b.getLong(p);
            }
            p += (length + 3) & ~3;
        }
        return new Interface(linkType, tsresol, tsoffset);
    }

    /**
     * Converts a timestamp in interface units to nanoseconds. The resolution is a power of ten
     * (MSB clear) or of two (MSB set), as the pcapng {@code if_tsresol} option defines it.
     */
    static long toNanos(long units, int tsresol) {
        if ((tsresol & 0x80) == 0) {
            int exp = tsresol;
            if (exp <= 9) {
                return units * POW10[9 - exp];
            }
            return exp - 9 < POW10.length ? Long.divideUnsigned(units, POW10[exp - 9]) : 0;
        }
        int shift = tsresol & 0x7F;
        BigInteger u = new BigInteger(Long.toUnsignedString(units));
        return u.multiply(BigInteger.valueOf(1_000_000_000L)).shiftRight(shift).longValue();
    }

    /** Reads a whole block, or returns {@code null} (and ends the stream) at the end or on damage. */
    private Block readBlock() throws IOException {
        long at = position;
        byte[] head = read(8);
        if (head.length == 0) {
            return end(null);
        }
        if (head.length < 8) {
            return end("block header truncated at byte " + at);
        }
        ByteOrder blockOrder = order;
        boolean shb = ByteBuffer.wrap(head).order(ByteOrder.BIG_ENDIAN).getInt(0) == PCAPNG_SHB;
        if (shb) {
            byte[] bom = read(4);
            if (bom.length < 4) {
                return end("section header truncated at byte " + at);
            }
            blockOrder = byteOrderOf(bom, 0);
            if (blockOrder == null) {
                return end("corrupt section header at byte " + at + ": no byte-order magic");
            }
            head = Arrays.copyOf(head, 12);
            System.arraycopy(bom, 0, head, 8, 4);
        }
        return finishBlock(head, blockOrder, at);
    }

    /** Reads the rest of a block whose first 8 (or, for an SHB, 12) bytes are in {@code head}. */
    private Block finishBlock(byte[] head, ByteOrder blockOrder, long at) throws IOException {
        ByteBuffer h = ByteBuffer.wrap(head).order(blockOrder);
        int type = h.getInt(0);
        long length = Integer.toUnsignedLong(h.getInt(4));
        if (length < 12 || (length & 3) != 0 || length > MAX_RECORD || length < head.length + 4) {
            return end("corrupt block at byte " + at + ": total length " + length);
        }
        byte[] rest = read((int) length - head.length);
        if (rest.length < length - head.length) {
            return end("block at byte " + at + " truncated: " + (head.length + rest.length) + " of " + length + " bytes");
        }
        long trailer = Integer.toUnsignedLong(ByteBuffer.wrap(rest).order(blockOrder).getInt(rest.length - 4));
        if (trailer != length) {
            return end("corrupt block at byte " + at + ": total length " + length + " but trailer says " + trailer);
        }
        order = blockOrder;
        return new Block(type, Arrays.copyOf(rest, rest.length - 4));
    }

    private static ByteOrder byteOrderOf(byte[] b, int off) {
        if (ByteBuffer.wrap(b, off, 4).order(ByteOrder.BIG_ENDIAN).getInt(off) == PCAPNG_BOM) {
            return ByteOrder.BIG_ENDIAN;
        }
        if (ByteBuffer.wrap(b, off, 4).order(ByteOrder.LITTLE_ENDIAN).getInt(off) == PCAPNG_BOM) {
            return ByteOrder.LITTLE_ENDIAN;
        }
        return null;
    }

    // ---------------------------------------------------------------- common

    private PcapFrame frame(long nanos, int linkType, long original, byte[] data) {
        lastNumber++;
        return new PcapFrame(lastNumber, nanos, linkType, (int) Math.min(original, Integer.MAX_VALUE), data);
    }

    private <T> T end(String why) {
        finished = true;
        problem = why;
        return null;
    }

    private ByteBuffer buf(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(order);
    }

    /** Up to {@code n} bytes; fewer only at the end of the stream. Allocates as data arrives. */
    private byte[] read(int n) throws IOException {
        byte[] b = in.readNBytes(n);
        position += b.length;
        return b;
    }
}
