package io.rnic.transport.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.time.Scheduler;
import io.rnic.transport.AbstractWire;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * A wire over real UDP sockets with Netty: the HCA binds its own concrete IP address on the
 * RoCEv2 port (4791 unless configured otherwise), receives there, and sends each flow from its
 * own source port for ECMP entropy. Native epoll is used when available, NIO otherwise. Writes
 * are batched and flushed once per event-loop turn.
 *
 * <p>This class is the wire's face and its life cycle (options, binding, closing); its parts
 * are the sockets it sends from ({@code SourcePorts}, each a {@code SendSocket}), the batch of
 * packets a duty cycle sends, written in GSO trains ({@code SendBatch}), and the receive side
 * ({@code ReceiveLoop}).
 */
public final class UdpWire extends AbstractWire {
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

    /** A GSO super-datagram holds at most this many segments (the kernel's UDP_MAX_SEGMENTS). */
    static final int MAX_SEGMENTS = 64;
    /** ... and at most this many bytes of UDP payload. */
    static final int MAX_GSO_BYTES = 65_000;
    /**
     * An invoker's cycle holds its ACKs back only if it read at most this many packets: a
     * ping-pong's (its answer follows at once and takes the ACK along), not a stream's, whose
     * sender waits for the ACK to post more while the application here works through the batch.
     */
    static final int HOLD_ACKS_UP_TO = 4;

    private final InetSocketAddress local;
    private final HcaAgent agent;
    private final boolean ownsAgent;
    private final EventLoop loop;
    private final EventLoopScheduler scheduler;
    private final Channel main;
    private final boolean nativeTransport;
    private final boolean ipv4;
    private final Gso gso;
    private final long paceBitsPerSecond;
    private final io.netty.buffer.ByteBufAllocator allocator;
    private final long epochOffsetNanos;
    private volatile boolean closed;
    /** The sockets it sends from: the receive socket and the pool of source-port sockets. */
    private final SourcePorts ports;
    /** What this duty cycle sent, written at its end, in GSO trains where it may. */
    private final SendBatch batch;
    /** The sockets' channel handler and the direct read. */
    private final ReceiveLoop receiver = new ReceiveLoop(this);

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
        this.batch = new SendBatch(this, agent, gso, allocator);
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
        receiver.bound(main, nativeTransport);
        this.ports = new SourcePorts(this, agent, main);
        SendBatch.localWireOpened(local);
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

    /** A bootstrap for the wire's sockets: its agent's loop, its allocator and buffers, its handler. */
    Bootstrap bootstrap() {
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
                .handler(receiver);
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

    /** Reads the receive socket once without asking epoll first ({@link ReceiveLoop#readDirect}). */
    int readDirect() {
        return receiver.readDirect();
    }

    /** True if {@link #readDirect} can read this wire's socket. */
    boolean readsDirectly() {
        return receiver.readsDirectly();
    }

    /**
     * Finds the send socket for a flow that would like {@code preferredSourcePort}: one of a
     * bounded pool of source-port sockets ({@code SourcePorts.openFlow}). The returned port is
     * the one the flow's packets will carry.
     */
    @Override
    public int openFlow(int preferredSourcePort) {
        return ports.openFlow(preferredSourcePort);
    }

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
        SendSocket ch = ports.socketFor(sourcePort);
        if (closed || ch == null || !ch.channel.isActive() || destination == null) {
            counters.sendError();
            packet.release();
            return;
        }
        InetSocketAddress src = ch.local;
        // Taps see every packet on its own, GSO or not: a wire's --pcap records individual packets.
        sending(packet, src, destination, tapped() ? epochOffsetNanos + System.nanoTime() : 0);
        batch.add(packet, ch, destination);
    }

    /**
     * Sends what is pending now (an application waits on the last packet): its ACK's round trip
     * then overlaps the rest of the burst. Not while an invoker holds ACKs for its next cycle.
     */
    @Override
    public void flushNow() {
        batch.flushNow();
    }

    /**
     * Called by an invoker agent at the edges of its duty cycle. With {@code holdAcks} a cycle's
     * output that is only acknowledgements waits for the next cycle, which starts with the
     * application's new requests: a ping-pong's ACK and answer then leave in one flush, and the
     * answer does not wait behind a system call for the ACK. The next cycle starts when the
     * application polls or waits again, and always flushes first.
     */
    void endOfCycle(boolean holdAcks) {
        if (batch.isEmpty() || closed) {
            return;
        }
        long readThisCycle = receiver.readThisCycle();
        batch.endOfCycle(holdAcks && readThisCycle <= HOLD_ACKS_UP_TO);
    }

    /** The peer the pooled socket of {@code sourcePort} is connected to, or null (for tests; any thread). */
    InetSocketAddress connectedPeer(int sourcePort) {
        return loop.submit(() -> ports.connectedPeer(sourcePort)).syncUninterruptibly().getNow();
    }

    /** Packets an invoker's last cycle held back for its next one (for tests). */
    int heldPackets() {
        return batch.heldPackets();
    }

    /** A datagram {@link ReceiveLoop} accepted: counted, tapped and handed to the receiver. */
    void received(ByteBuf content, InetSocketAddress sender) {
        // The JDK and Netty hand up no IP_RECVTOS: the TOS byte is unknown here, not 0.
        handOver(content, sender, local, tapped() ? epochOffsetNanos + System.nanoTime() : 0, false,
                io.rnic.core.wire.PacketSink.TOS_UNKNOWN);
    }

    /** The end of one read of the socket: the receiver's batch ends. */
    void receiveBatchEnded() {
        batchEnd();
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
        batch.flushBeforeClose(); // what an invoker's last cycle held back still leaves
        closed = true;
        SendBatch.localWireClosed(local);
        List<Channel> all = new ArrayList<>();
        ports.pooledChannels(all); // after this, openFlow sees closed and closes what it bound itself
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
        batch.discardAfterClose();
        releaseAgent();
    }

    @Override
    public String toString() {
        return "UdpWire[" + local.getAddress().getHostAddress() + ":" + local.getPort() + (nativeTransport ? " epoll]" : " nio]");
    }
}
