package io.rnic.transport.fault;

import io.netty.buffer.ByteBuf;
import io.rnic.core.wire.Wire;
import java.net.InetSocketAddress;

/**
 * Wraps any wire and applies a seeded {@link FaultChain} to every packet it sends: the same
 * fault models as the simulated network's links, for experiments on real sockets. Delays run on
 * the wrapped wire's scheduler. Taps see packets as the wrapped wire sends them, after faults.
 */
public final class FaultInjectingWire extends io.rnic.transport.ForwardingWire {
    private static final long HOLD_LIMIT_NANOS = 1_000_000;

    private final FaultChain faults;
    private Held held;
    /** Packets waiting out an extra delay, released if the wire closes first. */
    private final java.util.Set<ByteBuf> delayed = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    private record Held(ByteBuf packet, int sourcePort, InetSocketAddress destination, int tos) { }

    public FaultInjectingWire(Wire inner, long seed) {
        super(inner);
        this.faults = new FaultChain(seed);
    }

    /** Adds a fault model. */
    public FaultInjectingWire fault(FaultModel model) {
        faults.add(model);
        return this;
    }

    public FaultStats faultStats() {
        return faults.stats();
    }

    /** The wrapped wire. */
    public Wire inner() {
        return inner;
    }

    @Override
    public void send(ByteBuf packet, int sourcePort, InetSocketAddress destination) {
        send(packet, sourcePort, destination, 0);
    }

    @Override
    public void send(ByteBuf packet, int sourcePort, InetSocketAddress destination, int tos) {
        PacketFate fate = faults.decide(packet);
        if (fate.dropped()) {
            packet.release();
            return;
        }
        int copies = fate.duplicates();
        long delay = fate.extraDelayNanos();
        for (int i = 0; i < copies; i++) {
            forward(packet.retainedDuplicate(), sourcePort, destination, tos, delay);
        }
        if (fate.heldForNext() && held == null) {
            Held h = new Held(packet, sourcePort, destination, tos);
            held = h;
            inner.scheduler().schedule(HOLD_LIMIT_NANOS, () -> releaseHeld(h));
            return;
        }
        forward(packet, sourcePort, destination, tos, delay);
        Held h = held;
        if (h != null) {
            if (delay > 0) {
                // Scheduled after the delayed packet, with the same delay: it still goes second.
                inner.scheduler().schedule(delay, () -> releaseHeld(h));
            } else {
                releaseHeld(h);
            }
        }
    }

    private void releaseHeld(Held h) {
        if (held == h) {
            held = null;
            inner.send(h.packet(), h.sourcePort(), h.destination(), h.tos());
        }
    }

    private void forward(ByteBuf packet, int sourcePort, InetSocketAddress destination, int tos, long delay) {
        if (delay <= 0) {
            inner.send(packet, sourcePort, destination, tos);
            return;
        }
        synchronized (delayed) {
            delayed.add(packet);
        }
        inner.scheduler().schedule(delay, () -> {
            boolean mine;
            synchronized (delayed) {
                mine = delayed.remove(packet);
            }
            if (mine) {
                inner.send(packet, sourcePort, destination, tos);
            }
        });
    }

    /** Closes the wrapped wire; held and delayed packets are released. */
    @Override
    public void close() {
        Held h = held;
        held = null;
        if (h != null) {
            h.packet().release();
        }
        synchronized (delayed) {
            delayed.forEach(ByteBuf::release);
            delayed.clear();
        }
        inner.close();
    }
}
