package io.rnic.transport.udp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramPacket;
import io.rnic.core.wire.WireCounters;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The packets a UDP wire sent in this duty cycle, written at its end (protocol thread only): runs
 * of packets of one size from one socket to one destination leave as GSO super-datagrams where
 * {@link Gso} allows it, a socket with one run sends it with one system call of its own, and an
 * invoker's cycle may hold its acknowledgements back for the next cycle's answer.
 */
final class SendBatch {
    /** The wire's logger: its sends log under the wire's name. */
    private static final Logger LOG = LoggerFactory.getLogger(UdpWire.class);
    /** The addresses of the UDP wires open in this JVM: rnic receivers, for {@link Gso#AUTO}. */
    private static final java.util.Set<InetSocketAddress> LOCAL_WIRES = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Bumped after every change to {@link #LOCAL_WIRES}: a wire's remembered answer is then asked again. */
    private static final java.util.concurrent.atomic.AtomicInteger LOCAL_WIRES_VERSION = new java.util.concurrent.atomic.AtomicInteger();

    private final UdpWire wire;
    private final HcaAgent agent;
    private final EventLoop loop;
    private final Gso gso;
    private final ByteBufAllocator allocator;
    private final WireCounters counters;
    private final List<SendSocket> dirty = new ArrayList<>();
    private ByteBuf[] pendingPackets = new ByteBuf[256];
    private SendSocket[] pendingChannels = new SendSocket[256];
    private InetSocketAddress[] pendingDestinations = new InetSocketAddress[256];
    private int pendingCount;
    /** Where each run of pending packets ends, indexed by its first packet (flush only). */
    private int[] runEnds = new int[256];
    /** Leading pending packets an invoker's cycle held back (acknowledgements only). */
    private int held;
    private final Runnable flushTask = this::flush;
    private boolean flushScheduled;
    /** {@link #isLocalWire}'s last question and answer, and the version of the set it was asked of. */
    private InetSocketAddress lastAsked;
    private int lastAskedVersion;
    private boolean lastAskedLocal;

    SendBatch(UdpWire wire, HcaAgent agent, Gso gso, ByteBufAllocator allocator) {
        this.wire = wire;
        this.agent = agent;
        this.loop = agent.loop();
        this.gso = gso;
        this.allocator = allocator;
        this.counters = wire.counters();
    }

    /** A wire of this JVM opened at {@code local}: a receiver {@link Gso#AUTO} sends trains to. */
    static void localWireOpened(InetSocketAddress local) {
        LOCAL_WIRES.add(local);
        LOCAL_WIRES_VERSION.incrementAndGet();
    }

    /** The wire of this JVM at {@code local} closed. */
    static void localWireClosed(InetSocketAddress local) {
        LOCAL_WIRES.remove(local);
        LOCAL_WIRES_VERSION.incrementAndGet();
    }

    /**
     * Adds a packet to the cycle's output (agent thread). A full train's worth pending is written
     * at once; otherwise the flush is scheduled for the end of the event-loop turn, except on an
     * invoker agent, which flushes at its cycle's edges.
     */
    void add(ByteBuf packet, SendSocket ch, InetSocketAddress destination) {
        if (pendingCount == pendingPackets.length) {
            growPending();
        }
        pendingPackets[pendingCount] = packet;
        pendingChannels[pendingCount] = ch;
        pendingDestinations[pendingCount] = destination;
        pendingCount++;
        if (pendingCount >= UdpWire.MAX_SEGMENTS && held == 0) {
            // A full train's worth pending (one train when it goes to one peer, as a burst does)
            // gains nothing by waiting for the end of the cycle, and the receiver can start on it
            // while the rest of the burst is being built.
            flush();
            return;
        }
        if (!flushScheduled && !agent.isInvoker()) {
            // An invoker agent flushes at its cycle's edges instead (HcaAgent.doWork).
            flushScheduled = true;
            loop.execute(flushTask);
        }
    }

    /** True if nothing is pending. */
    boolean isEmpty() {
        return pendingCount == 0;
    }

    /**
     * Sends what is pending now (an application waits on the last packet): its ACK's round trip
     * then overlaps the rest of the burst. Not while an invoker holds ACKs for its next cycle.
     */
    void flushNow() {
        if (pendingCount > 0 && held == 0 && !wire.isClosed() && loop.inEventLoop()) {
            flush();
        }
    }

    /**
     * The end of an invoker's duty cycle, with something pending: with {@code holdAcks}, output
     * that is only acknowledgements waits for the next cycle; otherwise everything leaves, the
     * new requests ahead of ACKs held from the last cycle.
     */
    void endOfCycle(boolean holdAcks) {
        if (holdAcks && onlyAcks()) {
            held = pendingCount;
            return;
        }
        if (held > 0 && held < pendingCount) {
            // The new requests first, the held ACKs after them: to one peer, a request and a
            // shorter ACK make one GSO train (only the last segment may be shorter), which the
            // peer then reads with one recvmsg. An ACK and a request are answered by different
            // engines of the peer's QP, which the order between them does not concern.
            rotate(held);
        }
        held = 0;
        flush();
    }

    /** Packets an invoker's last cycle held back for its next one (for tests). */
    int heldPackets() {
        return held;
    }

    private void growPending() {
        int n = pendingPackets.length * 2;
        pendingPackets = java.util.Arrays.copyOf(pendingPackets, n);
        pendingChannels = java.util.Arrays.copyOf(pendingChannels, n);
        pendingDestinations = java.util.Arrays.copyOf(pendingDestinations, n);
    }

    /** Moves the first {@code n} pending packets behind the others, keeping each group's order. */
    private void rotate(int n) {
        reverse(0, n);
        reverse(n, pendingCount);
        reverse(0, pendingCount);
    }

    private void reverse(int from, int to) {
        for (int i = from, j = to - 1; i < j; i++, j--) {
            ByteBuf p = pendingPackets[i];
            pendingPackets[i] = pendingPackets[j];
            pendingPackets[j] = p;
            SendSocket c = pendingChannels[i];
            pendingChannels[i] = pendingChannels[j];
            pendingChannels[j] = c;
            InetSocketAddress d = pendingDestinations[i];
            pendingDestinations[i] = pendingDestinations[j];
            pendingDestinations[j] = d;
        }
    }

    private boolean onlyAcks() {
        for (int i = 0; i < pendingCount; i++) {
            ByteBuf p = pendingPackets[i];
            // BTH byte 0 is the opcode; ACKNOWLEDGE is 0x11 in every transport's opcode block.
            if ((p.getUnsignedByte(p.readerIndex()) & 0x1F) != 0x11) {
                return false;
            }
        }
        return true;
    }

    /**
     * Writes what this duty cycle sent, in order: a run of packets of one size (the last may be
     * shorter) from one socket to one destination leaves as one GSO super-datagram where
     * {@link #gso} allows it, every other packet as a datagram of its own. A socket with one run
     * sends it with one system call of its own ({@link SendSocket}); a socket with several hands
     * them to Netty, which writes them with one {@code sendmmsg} when it flushes the socket.
     */
    void flush() {
        flushScheduled = false;
        if (wire.isClosed()) {
            discard(); // the sockets are gone: the packets are released, not written
            return;
        }
        int n = pendingCount;
        if (runEnds.length < pendingPackets.length) {
            runEnds = new int[pendingPackets.length];
        }
        // First the runs, and how many each socket has: a socket with one run sends it directly,
        // one with several hands them all to Netty, whose one sendmmsg beats a sendto per run.
        for (int i = 0; i < n; i = runEnds[i]) {
            runEnds[i] = runEnd(i, n);
            pendingChannels[i].runs++;
        }
        for (int i = 0; i < n; i = runEnds[i]) {
            SendSocket ch = pendingChannels[i];
            InetSocketAddress dst = pendingDestinations[i];
            int end = runEnds[i];
            boolean direct = ch.runs == 1;
            if (end - i > 1) {
                int size = pendingPackets[i].readableBytes();
                ByteBuf train = train(i, end);
                counters.gsoSent(end - i);
                if (!direct || !ch.sendDirectly(train, size, dst)) {
                    netty(ch).write(new io.netty.channel.epoll.SegmentedDatagramPacket(train, size, dst, ch.local),
                            ch.channel.voidPromise());
                }
            } else if (!direct || !ch.sendDirectly(pendingPackets[i], 0, dst)) {
                netty(ch).write(new DatagramPacket(pendingPackets[i], dst, ch.local), ch.channel.voidPromise());
            }
        }
        for (int i = 0; i < n; i = runEnds[i]) {
            pendingChannels[i].runs = 0;
        }
        java.util.Arrays.fill(pendingPackets, 0, n, null);
        java.util.Arrays.fill(pendingChannels, 0, n, null);
        java.util.Arrays.fill(pendingDestinations, 0, n, null);
        pendingCount = 0;
        for (int k = 0; k < dirty.size(); k++) {
            SendSocket d = dirty.get(k);
            d.inNettyFlush = false;
            d.channel.flush();
        }
        dirty.clear();
    }

    /**
     * The end of the run of pending packets that starts at {@code i}: one packet, or where
     * {@link #gso} allows, packets of one size (the last may be shorter) from one socket to one
     * destination, up to {@link UdpWire#MAX_SEGMENTS} and {@link UdpWire#MAX_GSO_BYTES}.
     */
    private int runEnd(int i, int n) {
        SendSocket ch = pendingChannels[i];
        InetSocketAddress dst = pendingDestinations[i];
        int end = i + 1;
        if (!gsoAllowed(dst)) {
            return end;
        }
        int size = pendingPackets[i].readableBytes();
        long bytes = size;
        while (end < n && end - i < UdpWire.MAX_SEGMENTS && pendingChannels[end] == ch && dst.equals(pendingDestinations[end])) {
            int len = pendingPackets[end].readableBytes();
            if (len > size || bytes + len > UdpWire.MAX_GSO_BYTES) {
                break;
            }
            bytes += len;
            end++;
            if (len < size) {
                break; // a shorter segment can only be the last
            }
        }
        return end;
    }

    /**
     * The socket's Netty channel for a write that goes through Netty's pipeline, which is then
     * flushed at the end of the cycle; every later packet of the cycle on that socket follows it
     * there, so that nothing overtakes what Netty holds.
     */
    private Channel netty(SendSocket ch) {
        if (!ch.inNettyFlush) {
            ch.inNettyFlush = true;
            dirty.add(ch);
        }
        ch.clearSegmentSize();
        return ch.channel;
    }

    /** Before the wire closes (agent thread): what is pending, an invoker's held ACKs too, still leaves. */
    void flushBeforeClose() {
        if (pendingCount > 0 && loop.inEventLoop()) {
            flush();
        }
    }

    /** Releases what is pending, unsent, each counted as a send error. */
    void discard() {
        for (int i = 0; i < pendingCount; i++) {
            pendingPackets[i].release();
            counters.sendError();
        }
        java.util.Arrays.fill(pendingPackets, 0, pendingCount, null);
        java.util.Arrays.fill(pendingChannels, 0, pendingCount, null);
        java.util.Arrays.fill(pendingDestinations, 0, pendingCount, null);
        pendingCount = 0;
        held = 0;
    }

    /**
     * The wire closed (any thread): what is pending is released, on the agent's thread, unless
     * a scheduled flush will do it there anyway.
     */
    void discardAfterClose() {
        if (loop.inEventLoop()) {
            discard();
        } else if (!flushScheduled) {
            try {
                loop.execute(this::discard);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                LOG.debug("{} closed with its agent already stopped; {} packets not released", wire, pendingCount);
            }
        }
    }

    private boolean gsoAllowed(InetSocketAddress destination) {
        return switch (gso) {
            case OFF -> false;
            case ON -> true;
            case AUTO -> isLocalWire(destination);
        };
    }

    /**
     * Whether {@code destination} is a wire of this JVM, remembered for the last destination asked
     * about: a burst asks about the same address object at every run, and the set's lookup hashes
     * and compares addresses each time.
     */
    private boolean isLocalWire(InetSocketAddress destination) {
        int version = LOCAL_WIRES_VERSION.get();
        if (destination != lastAsked || version != lastAskedVersion) {
            lastAskedLocal = LOCAL_WIRES.contains(destination);
            lastAsked = destination;
            lastAskedVersion = version;
        }
        return lastAskedLocal;
    }

    /** Packets {@code [from, to)} copied into one buffer, a GSO super-datagram's payload; the packets are released. */
    private ByteBuf train(int from, int to) {
        int total = 0;
        for (int k = from; k < to; k++) {
            total += pendingPackets[k].readableBytes();
        }
        ByteBuf train = allocator.directBuffer(total);
        for (int k = from; k < to; k++) {
            ByteBuf p = pendingPackets[k];
            train.writeBytes(p, p.readerIndex(), p.readableBytes());
            p.release();
        }
        return train;
    }
}
