package io.rnic.transport.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.rnic.core.packet.BthFlyweight;
import io.rnic.core.packet.Icrc;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.time.Scheduler;
import io.rnic.transport.AbstractWire;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A wire over real UDP sockets with Netty: the HCA binds its own concrete IP address on the
 * RoCEv2 port (4791 unless configured otherwise), receives there, and sends each flow from its
 * own source port for ECMP entropy. Native epoll is used when available, NIO otherwise. Writes
 * are batched and flushed once per event-loop turn.
 */
public final class UdpWire extends AbstractWire {
    private static final Logger LOG = LoggerFactory.getLogger(UdpWire.class);
    /** Largest datagram we expect: 4096-byte MTU plus headers, with room to spare. */
    static final int MAX_DATAGRAM = 9216;

    /** Send sockets per HCA at most: QPs' flows are hashed onto them (a power of two). */
    static final int SOURCE_PORT_POOL = 16;
    /** Datagrams one {@code recvmmsg} may return on native epoll. */
    static final int DATAGRAMS_PER_READ = 8;
    /** The default pace of READ responses ({@link Builder#pace}). */
    public static final long DEFAULT_PACE_BITS_PER_SECOND = 8_000_000_000L;
    /** With GRO a datagram may be a whole GSO train of up to 64 KiB. */
    static final int GRO_DATAGRAM = 65_536;

    private final InetSocketAddress local;
    private final HcaAgent agent;
    private final boolean ownsAgent;
    private final EventLoop loop;
    private final EventLoopScheduler scheduler;
    private final Channel main;
    private final boolean nativeTransport;
    private final boolean ipv4;
    /** Send sockets by source port; an array so the per-packet lookup does not box the port. */
    private final java.util.concurrent.atomic.AtomicReferenceArray<SendSocket> flows =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(65536);
    /** The receive socket as a send socket (flows on the RoCE port send from it). */
    private final SendSocket mainSocket;
    /** The bounded pool of send sockets: slot to source port (0 while unbound). */
    private final int[] poolPorts = new int[SOURCE_PORT_POOL];
    private final List<SendSocket> dirty = new ArrayList<>();
    /** Packets sent in this duty cycle, written at its end (protocol thread only). */
    private ByteBuf[] pendingPackets = new ByteBuf[256];
    private SendSocket[] pendingChannels = new SendSocket[256];
    private InetSocketAddress[] pendingDestinations = new InetSocketAddress[256];
    private int pendingCount;
    /** Where each run of pending packets ends, indexed by its first packet (flush only). */
    private int[] runEnds = new int[256];
    /** Leading pending packets an invoker's cycle held back (acknowledgements only). */
    private int held;
    private final Gso gso;
    private final long paceBitsPerSecond;
    private final Runnable flushTask = this::flushDirty;
    private final ChannelHandler inbound = new Inbound();
    private final io.netty.buffer.ByteBufAllocator allocator;
    private final long epochOffsetNanos;
    private volatile boolean closed;
    private boolean flushScheduled;
    /** {@link #isLocalWire}'s last question and answer, and the version of the set it was asked of. */
    private InetSocketAddress lastAsked;
    private int lastAskedVersion;
    private boolean lastAskedLocal;
    /** Datagrams handed to the pipeline so far, and that count when the last read batch ended (agent thread). */
    private long datagramsRead;
    private long batchStart;
    /** {@link #datagramsRead} at the end of the last invoker cycle. */
    private long readAtCycleEnd;
    /**
     * An invoker's cycle holds its ACKs back only if it read at most this many packets: a
     * ping-pong's (its answer follows at once and takes the ACK along), not a stream's, whose
     * sender waits for the ACK to post more while the application here works through the batch.
     */
    static final int HOLD_ACKS_UP_TO = 4;
    /** The receive socket's read handler, for a duty cycle that reads it without asking epoll first. */
    private final io.netty.channel.IoHandle directRead;

