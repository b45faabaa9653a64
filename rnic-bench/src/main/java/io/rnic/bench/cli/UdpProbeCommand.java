package io.rnic.bench.cli;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.SegmentedDatagramPacket;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rnic udp-probe}: how many RoCEv2-sized datagrams per second the UDP path of this
 * machine carries on loopback, one datagram per write versus UDP GSO (Netty's
 * {@link SegmentedDatagramPacket}) with GRO on the receiver. A measurement tool for deciding
 * whether the UDP wire should batch with GSO; it does not use the emulator.
 */
@Command(name = "udp-probe", description = {"measure loopback UDP datagram rates with and without GSO/GRO", "",
    """
        Sends datagrams of SIZE bytes from 127.0.0.2 to 127.0.0.3 for a few seconds with native \
        epoll, first one datagram per write, then in GSO batches of SEGMENTS (the kernel splits \
        them) with UDP_GRO on the receiver, and prints datagrams/s and Gb/s received. It measures \
        the machine, not the emulator: the ceiling to compare rnic's UDP wire with. Its --port is \
        the UDP port of the probe's own sockets."""},
        exitCodeList = {"0:measured", "1:a measurement failed", "2:a usage error, or native epoll is not available",
            RnicCommand.INTERNAL_ERROR_LINE})
