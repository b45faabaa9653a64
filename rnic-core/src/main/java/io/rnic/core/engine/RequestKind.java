package io.rnic.core.engine;

import io.rnic.core.packet.Operation;
import io.rnic.core.packet.Transport;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WrOpcode;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * What each send work-request opcode means to the transport: the wire operation, whether it
 * carries immediate data or an invalidate key, the requester's completion opcode, the access
 * the responder's memory region must grant, and the transports that allow it. One row per
 * opcode, so the requester, completer and responder never branch on work-request opcodes.
 *
 * @param operation      the packet operation (SEND, RDMA_WRITE, RDMA_READ_REQUEST, ...); {@code null} for a
 *                       local operation (BIND_MW, LOCAL_INV), which sends no packet
 * @param immediate      carries ImmDt
 * @param invalidate     carries IETH
 * @param completion     the requester's completion opcode
 * @param remoteAccess   access flag the target region must grant (0 for SEND)
 * @param responded      answered by read responses or an atomic ACK, not a plain ACK
 * @param transports     transports on which the opcode may be posted
 */
public record RequestKind(Operation operation, boolean immediate, boolean invalidate, WcOpcode completion,
                          int remoteAccess, boolean responded, Set<Transport> transports) {

    private static final Map<WrOpcode, RequestKind> ROWS = new EnumMap<>(WrOpcode.class);
    private static final Set<Transport> CONNECTED = EnumSet.of(Transport.RC, Transport.UC, Transport.XRC, Transport.RD);
    private static final Set<Transport> RELIABLE = EnumSet.of(Transport.RC, Transport.XRC, Transport.RD);

    static {
        ROWS.put(WrOpcode.SEND, new RequestKind(Operation.SEND, false, false, WcOpcode.SEND, 0, false,
                EnumSet.of(Transport.RC, Transport.UC, Transport.UD, Transport.XRC, Transport.RD)));
        ROWS.put(WrOpcode.SEND_WITH_IMM, new RequestKind(Operation.SEND, true, false, WcOpcode.SEND, 0, false,
                EnumSet.of(Transport.RC, Transport.UC, Transport.UD, Transport.XRC, Transport.RD)));
        ROWS.put(WrOpcode.SEND_WITH_INV, new RequestKind(Operation.SEND, false, true, WcOpcode.SEND, 0, false,
                EnumSet.of(Transport.RC, Transport.XRC)));
        ROWS.put(WrOpcode.RDMA_WRITE, new RequestKind(Operation.RDMA_WRITE, false, false, WcOpcode.RDMA_WRITE,
                AccessFlags.REMOTE_WRITE, false, CONNECTED));
        ROWS.put(WrOpcode.RDMA_WRITE_WITH_IMM, new RequestKind(Operation.RDMA_WRITE, true, false, WcOpcode.RDMA_WRITE,
                AccessFlags.REMOTE_WRITE, false, CONNECTED));
        ROWS.put(WrOpcode.RDMA_READ, new RequestKind(Operation.RDMA_READ_REQUEST, false, false, WcOpcode.RDMA_READ,
                AccessFlags.REMOTE_READ, true, RELIABLE));
        ROWS.put(WrOpcode.ATOMIC_CMP_AND_SWP, new RequestKind(Operation.COMPARE_SWAP, false, false, WcOpcode.COMP_SWAP,
                AccessFlags.REMOTE_ATOMIC, true, RELIABLE));
        ROWS.put(WrOpcode.ATOMIC_FETCH_AND_ADD, new RequestKind(Operation.FETCH_ADD, false, false, WcOpcode.FETCH_ADD,
                AccessFlags.REMOTE_ATOMIC, true, RELIABLE));
        // IBTA 1.5: answered like a READ of nothing, each taking a responder resource (rxe 6.2).
        ROWS.put(WrOpcode.ATOMIC_WRITE, new RequestKind(Operation.ATOMIC_WRITE, false, false, WcOpcode.ATOMIC_WRITE,
                AccessFlags.REMOTE_WRITE, true, EnumSet.of(Transport.RC, Transport.XRC)));
        ROWS.put(WrOpcode.FLUSH, new RequestKind(Operation.FLUSH, false, false, WcOpcode.FLUSH,
                0, true, EnumSet.of(Transport.RC, Transport.XRC)));
        // Local operations: no packet (operation null), executed in order by the requester. The
        // kernel allows BIND_MW on RC and UC, LOCAL_INV on RC; an XRC initiator posts them as RC does.
        ROWS.put(WrOpcode.BIND_MW, new RequestKind(null, false, false, WcOpcode.BIND_MW, 0, false,
                EnumSet.of(Transport.RC, Transport.UC, Transport.XRC)));
        ROWS.put(WrOpcode.LOCAL_INV, new RequestKind(null, false, false, WcOpcode.LOCAL_INV, 0, false,
                EnumSet.of(Transport.RC, Transport.XRC)));
        ROWS.put(WrOpcode.REG_MR, new RequestKind(null, false, false, WcOpcode.REG_MR, 0, false,
                EnumSet.of(Transport.RC, Transport.XRC)));
    }

    /** The row of {@code op}, or {@code null} if this emulator does not carry it on the wire. */
    /**
     * The RESYNC an RD EE context sends after abandoning or suspending a message (seed 001
     * §9.7.3.2.2, 9.7.8.5): one packet, no data, answered by an ACK at its PSN. Not postable.
     */
    public static final RequestKind RESYNC = new RequestKind(Operation.RESYNC, false, false, null, 0, false,
            EnumSet.of(Transport.RD));

    public static RequestKind of(WrOpcode op) {
        return ROWS.get(op);
    }

    /** True for READ and the atomics: limited by max_rd_atomic and answered with data. */
    public boolean isReadOrAtomic() {
        return responded;
    }

    /** True for the two atomics. */
    public boolean isAtomic() {
        return operation == Operation.COMPARE_SWAP || operation == Operation.FETCH_ADD;
    }

    /** True for an operation the HCA performs locally, sending nothing (BIND_MW, LOCAL_INV). */
    public boolean isLocal() {
        return operation == null;
    }

    /**
     * True if the work request's operands beyond a SEND's or WRITE's are read: an atomic's
     * values, a FLUSH's range, a local operation's keys (the WQE keeps them apart, {@code
     * SendWqe#operands}).
     */
    public boolean carriesOperands() {
        return isAtomic() || isLocal() || operation == Operation.FLUSH;
    }

    /** True for RDMA READ. */
    public boolean isRead() {
        return operation == Operation.RDMA_READ_REQUEST;
    }

    /** True if the responder's answer is placed in the local buffer: READ data, an atomic's original value. */
    public boolean writesLocal() {
        return isRead() || isAtomic();
    }

    /** True if a READ response answers it: READ, and (with no data) ATOMIC WRITE and FLUSH. */
    public boolean answeredByReadResponse() {
        return isRead() || operation == Operation.ATOMIC_WRITE || operation == Operation.FLUSH;
    }

    /** True for SEND and RDMA WRITE: the message's data travels in the request packets. */
    public boolean carriesData() {
        return operation == Operation.SEND || operation == Operation.RDMA_WRITE;
    }
}
