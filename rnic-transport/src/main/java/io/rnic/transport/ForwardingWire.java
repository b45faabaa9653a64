package io.rnic.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rnic.core.time.Scheduler;
import io.rnic.core.wire.Wire;
import io.rnic.core.wire.WireCounters;
import io.rnic.core.wire.WireReceiver;
import io.rnic.core.wire.WireTap;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * A wire that passes everything to another one: the base of decorators that change one thing
 * (which packets leave, how arrivals are batched) and keep the rest of the wrapped wire.
 */
public abstract class ForwardingWire implements Wire {
    /** The wrapped wire. */
    protected final Wire inner;

    protected ForwardingWire(Wire inner) {
        this.inner = Objects.requireNonNull(inner, "inner");
    }

    @Override
    public InetSocketAddress localAddress() {
        return inner.localAddress();
    }

    @Override
    public Scheduler scheduler() {
        return inner.scheduler();
    }

    @Override
    public int openFlow(int preferredSourcePort) {
        return inner.openFlow(preferredSourcePort);
    }

    @Override
    public void send(ByteBuf packet, int sourcePort, InetSocketAddress destination) {
        send(packet, sourcePort, destination, 0);
    }

    /** Every send comes here, with its IP TOS byte: a subclass that watches or changes sends overrides this one. */
    @Override
    public void send(ByteBuf packet, int sourcePort, InetSocketAddress destination, int tos) {
        inner.send(packet, sourcePort, destination, tos);
    }

    @Override
    public int defaultDscp() {
        return inner.defaultDscp();
    }

    @Override
    public boolean ecnByDefault() {
        return inner.ecnByDefault();
    }

    @Override
    public ByteBufAllocator allocator() {
        return inner.allocator();
    }

    @Override
    public long paceBitsPerSecond() {
        return inner.paceBitsPerSecond();
    }

    /** Passed on: a hint costs the decorator nothing. (The ICRC offload is not: a decorator sees sealed packets.) */
    @Override
    public void flushNow() {
        inner.flushNow();
    }

    @Override
    public java.util.OptionalLong seed() {
        return inner.seed();
    }

    @Override
    public boolean callerDriven() {
        return inner.callerDriven();
    }

    @Override
    public int progress(long waitNanos) {
        return inner.progress(waitNanos);
    }

    @Override
    public boolean virtualTime() {
        return inner.virtualTime();
    }

    @Override
    public boolean runUntil(java.util.function.BooleanSupplier condition, long timeoutNanos) {
        return inner.runUntil(condition, timeoutNanos);
    }

    @Override
    public void receiver(WireReceiver receiver) {
        inner.receiver(receiver);
    }

    @Override
    public void addTap(WireTap tap) {
        inner.addTap(tap);
    }

    @Override
    public WireCounters counters() {
        return inner.counters();
    }

    @Override
    public void close() {
        inner.close();
    }
}
