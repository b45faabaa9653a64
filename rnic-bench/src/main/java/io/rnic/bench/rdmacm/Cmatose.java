package io.rnic.bench.rdmacm;

import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WrOpcode;
import io.rnic.verbs.cm.CmEvent;
import io.rnic.verbs.cm.CmEventType;
import io.rnic.verbs.cm.CmId;
import io.rnic.verbs.cm.ConnParam;
import io.rnic.verbs.cm.PortSpace;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * librdmacm's {@code ucmatose} on an emulated HCA: {@code -c} RC connections through rdma_cm; the
 * server sends {@code -C} messages of {@code -S} bytes on each, the client answers each with as
 * many, then the server disconnects. Resources, connection parameters (responder resources and
 * initiator depth 1, 5 retries, no RNR retries) and output are ucmatose's.
 */
public final class Cmatose extends CmTool {
    private final CmToolConfig c;

    /** One connection's QP, CQs and buffer, as ucmatose's {@code init_node} makes them. */
    private static final class Node {
        CmId id;
        CompletionQueue sendCq;
        CompletionQueue recvCq;
        MemoryRegion mr;
    }

    /** A run with {@code config}. */
    public Cmatose(CmToolConfig config, PrintStream out, PrintStream err) {
        super("cmatose", out, err);
        this.c = config;
    }

    /** Runs to the end; the exit status. */
    public int run() throws InterruptedException {
        return open(c.hcaIp(), c.udpPort(), c.icrc(), c.pcap());
    }

    @Override
    int run(RdmaDevice dev) throws InterruptedException {
        ProtectionDomain pd = dev.allocPd();
        int ret = c.server() ? server(pd) : client(pd);
        out.println("test complete");
        out.println("return status " + ret);
        return ret == 0 ? 0 : 1;
    }

    private Node node(ProtectionDomain pd, CmId id) {
        Node n = new Node();
        n.id = id;
        int cqe = Math.max(1, c.count());
        n.sendCq = pd.device().createCq(cqe);
        n.recvCq = pd.device().createCq(cqe);
        id.createQp(pd, QpInitAttributes.rc(n.sendCq, n.recvCq).withCaps(new QpCaps(cqe, cqe, 1, 1, 0))
                .withSignalAll(true));
        n.mr = pd.registerMemory(ByteBuffer.allocateDirect(Math.max(1, c.size())), AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < c.count(); i++) {
            id.qp().postRecv(new RecvWorkRequest().wrId(i).sge(n.mr.address(), c.size(), n.mr.lkey()));
        }
        return n;
    }

    private int unexpected(CmEvent e) {
        if (e == null) {
            out.printf("cmatose: no event in %d s%n", WAIT / 1_000_000_000L);
        } else {
            out.printf("cmatose: event: RDMA_CM_EVENT_%s, error: %d%n", e.type(), e.status());
        }
        return -1;
    }

    private void sends(Node n) {
        for (int i = 0; i < c.count(); i++) {
            n.id.qp().postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND)
                    .sge(n.mr.address(), c.size(), n.mr.lkey()));
        }
    }

    private int server(ProtectionDomain pd) throws InterruptedException {
        CmId listener = channel.createId(PortSpace.TCP, null);
        listener.bindAddr(new InetSocketAddress(c.bind(), c.port()));
        listener.listen(0);
        out.println("cmatose: starting server"); // after listening: the same output, no race with a client
        List<Node> nodes = new ArrayList<>();
        // ucmatose's connect_events: requests and establishments of the -c connections in any order.
        for (int established = 0; established < c.connections();) {
            CmEvent e = event(WAIT, "RDMA_CM_EVENT_CONNECT_REQUEST or ESTABLISHED (" + established + " of "
                    + c.connections() + " connections established)", "clients of port " + c.port());
            if (e != null && e.type() == CmEventType.CONNECT_REQUEST) {
                nodes.add(node(pd, e.id()));
                e.id().accept(null);
            } else if (e != null && e.type() == CmEventType.ESTABLISHED) {
                established++;
            } else {
                return unexpected(e);
            }
        }
        if (c.count() > 0) {
            out.println("initiating data transfers");
            nodes.forEach(this::sends);
            out.println("completing sends");
            for (Node n : nodes) {
                if (!poll(n.sendCq, c.count(), "send", n.id.remoteAddress(), wc -> { })) {
                    return -1;
                }
            }
            out.println("receiving data transfers");
            for (Node n : nodes) {
                if (!poll(n.recvCq, c.count(), "receive", n.id.remoteAddress(), wc -> { })) {
                    return -1;
                }
            }
            out.println("data transfers complete");
        }
        out.println("cmatose: disconnecting");
        nodes.forEach(n -> n.id.disconnect());
        for (int i = 0; i < c.connections(); i++) {
            if (expect(CmEventType.DISCONNECTED, "clients of port " + c.port()) == null) {
                return -1;
            }
        }
        out.println("disconnected");
        nodes.forEach(n -> n.id.close());
        listener.close();
        return 0;
    }

    private int client(ProtectionDomain pd) throws InterruptedException {
        out.println("cmatose: starting client");
        out.println("cmatose: connecting");
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < c.connections(); i++) {
            CmId id = channel.createId(PortSpace.TCP, null);
            id.resolveAddr(c.bind(), new InetSocketAddress(c.destination(), c.port()), 2000);
        }
        InetSocketAddress server = new InetSocketAddress(c.destination(), c.port());
        for (int established = 0; established < c.connections();) {
            CmEvent e = event(WAIT, "RDMA_CM_EVENT_ESTABLISHED (" + established + " of " + c.connections()
                    + " connections established)", server);
            if (e == null) {
                return unexpected(null);
            }
            switch (e.type()) {
                case ADDR_RESOLVED -> e.id().resolveRoute(2000);
                case ROUTE_RESOLVED -> {
                    nodes.add(node(pd, e.id()));
                    e.id().connect(new ConnParam(null, 1, 1, 5, 0, false));
                }
                case ESTABLISHED -> established++;
                default -> {
                    return unexpected(e);
                }
            }
        }
        if (c.count() > 0) {
            out.println("receiving data transfers");
            for (Node n : nodes) {
                if (!poll(n.recvCq, c.count(), "receive", server, wc -> { })) {
                    return -1;
                }
            }
            out.println("sending replies");
            nodes.forEach(this::sends);
            out.println("data transfers complete");
        }
        // ucmatose's client never disconnects first: it answers the server's DREQ.
        for (int i = 0; i < c.connections(); i++) {
            CmEvent e = expect(CmEventType.DISCONNECTED, server);
            if (e == null) {
                return -1;
            }
            e.id().disconnect();
        }
        nodes.forEach(n -> n.id.close());
        return 0;
    }
}
