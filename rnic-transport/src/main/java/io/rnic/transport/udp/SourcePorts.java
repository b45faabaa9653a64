package io.rnic.transport.udp;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sockets a UDP wire sends from: the receive socket, for flows on the RoCE port, and a
 * bounded pool of source-port sockets that QPs' flows are hashed onto (ECMP entropy without a
 * socket per flow), each connected to the first peer it sends to.
 */
final class SourcePorts {
    /** The wire's logger: its sockets log under the wire's name. */
    private static final Logger LOG = LoggerFactory.getLogger(UdpWire.class);

    private final UdpWire wire;
    private final HcaAgent agent;
    private final io.netty.channel.EventLoop loop;
    private final InetSocketAddress local;
    /** Send sockets by source port; an array so the per-packet lookup does not box the port. */
    private final AtomicReferenceArray<SendSocket> flows = new AtomicReferenceArray<>(65536);
    /** The receive socket as a send socket (flows on the RoCE port send from it). */
    private final SendSocket mainSocket;
    /** The bounded pool of send sockets: slot to source port (0 while unbound). */
    private final int[] poolPorts = new int[UdpWire.SOURCE_PORT_POOL];

    SourcePorts(UdpWire wire, HcaAgent agent, Channel main) {
        this.wire = wire;
        this.agent = agent;
        this.loop = agent.loop();
        this.local = (InetSocketAddress) main.localAddress();
        this.mainSocket = new SendSocket(main, false, wire.counters());
    }

    /** The socket that sends from {@code sourcePort}, or null if none does (agent thread). */
    SendSocket socketFor(int sourcePort) {
        return sourcePort == local.getPort() ? mainSocket : flows.get(sourcePort);
    }

    /**
     * Finds the send socket for a flow that would like {@code preferredSourcePort}. Flows are
     * hashed onto a pool of at most {@link UdpWire#SOURCE_PORT_POOL} sockets, so an HCA with
     * thousands of QPs holds a bounded number of sockets and the source port still varies between
     * flows (ECMP entropy). A pool slot's socket is bound, on the flow's preferred port if free,
     * by the first flow that hashes to it; binding can block, so from the agent's own dedicated
     * thread, or when binding fails, the flow uses the receive port. The returned port is the
     * one the flow's packets will carry.
     */
    int openFlow(int preferredSourcePort) {
        if ((preferredSourcePort & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("UDP source port " + preferredSourcePort + " is outside 0..65535");
        }
        if (wire.isClosed() || preferredSourcePort == local.getPort() || preferredSourcePort == 0) {
            return local.getPort();
        }
        int slot = (preferredSourcePort * 0x9E3779B1) >>> (32 - Integer.numberOfTrailingZeros(UdpWire.SOURCE_PORT_POOL));
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
                agent.await(wire.bootstrap().bind(local.getAddress(), preferredSourcePort));
        if (!f.isSuccess()) {
            LOG.debug("source port {} unavailable on {}, trying another", preferredSourcePort, local, f.cause());
            f = (io.netty.channel.ChannelFuture) agent.await(wire.bootstrap().bind(local.getAddress(), 0));
            if (!f.isSuccess()) {
                return local.getPort();
            }
        }
        synchronized (poolPorts) {
            if (poolPorts[slot] != 0 || wire.isClosed()) { // another thread filled the slot meanwhile: use its socket
                f.channel().close();
                return wire.isClosed() ? local.getPort() : poolPorts[slot];
            }
            int port = ((InetSocketAddress) f.channel().localAddress()).getPort();
            flows.set(port, new SendSocket(f.channel(), true, wire.counters()));
            poolPorts[slot] = port;
            return port;
        }
    }

    /**
     * Adds the pool's channels to {@code all}, for closing; the wire is closed by then, so
     * {@link #openFlow} closes whatever it binds afterwards itself.
     */
    void pooledChannels(List<Channel> all) {
        synchronized (poolPorts) {
            for (int port : poolPorts) {
                SendSocket ch = port == 0 ? null : flows.get(port);
                if (ch != null) {
                    all.add(ch.channel);
                }
            }
        }
    }

    /** The peer the pooled socket of {@code sourcePort} is connected to, or null (agent thread). */
    InetSocketAddress connectedPeer(int sourcePort) {
        SendSocket ch = flows.get(sourcePort);
        return ch == null ? null : ch.peer();
    }
}
