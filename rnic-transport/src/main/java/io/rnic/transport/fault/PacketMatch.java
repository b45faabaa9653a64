package io.rnic.transport.fault;

/** Selects packets for scripted faults. */
@FunctionalInterface
public interface PacketMatch {
    boolean test(PacketFate fate);

    /** Every packet. */
    static PacketMatch any() {
        return f -> true;
    }

    /** ACKNOWLEDGE and ATOMIC ACKNOWLEDGE packets. */
    static PacketMatch acks() {
        return PacketFate::isAck;
    }

    /** Packets with this PSN to this destination QP ({@code qp} -1: any QP). */
    static PacketMatch psn(int qp, int psn) {
        return f -> f.psn() == psn && (qp < 0 || f.destQp() == qp);
    }

    /** Packets to destination QP {@code qpn}: a connected QP's traffic, found by its peer's number. */
    static PacketMatch toQp(int qpn) {
        return f -> f.destQp() == qpn;
    }

    /** Packets with this opcode value. */
    static PacketMatch opcode(int code) {
        return f -> f.opcode() == code;
    }
}
