package io.rnic.transport.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
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
import java.util.concurrent.TimeUnit;
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

    private final InetSocketAddress local;
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final EventLoop loop;
    private final EventLoopScheduler scheduler;
    private final Channel main;
    private final boolean nativeTransport;
    /** Send sockets by source port; an array so the per-packet lookup does not box the port. */
    private final java.util.concurrent.atomic.AtomicReferenceArray<Channel> flows =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(65536);
    private final List<Channel> dirty = new ArrayList<>();
    private final Runnable flushTask = this::flushDirty;
    private final ChannelHandler inbound = new Inbound();
    private final io.netty.buffer.ByteBufAllocator allocator;
    private final long epochOffsetNanos;
    private volatile boolean closed;
    private boolean flushScheduled;

    private UdpWire(Builder b) {
        InetAddress ip = b.address;
        if (ip == null || ip.isAnyLocalAddress()) {
            throw new IllegalArgumentException("a UDP wire must bind a concrete IP address (the ICRC covers it), got " + ip);
        }
        this.nativeTransport = b.preferNative && Epoll.isAvailable();
        this.allocator = b.allocator;
        if (b.group != null) {
            this.group = b.group;
            this.ownsGroup = false;
        } else {
            this.group = newGroup(nativeTransport, 1);
            this.ownsGroup = true;
        }
        this.loop = group.next();
        this.scheduler = new EventLoopScheduler(loop);
        this.epochOffsetNanos = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
        io.netty.channel.ChannelFuture bound = bootstrap().bind(ip, b.port).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            if (ownsGroup) {
                group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            }
            throw new IllegalStateException("cannot bind UDP " + ip.getHostAddress() + ":" + b.port + ": "
                    + bound.cause().getMessage(), bound.cause());
        }
        this.main = bound.channel();
        this.local = (InetSocketAddress) main.localAddress();
    }

    /** An event loop group of the transport this machine supports best, for sharing among wires. */
    public static EventLoopGroup newGroup(boolean preferNative, int threads) {
        return new MultiThreadIoEventLoopGroup(threads,
                preferNative && Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
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
        private EventLoopGroup group;
        private io.netty.buffer.ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;

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
         * Runs on an event loop of {@code group} instead of a group of its own; the group must be
         * of the same transport ({@link UdpWire#newGroup}) and is not shut down by the wire.
         */
        public Builder group(EventLoopGroup group) {
            this.group = group;
            return this;
        }

        /** The allocator of received datagrams (pooled direct buffers by default). */
        public Builder allocator(io.netty.buffer.ByteBufAllocator allocator) {
            this.allocator = java.util.Objects.requireNonNull(allocator, "allocator");
            return this;
        }

        public UdpWire open() {
            return new UdpWire(this);
        }
    }

    private Bootstrap bootstrap() {
        return new Bootstrap()
                .group(loop)
                .channel(nativeTransport ? EpollDatagramChannel.class : NioDatagramChannel.class)
                .option(ChannelOption.ALLOCATOR, allocator)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_DATAGRAM))
                .option(ChannelOption.SO_RCVBUF, 4 << 20)
                .option(ChannelOption.SO_SNDBUF, 4 << 20)
                .handler(inbound);
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

    /** The event loop this wire's packets are delivered on. */
    public EventLoop eventLoop() {
        return loop;
    }

    /**
     * Binds a send socket on {@code preferredSourcePort} of this wire's address, unless called
     * from the event loop (binding there would block it) or the port is taken: then the flow
     * uses the receive port, and the returned value says so.
     */
    @Override
    public int openFlow(int preferredSourcePort) {
        if ((preferredSourcePort & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("UDP source port " + preferredSourcePort + " is outside 0..65535");
        }
        if (closed || preferredSourcePort == local.getPort() || preferredSourcePort == 0) {
            return local.getPort();
        }
        if (flows.get(preferredSourcePort) != null) {
            return preferredSourcePort;
        }
        if (loop.inEventLoop()) {
            return local.getPort();
        }
        synchronized (flows) {
            if (flows.get(preferredSourcePort) != null) {
                return preferredSourcePort;
            }
            io.netty.channel.ChannelFuture f = bootstrap().bind(local.getAddress(), preferredSourcePort).awaitUninterruptibly();
            if (!f.isSuccess()) {
                LOG.debug("source port {} unavailable on {}, flow uses {}", preferredSourcePort, local, local.getPort(), f.cause());
                return local.getPort();
            }
            flows.set(preferredSourcePort, f.channel());
            return preferredSourcePort;
        }
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
        Channel ch = sourcePort == local.getPort() ? main : flows.get(sourcePort);
        if (closed || ch == null || !ch.isActive() || destination == null) {
            counters.sendError();
            packet.release();
            return;
        }
        InetSocketAddress src = (InetSocketAddress) ch.localAddress();
        sending(packet, src, destination, tapped() ? epochOffsetNanos + System.nanoTime() : 0);
        ch.write(new DatagramPacket(packet, destination, src), ch.voidPromise());
        if (!dirty.contains(ch)) {
            dirty.add(ch);
        }
        if (!flushScheduled) {
            flushScheduled = true;
            loop.execute(flushTask);
        }
    }

    private void flushDirty() {
        flushScheduled = false;
        for (int i = 0; i < dirty.size(); i++) {
            dirty.get(i).flush();
        }
        dirty.clear();
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * Closes every socket (freeing the port) and, if the wire made its own event loop group,
     * shuts it down. Packets sent afterwards are released and counted as send errors.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Channel> all = new ArrayList<>();
        for (int port = 0; port < flows.length(); port++) {
            Channel ch = flows.get(port);
            if (ch != null) {
                all.add(ch);
            }
        }
        all.add(main);
        for (Channel ch : all) {
            if (loop.inEventLoop()) {
                ch.close();
            } else {
                ch.close().syncUninterruptibly();
            }
        }
        if (ownsGroup) {
            io.netty.util.concurrent.Future<?> f = group.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS);
            if (!loop.inEventLoop()) {
                f.syncUninterruptibly();
            }
        }
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
                handOver(content, dp.sender(), local, tapped() ? epochOffsetNanos + System.nanoTime() : 0);
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
            if (!closed) {
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