    private UdpWire(Builder b) {
        InetAddress ip = b.address;
        if (ip == null || ip.isAnyLocalAddress()) {
            throw new IllegalArgumentException("a UDP wire must bind a concrete IP address (the ICRC covers it), got " + ip);
        }
        if (b.agent != null) {
            this.agent = b.agent;
            this.ownsAgent = b.ownsAgent;
        } else {
            this.agent = HcaAgent.dedicated(b.idle, b.preferNative);
            this.ownsAgent = true;
        }
        this.nativeTransport = agent.isNative();
        this.ipv4 = ip instanceof java.net.Inet4Address;
        this.paceBitsPerSecond = b.paceBitsPerSecond;
        this.gso = nativeTransport && EpollDatagramChannel.isSegmentedDatagramPacketSupported() ? b.gso : Gso.OFF;
        // A read's buffer from a free list of its own size: Netty's pool costs an arena lookup per
        // read on threads that are not Netty's own (an invoker agent's).
        this.allocator = b.allocator != null ? b.allocator : new io.rnic.transport.PacketBuffers(readSize(nativeTransport, gso), 64);
        agent.retain(this);
        this.loop = agent.loop();
        this.scheduler = new EventLoopScheduler(agent);
        this.epochOffsetNanos = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
        io.netty.channel.ChannelFuture bound;
        try {
            bound = (io.netty.channel.ChannelFuture) agent.await(bootstrap().bind(ip, b.port));
        } catch (RuntimeException e) {
            releaseAgent();
            throw e;
        }
        if (!bound.isSuccess()) {
            releaseAgent();
            throw new io.rnic.verbs.WireException("cannot bind UDP " + ip.getHostAddress() + ":" + b.port + ": "
                    + bound.cause().getMessage(), bound.cause());
        }
        this.main = bound.channel();
        this.local = (InetSocketAddress) main.localAddress();
        this.directRead = nativeTransport && main.unsafe() instanceof io.netty.channel.IoHandle h ? h : null;
        this.mainSocket = new SendSocket(main, false);
        LOCAL_WIRES.add(local);
        LOCAL_WIRES_VERSION.incrementAndGet();
    }

    private void releaseAgent() {
        agent.forget(this);
        if (agent.threading() == HcaAgent.Threading.SHARED) {
            agent.release(); // the shared agent stops with its last wire
        } else if (ownsAgent) {
            agent.close();
        }
    }

