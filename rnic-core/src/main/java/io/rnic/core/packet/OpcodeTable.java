package io.rnic.core.packet;

import static io.rnic.core.packet.Header.AETH;
import static io.rnic.core.packet.Header.ATOMIC_ACK_ETH;
import static io.rnic.core.packet.Header.ATOMIC_ETH;
import static io.rnic.core.packet.Header.FETH;
import static io.rnic.core.packet.Header.IETH;
import static io.rnic.core.packet.Header.IMMDT;
import static io.rnic.core.packet.Header.RETH;
import static io.rnic.core.packet.Position.FIRST;
import static io.rnic.core.packet.Position.LAST;
import static io.rnic.core.packet.Position.MIDDLE;
import static io.rnic.core.packet.Position.ONLY;
import static io.rnic.core.packet.Transport.RC;
import static io.rnic.core.packet.Transport.RD;
import static io.rnic.core.packet.Transport.UC;
import static io.rnic.core.packet.Transport.UD;
import static io.rnic.core.packet.Transport.XRC;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The 256-entry opcode table (reference §1). Each row is built from two smaller tables: the
 * operation part, indexed by {@code opcode[4:0]}, and the transport prefix of {@link Transport}.
 * A {@code null} row is a reserved or unknown opcode.
 */
public final class OpcodeTable {
    private static final Opcode[] ROWS = new Opcode[256];
    private static final List<Opcode> ALL;
    /** The rows indexed by (transport, operation, position, immediate, invalidate), for {@link #find}. */
    private static final int OPERATIONS_COUNT = Operation.values().length;
    private static final int POSITIONS = Position.values().length;
    private static final Opcode[] BY_MEANING = new Opcode[Transport.values().length * OPERATIONS_COUNT * POSITIONS * 4];

    /** One row of the operation part: the same for every transport that has the operation. */
    private record Op(int number, String suffix, Operation operation, Position position,
                      Header[] headers, PayloadRule payload, Set<Transport> transports) { }

    private static final Set<Transport> RC_UC_RD_XRC = EnumSet.of(RC, UC, RD, XRC);
    private static final Set<Transport> ALL_BUT_CNP = EnumSet.of(RC, UC, RD, UD, XRC);
    private static final Set<Transport> RC_RD_XRC = EnumSet.of(RC, RD, XRC);
    private static final Set<Transport> RC_XRC = EnumSet.of(RC, XRC);
    private static final Header[] NONE = new Header[0];

    private static final Op[] OPERATIONS = {
        op(0x00, "SEND_FIRST", Operation.SEND, FIRST, NONE, PayloadRule.DATA, RC_UC_RD_XRC),
        op(0x01, "SEND_MIDDLE", Operation.SEND, MIDDLE, NONE, PayloadRule.DATA, RC_UC_RD_XRC),
        op(0x02, "SEND_LAST", Operation.SEND, LAST, NONE, PayloadRule.DATA, RC_UC_RD_XRC),
        op(0x03, "SEND_LAST_WITH_IMMEDIATE", Operation.SEND, LAST, h(IMMDT), PayloadRule.DATA, RC_UC_RD_XRC),
        op(0x04, "SEND_ONLY", Operation.SEND, ONLY, NONE, PayloadRule.DATA, ALL_BUT_CNP),
        op(0x05, "SEND_ONLY_WITH_IMMEDIATE", Operation.SEND, ONLY, h(IMMDT), PayloadRule.DATA, ALL_BUT_CNP),
        op(0x06, "RDMA_WRITE_FIRST", Operation.RDMA_WRITE, FIRST, h(RETH), PayloadRule.DATA, RC_UC_RD_XRC),
        op(0x07, "RDMA_WRITE_MIDDLE", Operation.RDMA_WRITE, MIDDLE, NONE, PayloadRule.DATA, RC_UC_RD_XRC),
        op(0x08, "RDMA_WRITE_LAST", Operation.RDMA_WRITE, LAST, NONE, PayloadRule.DATA, RC_UC_RD_XRC),
        op(0x09, "RDMA_WRITE_LAST_WITH_IMMEDIATE", Operation.RDMA_WRITE, LAST, h(IMMDT), PayloadRule.DATA, RC_UC_RD_XRC),
        op(0x0A, "RDMA_WRITE_ONLY", Operation.RDMA_WRITE, ONLY, h(RETH), PayloadRule.DATA, RC_UC_RD_XRC),
        op(0x0B, "RDMA_WRITE_ONLY_WITH_IMMEDIATE", Operation.RDMA_WRITE, ONLY, h(RETH, IMMDT), PayloadRule.DATA, RC_UC_RD_XRC),
        op(0x0C, "RDMA_READ_REQUEST", Operation.RDMA_READ_REQUEST, ONLY, h(RETH), PayloadRule.NONE, RC_RD_XRC),
        op(0x0D, "RDMA_READ_RESPONSE_FIRST", Operation.RDMA_READ_RESPONSE, FIRST, h(AETH), PayloadRule.DATA, RC_RD_XRC),
        op(0x0E, "RDMA_READ_RESPONSE_MIDDLE", Operation.RDMA_READ_RESPONSE, MIDDLE, NONE, PayloadRule.DATA, RC_RD_XRC),
        op(0x0F, "RDMA_READ_RESPONSE_LAST", Operation.RDMA_READ_RESPONSE, LAST, h(AETH), PayloadRule.DATA, RC_RD_XRC),
        op(0x10, "RDMA_READ_RESPONSE_ONLY", Operation.RDMA_READ_RESPONSE, ONLY, h(AETH), PayloadRule.DATA, RC_RD_XRC),
        op(0x11, "ACKNOWLEDGE", Operation.ACKNOWLEDGE, ONLY, h(AETH), PayloadRule.NONE, RC_RD_XRC),
        op(0x12, "ATOMIC_ACKNOWLEDGE", Operation.ATOMIC_ACKNOWLEDGE, ONLY, h(AETH, ATOMIC_ACK_ETH), PayloadRule.NONE, RC_RD_XRC),
        op(0x13, "COMPARE_SWAP", Operation.COMPARE_SWAP, ONLY, h(ATOMIC_ETH), PayloadRule.NONE, RC_RD_XRC),
        op(0x14, "FETCH_ADD", Operation.FETCH_ADD, ONLY, h(ATOMIC_ETH), PayloadRule.NONE, RC_RD_XRC),
        op(0x15, "RESYNC", Operation.RESYNC, ONLY, NONE, PayloadRule.NONE, EnumSet.of(RD)),
        op(0x16, "SEND_LAST_WITH_INVALIDATE", Operation.SEND, LAST, h(IETH), PayloadRule.DATA, RC_XRC),
        op(0x17, "SEND_ONLY_WITH_INVALIDATE", Operation.SEND, ONLY, h(IETH), PayloadRule.DATA, RC_XRC),
        op(0x1C, "FLUSH", Operation.FLUSH, ONLY, h(FETH, RETH), PayloadRule.NONE, RC_RD_XRC),
        op(0x1D, "ATOMIC_WRITE", Operation.ATOMIC_WRITE, ONLY, h(RETH), PayloadRule.EIGHT_BYTES, RC_RD_XRC),
    };

