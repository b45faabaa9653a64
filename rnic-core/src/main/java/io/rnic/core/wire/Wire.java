package io.rnic.core.wire;

import io.netty.buffer.ByteBuf;
import io.rnic.core.time.Scheduler;
import java.net.InetSocketAddress;

/**
 * The seam between an HCA and the network. Every wire carries the same bytes: a RoCEv2 packet
 * from the BTH through the ICRC, as the UDP payload.
 *
 * <p>Buffer ownership: {@link #send} takes ownership of the buffer and releases it exactly once,
 * whatever happens to the packet (delivered, dropped by a fault, refused because the wire is
 * closed). A {@link WireReceiver} borrows the buffer it is given: the wire releases it when the
 * receiver returns, so a receiver that keeps the packet must {@code retain()} it.
 *
 * <p>Threading: packets are delivered, and {@link #scheduler()} tasks run, on the wire's one
 * protocol thread (the simulator's thread, or the UDP wire's event loop).
 *
 * <p>A wire is the HCA's {@link PacketSink}: the device hands it to the protocol core as it is.
 */
public interface Wire extends PacketSink, AutoCloseable {

    /** The IP address and UDP port this HCA port is bound to; never a wildcard address. */
    InetSocketAddress localAddress();

    /** The clock and timer service of the thread that delivers this wire's packets. */
    Scheduler scheduler();

    /**
     * Prepares to send from UDP source port {@code preferredSourcePort} (RoCEv2 flow entropy)
     * and returns the source port packets will actually carry. The ICRC covers the source port,
     * so senders must compute it with the returned value.
     */
    @Override
    int openFlow(int preferredSourcePort);

    /**
     * Sends one packet to {@code destination} from {@code sourcePort} (a value returned by
     * {@link #openFlow}). Takes ownership of {@code packet}; the packet is the buffer's readable
     * bytes.
     */
    @Override
    void send(ByteBuf packet, int sourcePort, InetSocketAddress destination);

    /**
     * True if no thread of the wire's own delivers its packets: the application thread that
     * drives it must call {@link #progress} (the UDP wire on an invoker agent).
     */
    default boolean callerDriven() {
        return false;
    }

    /**
     * Runs one duty cycle of a {@linkplain #callerDriven caller-driven} wire on the calling
     * thread, first waiting up to {@code waitNanos} for work (0: until there is some; -1: not
     * at all). Returns the work done; 0 on any other wire, or from any other thread.
     */
    default int progress(long waitNanos) {
        return 0;
    }

    /**
     * True if time on this wire is virtual: it passes only while someone runs the network (the
     * simulated network). Waiting for something on such a wire means running it with
     * {@link #runUntil}, never blocking the thread, which is the one that would run it.
     */
    default boolean virtualTime() {
        return false;
    }

    /**
     * On a {@linkplain #virtualTime virtual-time} wire, runs the network until {@code condition}
     * holds, nothing is left to happen, or {@code timeoutNanos} of virtual time have passed; on
     * any other wire, only looks. Returns whether {@code condition} holds.
     */
    default boolean runUntil(java.util.function.BooleanSupplier condition, long timeoutNanos) {
        return condition.getAsBoolean();
    }

    /**
     * The seed a run on this wire is fixed by, for what the device on it draws at random (memory
     * keys), or empty on a real network, where keys should not be guessable. The simulated
     * network derives one from its own seed, so the same seed gives the same bytes.
     */
    default java.util.OptionalLong seed() {
        return java.util.OptionalLong.empty();
    }

    /** Sets the handler of received packets (replacing any earlier one). */
    void receiver(WireReceiver receiver);

    /** Adds an observer of every packet this wire sends and receives, for capture. */
    void addTap(WireTap tap);

    /** This wire's counters. */
    WireCounters counters();

    /** Stops the wire: later sends are refused (and their buffers released); resources are freed. */
    @Override
    void close();
}