    /** Starts building a wire bound to {@code ip}. */
    public static Builder bind(String ip) {
        try {
            return new Builder(InetAddress.getByName(ip));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + ip, e);
        }
    }

    /** Starts building a wire bound to {@code ip}. */
    public static Builder bind(InetAddress ip) {
        return new Builder(ip);
    }

    /** Options of a {@link UdpWire}. */
    public static final class Builder {
        private final InetAddress address;
        private int port = PseudoHeader.ROCE_PORT;
        private boolean preferNative = true;
        private HcaAgent agent;
        private boolean ownsAgent;
        private HcaAgent.Idle idle = HcaAgent.Idle.BACKOFF;
        private Gso gso = Gso.AUTO;
        private long paceBitsPerSecond = DEFAULT_PACE_BITS_PER_SECOND;
        private io.netty.buffer.ByteBufAllocator allocator;

        private Builder(InetAddress address) {
            this.address = address;
        }

        /** The UDP port to receive on; 4791 unless that port is taken in this environment. */
        public Builder port(int port) {
            if (port < 0 || port > 0xFFFF) {
                throw new IllegalArgumentException("UDP port " + port + " is outside 0..65535");
            }
            this.port = port;
            return this;
        }

        /** Whether to use native epoll when available (default true). */
        public Builder preferNative(boolean preferNative) {
            this.preferNative = preferNative;
            return this;
        }

        /**
         * Runs on {@code agent} (shared among wires, or driven by the application's thread)
         * instead of a dedicated agent of its own with the backoff idle strategy. The wire does
         * not close an agent it was given.
         */
        public Builder agent(HcaAgent agent) {
            this.agent = java.util.Objects.requireNonNull(agent, "agent");
            this.ownsAgent = agent.threading() == HcaAgent.Threading.SHARED;
            return this;
        }

        /** Runs on {@code agent} and closes it with the wire (an invoker agent made for this wire). */
        public Builder ownedAgent(HcaAgent agent) {
            this.agent = java.util.Objects.requireNonNull(agent, "agent");
            this.ownsAgent = true;
            return this;
        }

        /**
         * Whether runs of packets may leave as GSO super-datagrams (default {@link Gso#AUTO}:
         * only toward rnic wires in this JVM). Ignored where the kernel or NIO cannot do GSO.
         */
        public Builder gso(Gso gso) {
            this.gso = java.util.Objects.requireNonNull(gso, "gso");
            return this;
        }

        /**
         * The rate at which READ responses leave (default 8 Gb/s: what a receiving rnic HCA on
         * this kind of machine keeps up with; faster, a large READ overflows the receiver's socket
         * buffer and is retried piece by piece). 0 sends a chunk per duty cycle, unpaced.
         */
        public Builder pace(long bitsPerSecond) {
            if (bitsPerSecond < 0) {
                throw new IllegalArgumentException("pace " + bitsPerSecond + " b/s is negative");
            }
            this.paceBitsPerSecond = bitsPerSecond;
            return this;
        }

        /** The idle strategy of the dedicated agent the wire makes when given none (default backoff). */
        public Builder idle(HcaAgent.Idle idle) {
            this.idle = java.util.Objects.requireNonNull(idle, "idle");
            return this;
        }

        /** The allocator of received datagrams (by default a free list of buffers of one read's size). */
        public Builder allocator(io.netty.buffer.ByteBufAllocator allocator) {
            this.allocator = java.util.Objects.requireNonNull(allocator, "allocator");
            return this;
        }

        public UdpWire open() {
            return new UdpWire(this);
        }
    }

    /** The buffer one read of the socket takes. */
    private static int readSize(boolean nativeTransport, Gso gso) {
        if (!nativeTransport) {
            return MAX_DATAGRAM;
        }
        return gso != Gso.OFF ? GRO_DATAGRAM : MAX_DATAGRAM * DATAGRAMS_PER_READ;
    }

    private Bootstrap bootstrap() {
        Bootstrap b = new Bootstrap().group(loop);
        if (nativeTransport && ipv4) {
            // An IPv4 socket, not Netty's default dual-stack IPv6 one: the kernel's UDP paths then
            // skip the IPv4-mapped detour on every send and receive.
            b.channelFactory(() -> new EpollDatagramChannel(io.netty.channel.socket.SocketProtocolFamily.INET));
        } else {
            b.channel(nativeTransport ? EpollDatagramChannel.class : NioDatagramChannel.class);
        }
        b.option(ChannelOption.ALLOCATOR, allocator)
                .option(ChannelOption.SO_RCVBUF, 4 << 20)
                .option(ChannelOption.SO_SNDBUF, 4 << 20)
                .handler(inbound);
        if (nativeTransport && gso != Gso.OFF) {
            // GRO: a GSO train from an rnic peer arrives whole, one train per recvmsg, and Netty
            // slices it into its packets (its recvmmsg path would hand the train over unsliced).
            b.option(EpollChannelOption.UDP_GRO, true)
                    .option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, 0)
                    .option(EpollChannelOption.EPOLL_MODE, io.netty.channel.epoll.EpollMode.LEVEL_TRIGGERED)
                    .option(ChannelOption.RCVBUF_ALLOCATOR,
                            new FixedRecvByteBufAllocator(readSize(true, gso)).maxMessagesPerRead(1));
        } else if (nativeTransport) {
            // recvmmsg: one read returns up to DATAGRAMS_PER_READ datagrams, each a slice of one buffer.
            b.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, MAX_DATAGRAM)
                    .option(ChannelOption.RCVBUF_ALLOCATOR,
                            new FixedRecvByteBufAllocator(readSize(true, gso)).maxMessagesPerRead(64));
        } else {
            b.option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(readSize(false, gso)).maxMessagesPerRead(64));
        }
        return b;
    }

    /** True if this wire runs on native epoll rather than NIO. */
    public boolean isNative() {
        return nativeTransport;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public Scheduler scheduler() {
        return scheduler;
    }

    /** The event loop of this wire's agent (its packets are delivered there). */
    public EventLoop eventLoop() {
        return loop;
    }

    /** Whether this wire sends GSO super-datagrams ({@link Gso#OFF} where the kernel or NIO cannot). */
    public Gso gso() {
        return gso;
    }

    /** The agent whose duty cycle runs this wire. */
    public HcaAgent agent() {
        return agent;
    }

    @Override
    public long paceBitsPerSecond() {
        return paceBitsPerSecond;
    }

    @Override
    public boolean callerDriven() {
        return agent.isInvoker();
    }

    @Override
    public int progress(long waitNanos) {
        if (!agent.isInvoker() || !agent.inAgentThread() || closed) {
            return 0;
        }
        return waitNanos < 0 ? agent.doWork(-1) : agent.doWorkIdling(waitNanos);
    }

    /** Netty's "the socket is readable" event, which its epoll handler would deliver. */
    private static final io.netty.channel.epoll.EpollIoEvent READABLE = () -> io.netty.channel.epoll.EpollIoOps.EPOLLIN;

    /**
     * Reads the receive socket once without asking epoll first (agent thread): a spinning duty
     * cycle saves the {@code epoll_wait} before each {@code recvmsg}, which is a fifth of a
     * loopback round trip. Netty's read path runs as if epoll had reported the socket readable
     * (it stops at {@code EAGAIN}), so packets go through the same pipeline either way.
     *
     * @return the datagrams read (0 if the socket was empty or the wire cannot read directly)
     */
    int readDirect() {
        if (directRead == null || closed || !main.isActive()) {
            return 0;
        }
        long before = datagramsRead;
        directRead.handle(null, READABLE);
        return (int) (datagramsRead - before);
    }

    /** True if {@link #readDirect} can read this wire's socket. */
    boolean readsDirectly() {
        return directRead != null;
    }

    /**
     * Finds the send socket for a flow that would like {@code preferredSourcePort}. Flows are
     * hashed onto a pool of at most {@link #SOURCE_PORT_POOL} sockets, so an HCA with thousands
     * of QPs holds a bounded number of sockets and the source port still varies between flows
     * (ECMP entropy). A pool slot's socket is bound, on the flow's preferred port if free, by
     * the first flow that hashes to it; binding can block, so from the agent's own dedicated
     * thread, or when binding fails, the flow uses the receive port. The returned port is the
     * one the flow's packets will carry.
     */
    @Override
    public int openFlow(int preferredSourcePort) {
        if ((preferredSourcePort & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("UDP source port " + preferredSourcePort + " is outside 0..65535");
        }
        if (closed || preferredSourcePort == local.getPort() || preferredSourcePort == 0) {
            return local.getPort();
        }
        int slot = (preferredSourcePort * 0x9E3779B1) >>> (32 - Integer.numberOfTrailingZeros(SOURCE_PORT_POOL));
        synchronized (poolPorts) {
            if (poolPorts[slot] != 0) {
                return poolPorts[slot];
            }
            if (loop.inEventLoop() && !agent.isInvoker()) {
                return local.getPort();
            }
        }
        // Bind without the lock: the agent thread completes the bind, and it may be waiting for
        // the lock itself (a QP reaching RTR on the protocol thread looks its flow up here while
        // an application thread opens another), which would deadlock the two.
        io.netty.channel.ChannelFuture f = (io.netty.channel.ChannelFuture)
                agent.await(bootstrap().bind(local.getAddress(), preferredSourcePort));
        if (!f.isSuccess()) {
            LOG.debug("source port {} unavailable on {}, trying another", preferredSourcePort, local, f.cause());
            f = (io.netty.channel.ChannelFuture) agent.await(bootstrap().bind(local.getAddress(), 0));
            if (!f.isSuccess()) {
                return local.getPort();
            }
        }
        synchronized (poolPorts) {
            if (poolPorts[slot] != 0 || closed) { // another thread filled the slot meanwhile: use its socket
                f.channel().close();
                return closed ? local.getPort() : poolPorts[slot];
            }
            int port = ((InetSocketAddress) f.channel().localAddress()).getPort();
            flows.set(port, new SendSocket(f.channel(), true));
            poolPorts[slot] = port;
            return port;
        }
    }

    /** The addresses of the UDP wires open in this JVM: rnic receivers, for {@link Gso#AUTO}. */
    private static final java.util.Set<InetSocketAddress> LOCAL_WIRES = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Bumped after every change to {@link #LOCAL_WIRES}: a wire's remembered answer is then asked again. */
    private static final java.util.concurrent.atomic.AtomicInteger LOCAL_WIRES_VERSION = new java.util.concurrent.atomic.AtomicInteger();
    /** A GSO super-datagram holds at most this many segments (the kernel's UDP_MAX_SEGMENTS). */
    static final int MAX_SEGMENTS = 64;
    /** ... and at most this many bytes of UDP payload. */
    static final int MAX_GSO_BYTES = 65_000;


    @Override
    public void send(ByteBuf packet, int sourcePort, InetSocketAddress destination) {
        if (closed) {
            counters.sendError();
            packet.release();
            return;
        }
        if (!loop.inEventLoop()) {
            try {
                loop.execute(() -> send(packet, sourcePort, destination));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                counters.sendError();
                packet.release();
            }
            return;
        }
        SendSocket ch = sourcePort == local.getPort() ? mainSocket : flows.get(sourcePort);
        if (closed || ch == null || !ch.channel.isActive() || destination == null) {
            counters.sendError();
            packet.release();
            return;
        }
        InetSocketAddress src = ch.local;
        // Taps see every packet on its own, GSO or not: a wire's --pcap records individual packets.
        sending(packet, src, destination, tapped() ? epochOffsetNanos + System.nanoTime() : 0);
        if (pendingCount == pendingPackets.length) {
            growPending();
        }
        pendingPackets[pendingCount] = packet;
        pendingChannels[pendingCount] = ch;
        pendingDestinations[pendingCount] = destination;
        pendingCount++;
        if (pendingCount >= MAX_SEGMENTS && held == 0) {
            // A full train's worth pending (one train when it goes to one peer, as a burst does)
            // gains nothing by waiting for the end of the cycle, and the receiver can start on it
            // while the rest of the burst is being built.
            flushDirty();
            return;
        }
        if (!flushScheduled && !agent.isInvoker()) {
            // An invoker agent flushes at its cycle's edges instead (HcaAgent.doWork).
            flushScheduled = true;
            loop.execute(flushTask);
        }
    }

    /**
     * Sends what is pending now (an application waits on the last packet): its ACK's round trip
     * then overlaps the rest of the burst. Not while an invoker holds ACKs for its next cycle.
     */
    @Override
    public void flushNow() {
        if (pendingCount > 0 && held == 0 && !closed && loop.inEventLoop()) {
            flushDirty();
        }
    }

    private void growPending() {
        int n = pendingPackets.length * 2;
        pendingPackets = java.util.Arrays.copyOf(pendingPackets, n);
        pendingChannels = java.util.Arrays.copyOf(pendingChannels, n);
        pendingDestinations = java.util.Arrays.copyOf(pendingDestinations, n);
    }

    /**
     * Called by an invoker agent at the edges of its duty cycle. With {@code holdAcks} a cycle's
     * output that is only acknowledgements waits for the next cycle, which starts with the
     * application's new requests: a ping-pong's ACK and answer then leave in one flush, and the
     * answer does not wait behind a system call for the ACK. The next cycle starts when the
     * application polls or waits again, and always flushes first.
     */
    void endOfCycle(boolean holdAcks) {
        if (pendingCount == 0 || closed) {
            return;
        }
        long readThisCycle = datagramsRead - readAtCycleEnd;
        readAtCycleEnd = datagramsRead;
        if (holdAcks && readThisCycle <= HOLD_ACKS_UP_TO && onlyAcks()) {
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
        flushDirty();
    }

    /** The peer the pooled socket of {@code sourcePort} is connected to, or null (for tests; any thread). */
    InetSocketAddress connectedPeer(int sourcePort) {
        return loop.submit(() -> {
            SendSocket ch = flows.get(sourcePort);
            return ch == null ? null : ch.peer();
        }).syncUninterruptibly().getNow();
    }

    /** Packets an invoker's last cycle held back for its next one (for tests). */
    int heldPackets() {
        return held;
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
    private void flushDirty() {
        flushScheduled = false;
        if (closed) {
            discardPending(); // the sockets are gone: the packets are released, not written
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
     * destination, up to {@link #MAX_SEGMENTS} and {@link #MAX_GSO_BYTES}.
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
        while (end < n && end - i < MAX_SEGMENTS && pendingChannels[end] == ch && dst.equals(pendingDestinations[end])) {
            int len = pendingPackets[end].readableBytes();
            if (len > size || bytes + len > MAX_GSO_BYTES) {
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

    private void discardPending() {
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

    /** Linux's SOL_UDP and UDP_SEGMENT (linux/udp.h): the GSO segment size as a socket option. */
    private static final int SOL_UDP = 17;
    private static final int UDP_SEGMENT = 103;

    /**
     * A socket the wire sends from. On native epoll a run of packets that is the socket's whole
     * output in a duty cycle leaves with one {@code sendto} on the socket itself, past Netty's
     * outbound pipeline (its per-datagram objects and its {@code sendmmsg} bookkeeping cost more
     * than the system call on a round trip); a GSO train sets the segment size as a socket
     * option, which stays until a train of another size or a longer single datagram needs it
     * changed. Everything else, and whatever Netty still holds, goes through Netty's pipeline.
     */
    private final class SendSocket {
        final Channel channel;
        final InetSocketAddress local;
        /** The socket itself on native epoll; null on NIO, or once setting the segment size failed. */
        private io.netty.channel.unix.Socket fd;
        /** UDP_SEGMENT as last set on the socket (0: none). */
        private int segmentSize;
        /** True while the cycle's flush has written to this socket through Netty. */
        boolean inNettyFlush;
        /** Runs of packets the flush under way has for this socket. */
        int runs;
        /**
         * Whether the socket is to be connected to the first peer it sends to: a pooled
         * source-port socket, whose packets then take the route the kernel keeps with the socket
         * instead of looking one up per system call (about a quarter of a microsecond of each
         * {@code sendto} on loopback). Never the receive socket: connected, it would hear only
         * that peer.
         */
        private boolean connects;
        /** The peer the socket is connected to (null: none); its other peers get {@code sendto}. */
        private InetSocketAddress peer;

        SendSocket(Channel channel, boolean connects) {
            this.channel = channel;
            this.connects = connects;
            this.local = (InetSocketAddress) channel.localAddress();
            this.fd = channel instanceof EpollDatagramChannel e && e.fd() instanceof io.netty.channel.unix.Socket so ? so : null;
        }

        /**
         * Sends {@code payload} (a GSO train of {@code segment}-byte segments, or one datagram
         * if {@code segment} is 0) with one system call and releases it; false if it must go
         * through Netty instead (NIO, Netty holds earlier writes, no native address, or the
         * socket buffer is full), with nothing sent and {@code payload} still held.
         */
        boolean sendDirectly(ByteBuf payload, int segment, InetSocketAddress dst) {
            io.netty.channel.unix.Socket so = fd;
            if (so == null || inNettyFlush || !payload.hasMemoryAddress() || !channel.isActive()
                    || !channel.unsafe().outboundBuffer().isEmpty()) {
                return false;
            }
            int len = payload.readableBytes();
            int want = segment != 0 ? segment : (segmentSize != 0 && len > segmentSize ? 0 : segmentSize);
            if (want != segmentSize && !setSegmentSize(want)) {
                return false;
            }
            int at = payload.readerIndex();
            long address = payload.memoryAddress();
            try {
                if (peer == null && connects) {
                    connect(so, dst);
                }
                int sent = dst.equals(peer)
                        ? so.sendAddress(address, at, at + len)
                        : so.sendToAddress(address, at, at + len, dst.getAddress(), dst.getPort());
                if (sent == 0) {
                    return false; // EAGAIN: Netty queues it and writes when the socket drains
                }
            } catch (java.io.IOException e) {
                counters.sendError();
                LOG.debug("send from {} to {} failed", local, dst, e);
                if (segmentSize != 0) {
                    // A segment size the path cannot carry (larger than its MTU allows) would fail
                    // every later send of the socket, other flows' too: the next train sets it again.
                    setSegmentSize(0);
                }
            }
            payload.release();
            return true;
        }

        /**
         * Connects the socket to {@code dst}, once. A port-unreachable error from that peer then
         * fails the next send or read on this socket (counted as a send error); an unconnected
         * socket drops it silently. Either way the packet is lost and RC's retry covers it.
         */
        private void connect(io.netty.channel.unix.Socket so, InetSocketAddress dst) {
            connects = false;
            try {
                so.connect(dst);
                peer = dst;
            } catch (java.io.IOException e) {
                LOG.debug("{} stays unconnected: connecting it to {} failed", local, dst, e);
            }
        }

        /** The peer the socket is connected to, or null (for tests). */
        InetSocketAddress peer() {
            return peer;
        }

        /** Before Netty writes a plain datagram: a socket-wide segment size would split it. */
        void clearSegmentSize() {
            if (segmentSize != 0 && !setSegmentSize(0)) {
                LOG.warn("cannot clear UDP_SEGMENT on {}: closing it", local);
                channel.close();
            }
        }

        private boolean setSegmentSize(int size) {
            try {
                fd.setIntOpt(SOL_UDP, UDP_SEGMENT, size);
                segmentSize = size;
                return true;
            } catch (java.io.IOException e) {
                LOG.debug("UDP_SEGMENT {} on {} refused; sending through Netty", size, local, e);
                if (segmentSize == 0) {
                    fd = null; // the kernel has none: no direct trains, and no option to undo
                }
                return false;
            }
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * Closes every socket (freeing the port) and the agent if the wire made its own (or leaves
     * the shared agent). Packets sent afterwards are released and counted as send errors. On an
     * invoker agent, call it from the agent's thread.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (pendingCount > 0 && loop.inEventLoop()) {
            flushDirty(); // what an invoker's last cycle held back still leaves
        }
        closed = true;
        LOCAL_WIRES.remove(local);
        LOCAL_WIRES_VERSION.incrementAndGet();
        List<Channel> all = new ArrayList<>();
        synchronized (poolPorts) { // after this, openFlow sees closed and closes what it bound itself
            for (int port : poolPorts) {
                SendSocket ch = port == 0 ? null : flows.get(port);
                if (ch != null) {
                    all.add(ch.channel);
                }
            }
        }
        all.add(main);
        for (Channel ch : all) {
            if (loop.inEventLoop() && !agent.isInvoker()) {
                ch.close();
            } else if (loop.inEventLoop() || !agent.isInvoker()) {
                agent.await(ch.close());
            } else {
                ch.close(); // an invoker's sockets close when its thread next drives it
            }
        }
        if (loop.inEventLoop()) {
            discardPending();
        } else if (!flushScheduled) {
            try {
                loop.execute(this::discardPending);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                LOG.debug("{} closed with its agent already stopped; {} packets not released", this, pendingCount);
            }
        }
        releaseAgent();
    }

    @Override
    public String toString() {
        return "UdpWire[" + local.getAddress().getHostAddress() + ":" + local.getPort() + (nativeTransport ? " epoll]" : " nio]");
    }

    /** Hands datagrams to the receiver; drops and counts malformed ones; never lets an exception out. */
    @ChannelHandler.Sharable
    private final class Inbound extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            datagramsRead++;
            if (!(msg instanceof DatagramPacket dp)) {
                io.netty.util.ReferenceCountUtil.release(msg);
                return;
            }
            try {
                ByteBuf content = dp.content();
                int len = content.readableBytes();
                if (closed) {
                    return;
                }
                if (len < BthFlyweight.LENGTH + Icrc.LENGTH || (len & 3) != 0) {
                    counters.malformed();
                    return;
                }
                // The JDK and Netty hand up no IP_RECVTOS: the TOS byte is unknown here, not 0.
                handOver(content, dp.sender(), local, tapped() ? epochOffsetNanos + System.nanoTime() : 0, false,
                        io.rnic.core.wire.PacketSink.TOS_UNKNOWN);
            } catch (RuntimeException e) {
                counters.handlerError();
                LOG.debug("receiver of {} threw", local, e);
            } finally {
                dp.release();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            // The end of one read of the socket: coalesced ACKs leave now, flushed with the rest.
            // A read that found the socket empty (a spinning cycle's direct read) ends no batch.
            if (!closed && datagramsRead != batchStart) {
                batchStart = datagramsRead;
                batchEnd();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            counters.sendError();
            LOG.debug("socket error on {}", ctx.channel(), cause);
        }
    }
}
