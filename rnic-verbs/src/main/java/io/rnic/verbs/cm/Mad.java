package io.rnic.verbs.cm;

import java.nio.ByteBuffer;

/**
 * The 256-byte management datagram a GSI QP carries (reference §11.6): the 24-byte common MAD
 * header, then 232 bytes of class data. Only the connection manager's class is spoken here.
 *
 * <p>Header: base version (1), management class, class version, method, status (2), class
 * specific (2), transaction ID (8), attribute ID (2), reserved (2), attribute modifier (4).
 */
final class Mad {
    static final int SIZE = 256;
    static final int HEADER = 24;
    static final int DATA = SIZE - HEADER;

    static final int BASE_VERSION = 1;
    static final int CLASS_CM = 0x07;
    static final int CM_CLASS_VERSION = 2;
    static final int METHOD_SEND = 0x03;

    /** The GSI's well-known Q_Key. */
    static final int GSI_QKEY = 0x80010000;

    // CM attribute IDs (IBA 12.6).
    static final int REQ = 0x0010;
    static final int MRA = 0x0011;
    static final int REJ = 0x0012;
    static final int REP = 0x0013;
    static final int RTU = 0x0014;
    static final int DREQ = 0x0015;
    static final int DREP = 0x0016;
    static final int SIDR_REQ = 0x0017;
    static final int SIDR_REP = 0x0018;

    private Mad() {
    }

    /** Writes a CM SEND header into {@code mad} (absolute, from 0) and zeroes the data area. */
    static void header(ByteBuffer mad, long tid, int attributeId) {
        for (int i = 0; i < SIZE; i += 8) {
            mad.putLong(i, 0);
        }
        mad.put(0, (byte) BASE_VERSION).put(1, (byte) CLASS_CM).put(2, (byte) CM_CLASS_VERSION)
                .put(3, (byte) METHOD_SEND);
        mad.putLong(8, tid);
        mad.putShort(16, (short) attributeId);
    }

    /** True if {@code mad} is a CM MAD this agent can read: right size, versions and method. */
    static boolean isCm(ByteBuffer mad) {
        return mad.limit() >= SIZE && (mad.get(0) & 0xFF) == BASE_VERSION && (mad.get(1) & 0xFF) == CLASS_CM
                && (mad.get(2) & 0xFF) == CM_CLASS_VERSION && (mad.get(3) & 0x7F) == METHOD_SEND;
    }

    static long tid(ByteBuffer mad) {
        return mad.getLong(8);
    }

    static int attributeId(ByteBuffer mad) {
        return mad.getShort(16) & 0xFFFF;
    }

    static String attributeName(int id) {
        return io.rnic.core.packet.MadHeader.cmAttributeName(id);
    }

    // ---- field access within the data area (offsets from its start) ----

    static int u8(ByteBuffer mad, int off) {
        return mad.get(HEADER + off) & 0xFF;
    }

    static int u16(ByteBuffer mad, int off) {
        return mad.getShort(HEADER + off) & 0xFFFF;
    }

    static int u24(ByteBuffer mad, int off) {
        return mad.getInt(HEADER + off) >>> 8;
    }

    static int u32(ByteBuffer mad, int off) {
        return mad.getInt(HEADER + off);
    }

    static long u64(ByteBuffer mad, int off) {
        return mad.getLong(HEADER + off);
    }

    static void put8(ByteBuffer mad, int off, int v) {
        mad.put(HEADER + off, (byte) v);
    }

    static void put16(ByteBuffer mad, int off, int v) {
        mad.putShort(HEADER + off, (short) v);
    }

    /** A 24-bit field followed by an 8-bit one, as the CM packs QPNs and PSNs. */
    static void put24and8(ByteBuffer mad, int off, int v24, int v8) {
        mad.putInt(HEADER + off, (v24 & 0xFFFFFF) << 8 | (v8 & 0xFF));
    }

    static void put32(ByteBuffer mad, int off, int v) {
        mad.putInt(HEADER + off, v);
    }

    static void put64(ByteBuffer mad, int off, long v) {
        mad.putLong(HEADER + off, v);
    }

    static byte[] bytes(ByteBuffer mad, int off, int len) {
        byte[] out = new byte[len];
        mad.get(HEADER + off, out);
        return out;
    }

    static void putBytes(ByteBuffer mad, int off, byte[] src, int max) {
        if (src == null) {
            return;
        }
        if (src.length > max) {
            throw new IllegalArgumentException("private data of " + src.length + " bytes exceeds the " + max
                    + " this message carries");
        }
        mad.put(HEADER + off, src);
    }
}