    static {
        for (Op op : OPERATIONS) {
            for (Transport t : op.transports()) {
                addRow(op, t);
            }
            // rnic's selective-retransmission RC: every RC operation again, behind an SRETH.
            if (op.transports().contains(RC)) {
                addRow(op, Transport.SR);
            }
        }
        // Real RoCEv2 hardware sends CNPs as 0x81: BTH then 16 reserved bytes (§1.7).
        ROWS[0x81] = new Opcode(0x81, "CNP", Transport.CNP, Operation.CNP, ONLY,
                h(Header.CNP_RESERVED), PayloadRule.NONE);

        List<Opcode> all = new ArrayList<>();
        for (Opcode row : ROWS) {
            if (row != null) {
                all.add(row);
            }
        }
        ALL = Collections.unmodifiableList(all);
        for (Opcode row : all) {
            BY_MEANING[meaning(row.transport(), row.operation(), row.position(), row.hasImmediate(), row.hasInvalidate())] = row;
        }
    }

    private static void addRow(Op op, Transport t) {
        int code = t.base() | op.number();
        Header[] prefix = t.prefix(op.operation().isResponse());
        Header[] chain = new Header[prefix.length + op.headers().length];
        System.arraycopy(prefix, 0, chain, 0, prefix.length);
        System.arraycopy(op.headers(), 0, chain, prefix.length, op.headers().length);
        ROWS[code] = new Opcode(code, t.name() + "_" + op.suffix(), t, op.operation(), op.position(), chain, op.payload());
    }

    private static int meaning(Transport t, Operation op, Position pos, boolean imm, boolean inv) {
        int i = (t.ordinal() * OPERATIONS_COUNT + op.ordinal()) * POSITIONS + pos.ordinal();
        return i * 4 + (imm ? 2 : 0) + (inv ? 1 : 0);
    }

    private OpcodeTable() {
    }

    private static Op op(int number, String suffix, Operation operation, Position position,
                         Header[] headers, PayloadRule payload, Set<Transport> transports) {
        return new Op(number, suffix, operation, position, headers, payload, transports);
    }

    private static Header[] h(Header... headers) {
        return headers;
    }

    /** The row for an opcode value, or {@code null} when the value is reserved or unknown. */
    public static Opcode lookup(int code) {
        return ROWS[code & 0xFF];
    }

    /**
     * The row for an opcode value.
     *
     * @throws IllegalArgumentException if the value is not a defined opcode
     */
    public static Opcode of(int code) {
        if (code < 0 || code > 0xFF) {
            throw new IllegalArgumentException("opcode " + code + " is not an 8-bit value");
        }
        Opcode row = ROWS[code];
        if (row == null) {
            throw new IllegalArgumentException(String.format("opcode 0x%02x is reserved or unknown", code));
        }
        return row;
    }

    /** The row with the given reference name, for example {@code RC_SEND_ONLY}. */
    public static Opcode byName(String name) {
        for (Opcode row : ALL) {
            if (row.name().equals(name)) {
                return row;
            }
        }
        throw new IllegalArgumentException("no opcode is named " + name);
    }

    /**
     * The row for an operation on a transport at a position, with or without immediate data /
     * invalidate, or {@code null} if no such opcode exists. Used by the requester to pick the
     * opcode of each packet of a message without branching on opcode values.
     */
    public static Opcode find(Transport transport, Operation operation, Position position,
                              boolean immediate, boolean invalidate) {
        // An index computed once: requesters and responders call this for every packet they build.
        return BY_MEANING[meaning(transport, operation, position, immediate, invalidate)];
    }

    /** Every defined opcode, in ascending order of value. */
    public static List<Opcode> all() {
        return ALL;
    }
}
