package io.rnic.transport.sim;

import io.netty.buffer.ByteBuf;
import io.rnic.transport.fault.FaultChain;
import io.rnic.transport.fault.FaultModel;
import io.rnic.transport.fault.FaultStats;
import io.rnic.transport.fault.PacketFate;
import java.net.InetSocketAddress;

/**
 * One direction of a simulated link: propagation latency, serialization at a bandwidth, a
 * tail-drop queue limit in bytes, and a seeded {@link FaultChain}. Packets on a clean link arrive
 * in the order they were sent.
 */
public final class LinkDirection {
    /** How long a "hold for next" packet waits if no next packet comes. */
    static final long HOLD_LIMIT_NANOS = 1_000_000;

    private final SimScheduler scheduler;
    private final SimWire from;
    private final SimWire to;
    private final FaultChain faults;
    private long latencyNanos;
    private long bitsPerSecond;
    private long queueLimitBytes;
    private long busyUntil;
    /** The last packet size serialized and its time: a 64-bit division per packet otherwise. */
    private int serializedSize = -1;
    private long serializationNanos;
    /** The last packet size checked against the queue limit, and the wait at which it is dropped. */
    private int limitedSize = -1;
    private long dropWaitNanos;
    private long delivered;
    private long queueDrops;
    private long lostInFlight;

    private ByteBuf held;
    private InetSocketAddress heldSource;
    private int heldTos;
    private long heldGeneration;

    LinkDirection(SimScheduler scheduler, SimWire from, SimWire to, long seed, LinkConfig defaults) {
        this.scheduler = scheduler;
        this.from = from;
        this.to = to;
        this.faults = new FaultChain(seed);
        this.latencyNanos = defaults.latencyNanos();
        this.bitsPerSecond = defaults.bitsPerSecond();
        this.queueLimitBytes = defaults.queueLimitBytes();
    }

    /** One-way propagation delay. */
    public LinkDirection latencyNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("latency " + nanos + " ns is negative");
        }
        this.latencyNanos = nanos;
        return this;
    }

    /** Serialization rate; 0 means infinitely fast (no queueing). */
    public LinkDirection bitsPerSecond(long bps) {
        if (bps < 0) {
            throw new IllegalArgumentException("bandwidth " + bps + " b/s is negative");
        }
        this.bitsPerSecond = bps;
        serializedSize = -1;
        limitedSize = -1;
        return this;
    }

    /** Bytes that may wait for serialization before tail drop; 0 means unlimited. */
    public LinkDirection queueLimitBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("queue limit " + bytes + " bytes is negative");
        }
        this.queueLimitBytes = bytes;
        limitedSize = -1;
        return this;
    }

    /** Adds a fault model to this direction. */
    public LinkDirection fault(FaultModel model) {
        faults.add(model);
        return this;
    }

    public FaultStats faultStats() {
        return faults.stats();
    }

    /** Packets handed to the receiving wire. */
    public long delivered() {
        return delivered;
    }

    /** Packets dropped because the queue was full. */
    public long queueDrops() {
        return queueDrops;
    }

    /** Packets that arrived at a closed wire. */
    public long lostInFlight() {
        return lostInFlight;
    }

    public SimWire from() {
        return from;
    }

    public SimWire to() {
        return to;
    }

    /** True if a fault model may inspect or change this direction's packets. */
    boolean hasFaults() {
        return !faults.isEmpty();
    }

    /**
     * Sends a packet along this direction; {@code intact} if it was sent unsealed (ICRC offload),
     * which only a direction without faults carries (the sender seals the others first).
     */
    void transmit(ByteBuf packet, InetSocketAddress source, boolean intact, int tos) {
        long now = scheduler.nanoTime();
        PacketFate fate = faults.isEmpty() ? null : faults.decide(packet);
        if (fate != null && fate.dropped()) {
            packet.release();
            return;
        }
        int size = packet.readableBytes();
        long arrival;
        if (bitsPerSecond > 0) {
            long start = Math.max(now, busyUntil);
            if (queueLimitBytes > 0 && busyUntil - now >= dropWaitNanos(size)) {
                queueDrops++;
                packet.release();
                return;
            }
            if (size != serializedSize) {
                serializationNanos = (size * 8L * 1_000_000_000L) / bitsPerSecond;
                serializedSize = size;
            }
            busyUntil = start + serializationNanos;
            arrival = busyUntil + latencyNanos;
        } else {
            arrival = now + latencyNanos;
        }
        if (fate == null) {
            scheduler.scheduleArrival(arrival, this, packet, source, intact, tos);
            releaseHeld(arrival);
            return;
        }
        arrival += fate.extraDelayNanos();
        int copies = fate.duplicates();
        if (fate.heldForNext() && held == null) {
            hold(packet, source, tos);
        } else {
            scheduler.scheduleArrival(arrival, this, packet, source, false, tos);
            releaseHeld(arrival);
        }
        for (int i = 0; i < copies; i++) {
            // Each delivery is released by the wire after its receiver returns, so each copy
            // holds a reference of its own, with its own reader and writer indices.
            scheduler.scheduleArrival(arrival, this, packet.retainedDuplicate(), source, false, tos);
        }
    }

    /**
     * The serialization backlog, in nanoseconds, at which a packet of {@code size} bytes no longer
     * fits the queue: the backlog in bytes, {@code floor(wait * bps / 8e9)}, plus the packet then
     * exceeds the limit. Kept per size, as the serialization time is: a 64-bit division per
     * packet otherwise.
     */
    private long dropWaitNanos(int size) {
        if (size != limitedSize) {
            long k = queueLimitBytes - size + 1; // the smallest backlog in bytes that drops the packet
            if (k <= 0) {
                dropWaitNanos = Long.MIN_VALUE; // larger than the queue: dropped even on an idle link
            } else if (k > Long.MAX_VALUE / 8_000_000_000L) {
                dropWaitNanos = Long.MAX_VALUE;
            } else {
                long bits = k * 8_000_000_000L;
                dropWaitNanos = bits / bitsPerSecond + (bits % bitsPerSecond == 0 ? 0 : 1);
            }
            limitedSize = size;
        }
        return dropWaitNanos;
    }

    private void hold(ByteBuf packet, InetSocketAddress source, int tos) {
        held = packet;
        heldSource = source;
        heldTos = tos;
        long generation = ++heldGeneration;
        scheduler.schedule(HOLD_LIMIT_NANOS, () -> {
            if (held != null && heldGeneration == generation) {
                releaseHeld(scheduler.nanoTime());
            }
        });
    }

    private void releaseHeld(long arrival) {
        if (held != null) {
            ByteBuf p = held;
            held = null;
            scheduler.scheduleArrival(arrival, this, p, heldSource, false, heldTos);
            heldSource = null;
        }
    }

    /** Releases a packet that will not be delivered (the network is closing). */
    void discard(ByteBuf packet) {
        lostInFlight++;
        packet.release();
    }

    /** Releases a packet held back by a "hold for next" fault (the network is closing). */
    void releaseHeldOnClose() {
        if (held != null) {
            discard(held);
            held = null;
            heldSource = null;
        }
    }

    void arrive(ByteBuf packet, InetSocketAddress source, boolean intact, int tos) {
        if (to.deliver(packet, source, intact, tos)) {
            delivered++;
        } else {
            lostInFlight++;
        }
    }
}
