package io.rnic.transport.udp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.rnic.core.packet.BthFlyweight;
import io.rnic.core.packet.Icrc;
import io.rnic.core.wire.WireCounters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A UDP wire's receive side, on its agent's thread: the sockets' channel handler, which drops
 * and counts malformed datagrams, hands the others to the wire's receiver (each packet of a GRO
 * train is a datagram of its own by then) and ends a receive batch at the end of each read; and
 * the direct read of a spinning duty cycle. Never lets an exception out.
 */
@ChannelHandler.Sharable
final class ReceiveLoop extends ChannelInboundHandlerAdapter {
    /** The wire's logger: its sockets log under the wire's name. */
    private static final Logger LOG = LoggerFactory.getLogger(UdpWire.class);
    /** Netty's "the socket is readable" event, which its epoll handler would deliver. */
    private static final io.netty.channel.epoll.EpollIoEvent READABLE = () -> io.netty.channel.epoll.EpollIoOps.EPOLLIN;

    private final UdpWire wire;
    private final WireCounters counters;
    /** The receive socket, and its read handler for a duty cycle that reads it without asking epoll first. */
    private Channel main;
    private io.netty.channel.IoHandle directRead;
    /** Datagrams handed to the pipeline so far, and that count when the last read batch ended (agent thread). */
    private long datagramsRead;
    private long batchStart;
    /** {@link #datagramsRead} at the end of the last invoker cycle. */
    private long readAtCycleEnd;

    ReceiveLoop(UdpWire wire) {
        this.wire = wire;
        this.counters = wire.counters();
    }

    /** The receive socket is bound: on native epoll a duty cycle may read it directly. */
    void bound(Channel main, boolean nativeTransport) {
        this.main = main;
        this.directRead = nativeTransport && main.unsafe() instanceof io.netty.channel.IoHandle h ? h : null;
    }

    /**
     * Reads the receive socket once without asking epoll first (agent thread): a spinning duty
     * cycle saves the {@code epoll_wait} before each {@code recvmsg}, which is a fifth of a
     * loopback round trip. Netty's read path runs as if epoll had reported the socket readable
     * (it stops at {@code EAGAIN}), so packets go through the same pipeline either way.
     *
     * @return the datagrams read (0 if the socket was empty or the wire cannot read directly)
     */
    int readDirect() {
        if (directRead == null || wire.isClosed() || !main.isActive()) {
            return 0;
        }
        long before = datagramsRead;
        directRead.handle(null, READABLE);
        return (int) (datagramsRead - before);
    }

    /** True if {@link #readDirect} can read the receive socket. */
    boolean readsDirectly() {
        return directRead != null;
    }

    /** Datagrams read since the last invoker cycle ended; this one ends now. */
    long readThisCycle() {
        long n = datagramsRead - readAtCycleEnd;
        readAtCycleEnd = datagramsRead;
        return n;
    }

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
            if (wire.isClosed()) {
                return;
            }
            if (len < BthFlyweight.LENGTH + Icrc.LENGTH || (len & 3) != 0) {
                counters.malformed();
                return;
            }
            wire.received(content, dp.sender());
        } catch (RuntimeException e) {
            counters.handlerError();
            LOG.debug("receiver of {} threw", wire.localAddress(), e);
        } finally {
            dp.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // The end of one read of the socket: coalesced ACKs leave now, flushed with the rest.
        // A read that found the socket empty (a spinning cycle's direct read) ends no batch.
        if (!wire.isClosed() && datagramsRead != batchStart) {
            batchStart = datagramsRead;
            wire.receiveBatchEnded();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        counters.sendError();
        LOG.debug("socket error on {}", ctx.channel(), cause);
    }
}
