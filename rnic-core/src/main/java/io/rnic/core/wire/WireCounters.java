package io.rnic.core.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Packet counters of one wire. Written by the wire's single protocol thread, readable from any
 * thread: single-writer release stores and acquire loads, no locks or read-modify-write atomics
 * on the hot path.
 */
public final class WireCounters {
    private static final VarHandle SENT_PKTS = handle("sentPackets");
    private static final VarHandle SENT_BYTES = handle("sentBytes");
    private static final VarHandle RCVD_PKTS = handle("receivedPackets");
    private static final VarHandle RCVD_BYTES = handle("receivedBytes");
    private static final VarHandle SEND_ERR = handle("sendErrors");
    private static final VarHandle MALFORMED = handle("malformed");
    private static final VarHandle HANDLER_ERR = handle("handlerErrors");
    private static final VarHandle GSO_SENDS = handle("gsoSends");
    private static final VarHandle GSO_PKTS = handle("gsoPackets");

    private long sentPackets;
    private long sentBytes;
    private long receivedPackets;
    private long receivedBytes;
    private long sendErrors;
    private long malformed;
    private long handlerErrors;
    private long gsoSends;
    private long gsoPackets;

    private static VarHandle handle(String field) {
        try {
            return MethodHandles.lookup().findVarHandle(WireCounters.class, field, long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A packet of {@code bytes} bytes was handed to the network. */
    public void sent(int bytes) {
        SENT_PKTS.setRelease(this, sentPackets + 1);
        SENT_BYTES.setRelease(this, sentBytes + bytes);
    }

    /** A packet of {@code bytes} bytes was delivered to the receiver. */
    public void received(int bytes) {
        RCVD_PKTS.setRelease(this, receivedPackets + 1);
        RCVD_BYTES.setRelease(this, receivedBytes + bytes);
    }

    /** A send was refused (closed wire, unknown destination, socket error). */
    public void sendError() {
        SEND_ERR.setRelease(this, sendErrors + 1);
    }

    /** A received datagram was too short or not 4-byte aligned to be RoCEv2. */
    public void malformed() {
        MALFORMED.setRelease(this, malformed + 1);
    }

    /** The receiver threw. */
    public void handlerError() {
        HANDLER_ERR.setRelease(this, handlerErrors + 1);
    }

    /** {@code packets} packets left as one GSO super-datagram. */
    public void gsoSent(int packets) {
        GSO_SENDS.setRelease(this, gsoSends + 1);
        GSO_PKTS.setRelease(this, gsoPackets + packets);
    }

    /** GSO super-datagrams sent. */
    public long gsoSends() {
        return (long) GSO_SENDS.getAcquire(this);
    }

    /** Packets that left inside GSO super-datagrams. */
    public long gsoPackets() {
        return (long) GSO_PKTS.getAcquire(this);
    }

    public long sentPackets() {
        return (long) SENT_PKTS.getAcquire(this);
    }

    public long sentBytes() {
        return (long) SENT_BYTES.getAcquire(this);
    }

    public long receivedPackets() {
        return (long) RCVD_PKTS.getAcquire(this);
    }

    public long receivedBytes() {
        return (long) RCVD_BYTES.getAcquire(this);
    }

    public long sendErrors() {
        return (long) SEND_ERR.getAcquire(this);
    }

    public long malformedPackets() {
        return (long) MALFORMED.getAcquire(this);
    }

    public long handlerErrors() {
        return (long) HANDLER_ERR.getAcquire(this);
    }

    /** All counters by name (rxe's names where one exists), in a stable order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("sent_pkts", sentPackets());
        m.put("sent_bytes", sentBytes());
        m.put("rcvd_pkts", receivedPackets());
        m.put("rcvd_bytes", receivedBytes());
        m.put("send_err", sendErrors());
        m.put("rcvd_malformed", malformedPackets());
        m.put("rcvd_handler_err", handlerErrors());
        m.put("gso_sends", gsoSends());
        m.put("gso_pkts", gsoPackets());
        return m;
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
