package io.rnic.core.packet;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * One row of the opcode table: everything the codec and the transport need to know about an
 * opcode, so that neither branches on individual opcode values.
 *
 * <p>Instances are immutable and shared; obtain them from {@link OpcodeTable}.
 */
public final class Opcode {
    private final int code;
    private final String name;
    private final Transport transport;
    private final Operation operation;
    private final Position position;
    private final List<Header> headers;
    private final int[] offsets;
    private final int headerLength;
    private final PayloadRule payload;
    private final boolean immediate;
    private final boolean invalidate;
    private final Set<Header> headerSet;

    Opcode(int code, String name, Transport transport, Operation operation, Position position,
           Header[] chain, PayloadRule payload) {
        this.code = code;
        this.name = name;
        this.transport = transport;
        this.operation = operation;
        this.position = position;
        this.headers = Collections.unmodifiableList(Arrays.asList(chain.clone()));
        this.offsets = new int[Header.values().length];
        Arrays.fill(offsets, -1);
        EnumSet<Header> set = EnumSet.noneOf(Header.class);
        int off = BthFlyweight.LENGTH;
        for (Header h : chain) {
            offsets[h.ordinal()] = off;
            off += h.length();
            set.add(h);
        }
        this.headerSet = Collections.unmodifiableSet(set);
        this.headerLength = off;
        this.payload = payload;
        this.immediate = set.contains(Header.IMMDT);
        this.invalidate = set.contains(Header.IETH);
    }

    /** The 8-bit opcode value carried in the BTH. */
    public int code() {
        return code;
    }

    /** The reference name, for example {@code RC_RDMA_READ_RESPONSE_FIRST}. */
    public String name() {
        return name;
    }

    public Transport transport() {
        return transport;
    }

    public Operation operation() {
        return operation;
    }

    public Position position() {
        return position;
    }

    /** The extension headers that follow the BTH, in wire order. */
    public List<Header> headers() {
        return headers;
    }

    /** True if this opcode carries the given extension header. */
    public boolean has(Header h) {
        return offsets[h.ordinal()] >= 0;
    }

    /** Offset of the header from the first byte of the BTH, or -1 if absent. */
    public int offsetOf(Header h) {
        return offsets[h.ordinal()];
    }

    /** Set view of {@link #headers()}. */
    public Set<Header> headerSet() {
        return headerSet;
    }

    /** Bytes from the start of the BTH to the start of the payload. */
    public int headerLength() {
        return headerLength;
    }

    public PayloadRule payload() {
        return payload;
    }

    /** True if the packet may carry payload bytes. */
    public boolean hasPayload() {
        return payload != PayloadRule.NONE;
    }

    /** True if the packet carries ImmDt. */
    public boolean hasImmediate() {
        return immediate;
    }

    /** True if the packet carries IETH (SEND with Invalidate). */
    public boolean hasInvalidate() {
        return invalidate;
    }

    /** True for read responses and acknowledgements. */
    public boolean isResponse() {
        return operation.isResponse();
    }

    @Override
    public String toString() {
        return name;
    }
}