public final class UdpProbeCommand extends RnicCommand {
    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", defaultValue = "1068",
            description = "datagram payload (default: ${DEFAULT-VALUE}: a 1024-byte RoCEv2 packet with headers)")
    int size;

    @Option(names = "--segments", paramLabel = "N", defaultValue = "32",
            description = "datagrams per GSO write (default: ${DEFAULT-VALUE})")
    int segments;

    @Option(names = "--seconds", paramLabel = "N", defaultValue = "3", description = "seconds per mode (default: ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--port", paramLabel = "N", defaultValue = "14791", converter = Mixins.Port.class,
            description = "UDP port (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--latency", description = "instead: the raw UDP round trip of a 64-byte datagram between two threads, "
            + "busy-polling and blocking (p50 in microseconds), the ceilings of rnic perf's *_lat")
    boolean latency;

    @Option(names = {"-n", "--iters"}, paramLabel = "N", defaultValue = "100000",
            description = "round trips per mode with --latency (default: ${DEFAULT-VALUE})")
    int iters;

    @Override
    protected int execute() throws UsageException {
        int size = range("--size", this.size, 16, 8192);
        int segments = range("--segments", this.segments, 1, 64);
        int seconds = range("--seconds", this.seconds, 1, 60);
        if ((long) size * segments > 65_507) {
            throw new UsageException("SIZE x SEGMENTS must fit one UDP datagram (65507 bytes): " + size + " x " + segments);
        }
        if (latency) {
            int iters = range("--iters", this.iters, 100, Integer.MAX_VALUE);
            try {
                for (boolean spin : new boolean[] {true, false}) {
                    long[] rtt = roundTrips(spin, iters, port);
                    java.util.Arrays.sort(rtt);
                    out.printf(java.util.Locale.ROOT, "%-24s p50 %7.2f us  p99 %7.2f us  (round trip, %d iterations)%n",
                            spin ? "busy-poll round trip" : "blocking round trip", rtt[rtt.length / 2] / 1e3,
                            rtt[(int) (rtt.length * 0.99)] / 1e3, iters);
                }
                return 0;
            } catch (Exception e) {
                err.println("rnic udp-probe: " + e);
                return 1;
            }
        }
        if (!Epoll.isAvailable()) {
            err.println("rnic udp-probe: native epoll is not available: " + Epoll.unavailabilityCause());
            return 2;
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, EpollIoHandler.newFactory());
        try {
            for (boolean gso : new boolean[] {false, true}) {
                double[] r = measure(group, gso, size, segments, seconds, port);
                out.printf("%-24s %,12.0f datagrams/s  %6.2f Gb/s%n", gso ? "GSO x" + segments + " + GRO" : "one datagram per write",
                        r[0], r[0] * size * 8 / 1e9);
            }
            return 0;
        } catch (Exception e) {
            err.println("rnic udp-probe: " + e);
            return 1;
        } finally {
            group.shutdownGracefully(0, 100, java.util.concurrent.TimeUnit.MILLISECONDS).syncUninterruptibly();
        }
    }

    private static double[] measure(EventLoopGroup group, boolean gso, int size, int segments, int seconds, int port)
            throws Exception {
        AtomicLong bytes = new AtomicLong();
        AtomicLong sendErrors = new AtomicLong();
        Channel rx = new Bootstrap().group(group).channel(EpollDatagramChannel.class)
                .option(ChannelOption.SO_RCVBUF, 8 << 20)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(gso ? 65536 : 9216))
                .option(EpollChannelOption.UDP_GRO, gso)
                .option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, gso ? 0 : 9216)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        if (msg instanceof DatagramPacket dp) {
                            bytes.addAndGet(dp.content().readableBytes());
                        }
                        ReferenceCountUtil.release(msg);
                    }
                }).bind(new InetSocketAddress("127.0.0.3", port)).sync().channel();
        Channel tx = new Bootstrap().group(group).channel(EpollDatagramChannel.class)
                .option(ChannelOption.SO_SNDBUF, 8 << 20)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        sendErrors.incrementAndGet();
                    }
                })
                .bind(new InetSocketAddress("127.0.0.2", 0)).sync().channel();
        InetSocketAddress to = (InetSocketAddress) rx.localAddress();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long start = System.nanoTime();
        long startBytes = 0;
        boolean warm = false;
        while (System.nanoTime() < end) {
            if (!warm && System.nanoTime() - start > 500_000_000L) { // half a second of warm-up
                warm = true;
                start = System.nanoTime();
                startBytes = bytes.get();
            }
            tx.eventLoop().submit(() -> {
                for (int i = 0; i < 64; i++) {
                    if (gso) {
                        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(size * segments).writeZero(size * segments);
                        tx.write(new SegmentedDatagramPacket(b, size, to), tx.voidPromise());
                    } else {
                        for (int k = 0; k < segments; k++) {
                            ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size);
                            tx.write(new DatagramPacket(b, to), tx.voidPromise());
                        }
                    }
                }
                tx.flush();
            }).sync();
        }
        double secs = (System.nanoTime() - start) / 1e9;
        double datagrams = (bytes.get() - startBytes) / (double) size / secs;
        tx.close().sync();
        rx.close().sync();
        if (sendErrors.get() > 0) {
            throw new IllegalStateException(sendErrors.get() + " writes failed");
        }
        return new double[] {datagrams};
    }

    /**
     * Round trips of a 64-byte datagram between a client on 127.0.0.3 and an echo thread on
     * 127.0.0.2, both busy-polling non-blocking sockets ({@code spin}) or blocking in receive.
     */
    static long[] roundTrips(boolean spin, int iters, int port) throws Exception {
        int warm = Math.min(iters, 10_000);
        try (java.nio.channels.DatagramChannel echo = java.nio.channels.DatagramChannel.open();
             java.nio.channels.DatagramChannel client = java.nio.channels.DatagramChannel.open()) {
            echo.bind(new InetSocketAddress("127.0.0.2", port));
            client.bind(new InetSocketAddress("127.0.0.3", 0));
            echo.configureBlocking(!spin);
            client.configureBlocking(!spin);
            client.connect(echo.getLocalAddress());
            Thread t = new Thread(() -> {
                java.nio.ByteBuffer b = java.nio.ByteBuffer.allocateDirect(64);
                try {
                    for (int i = 0; i < warm + iters; i++) {
                        b.clear();
                        java.net.SocketAddress from;
                        while ((from = echo.receive(b)) == null) {
                            Thread.onSpinWait();
                        }
                        b.flip();
                        echo.send(b, from);
                    }
                } catch (java.io.IOException e) {
                    // the client sees the missing answer
                }
            }, "udp-probe-echo");
            t.setDaemon(true);
            t.start();
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocateDirect(64);
            long[] rtt = new long[iters];
            for (int i = 0; i < warm + iters; i++) {
                b.clear().position(64).flip();
                long t0 = System.nanoTime();
                client.write(b);
                b.clear();
                while (client.read(b) <= 0) {
                    Thread.onSpinWait();
                }
                if (i >= warm) {
                    rtt[i - warm] = System.nanoTime() - t0;
                }
            }
            t.join(10_000);
            return rtt;
        }
    }
}
