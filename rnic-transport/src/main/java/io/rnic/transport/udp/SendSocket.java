package io.rnic.transport.udp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.rnic.core.wire.WireCounters;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A socket the wire sends from. On native epoll a run of packets that is the socket's whole
 * output in a duty cycle leaves with one {@code sendto} on the socket itself, past Netty's
 * outbound pipeline (its per-datagram objects and its {@code sendmmsg} bookkeeping cost more
 * than the system call on a round trip); a GSO train sets the segment size as a socket
 * option, which stays until a train of another size or a longer single datagram needs it
 * changed. Everything else, and whatever Netty still holds, goes through Netty's pipeline.
 */
final class SendSocket {
    /** The wire's logger: its sockets log under the wire's name. */
    private static final Logger LOG = LoggerFactory.getLogger(UdpWire.class);
    /** Linux's SOL_UDP and UDP_SEGMENT (linux/udp.h): the GSO segment size as a socket option. */
    private static final int SOL_UDP = 17;
    private static final int UDP_SEGMENT = 103;

    final Channel channel;
    final InetSocketAddress local;
    private final WireCounters counters;
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

    SendSocket(Channel channel, boolean connects, WireCounters counters) {
        this.channel = channel;
        this.counters = counters;
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
