package io.rnic.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * The 24-byte common header of a management datagram, the payload of a UD packet to or from QP1
 * (reference §11.6): base version, management class, class version, method, status, class
 * specific, transaction ID, attribute ID, attribute modifier. Named here so that a capture's
 * decoder can say which message a GSI packet carries; the connection manager of rnic-verbs reads
 * and writes the messages themselves.
 */
public final class MadHeader {
    /** The header's size; a MAD is 256 bytes in all. */
    public static final int LENGTH = 24;
    /** The connection manager's management class. */
    public static final int CLASS_CM = 0x07;

    private MadHeader() {
    }

    /**
     * The name of a connection-manager attribute (IBA 12.6): REQ, MRA, REJ, REP, RTU, DREQ, DREP,
     * SIDR_REQ, SIDR_REP, LAP, APR, or its number.
     *
     * @param id the attribute ID
     * @return the message's name
     */
    public static String cmAttributeName(int id) {
        return switch (id) {
            case 0x0010 -> "REQ";
            case 0x0011 -> "MRA";
            case 0x0012 -> "REJ";
            case 0x0013 -> "REP";
            case 0x0014 -> "RTU";
            case 0x0015 -> "DREQ";
            case 0x0016 -> "DREP";
            case 0x0017 -> "SIDR_REQ";
            case 0x0018 -> "SIDR_REP";
            case 0x0019 -> "LAP";
            case 0x001A -> "APR";
            default -> String.format("0x%04x", id);
        };
    }

    /**
     * A short description of the MAD at {@code offset} in {@code buf}, e.g.
     * {@code " MAD(CM REQ tid=0x000000022a1ca4cc)"}, or an empty string if fewer than 24 bytes
     * are there.
     *
     * @param buf    the packet
     * @param offset the MAD's first byte
     * @param length the bytes available from there
     * @return the description, with a leading space
     */
    public static String describe(ByteBuf buf, int offset, int length) {
        if (length < LENGTH) {
            return "";
        }
        int mgmtClass = buf.getUnsignedByte(offset + 1);
        int method = buf.getUnsignedByte(offset + 3);
        long tid = buf.getLong(offset + 8);
        int attr = buf.getUnsignedShort(offset + 16);
        String what = mgmtClass == CLASS_CM ? "CM " + cmAttributeName(attr)
                : String.format("class 0x%02x method 0x%02x attr 0x%04x", mgmtClass, method, attr);
        return String.format(" MAD(%s tid=0x%016x)", what, tid);
    }
}
