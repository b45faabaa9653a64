package io.rnic.bench.rdmacm;

import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AddressHandle;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import io.rnic.verbs.cm.CmEvent;
import io.rnic.verbs.cm.CmEventType;
import io.rnic.verbs.cm.CmId;
import io.rnic.verbs.cm.PortSpace;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * librdmacm's {@code udaddy} on an emulated HCA: UD through rdma_cm, the peer's QP resolved
 * with SIDR. The client SENDs {@code -C} datagrams with its QP number as immediate data; the
 * server answers to the address in the first one's GRH and the QP in its immediate data. Port
 * 7174 in the UDP port space, Q_Key 0x01234567, unsignaled client sends and the output are
 * udaddy's.
 */
public final class Udaddy extends CmTool {
    private static final int GRH = 40;

    private final CmToolConfig c;
    private CompletionQueue cq;
    private MemoryRegion mr;
    private ByteBuffer buf;

    /** A run with {@code config}. */
    public Udaddy(CmToolConfig config, PrintStream out, PrintStream err) {
        super("udaddy", out, err);
        this.c = config;
    }

    /** Runs to the end; the exit status. */
    public int run() throws InterruptedException {
        return open(c.hcaIp(), c.udpPort(), c.icrc(), c.pcap());
    }

    @Override
    int run(RdmaDevice dev) throws InterruptedException {
        if (c.size() > dev.queryPort().activeMtu().bytes()) {
            out.printf("udaddy: message_size %d is larger than active mtu %d%n", c.size(),
                    dev.queryPort().activeMtu().bytes());
            return 1;
        }
        ProtectionDomain pd = dev.allocPd();
        int ret = c.server() ? server(pd) : client(pd);
        out.println("test complete");
        out.println("return status " + ret);
        return ret == 0 ? 0 : 1;
    }

    private QueuePair node(ProtectionDomain pd, CmId id) {
        int depth = Math.max(1, c.count());
        cq = pd.device().createCq(2 * depth);
        QueuePair qp = id.createQp(pd, QpInitAttributes.ud(cq, cq).withCaps(new QpCaps(depth, depth, 1, 1, 0)));
        buf = ByteBuffer.allocateDirect(c.size() + GRH);
        mr = pd.registerMemory(buf, AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < c.count(); i++) {
            qp.postRecv(new RecvWorkRequest().wrId(i).sge(mr.address(), c.size() + GRH, mr.lkey()));
        }
        return qp;
    }

    private void sends(QueuePair qp, AddressHandle ah, int qpn, int qkey, boolean signaled) {
        for (int i = 0; i < c.count(); i++) {
            qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND_WITH_IMM).signaled(signaled)
                    .imm(qp.qpn()).sge(mr.address(), c.size(), mr.lkey()).ud(ah, qpn, qkey));
        }
    }

    private int server(ProtectionDomain pd) throws InterruptedException {
        CmId listener = channel.createId(PortSpace.UDP, null);
        listener.bindAddr(new InetSocketAddress(c.bind(), c.port()));
        listener.listen(0);
        out.println("udaddy: starting server"); // after listening: the same output, no race with a client
        CmEvent e = expect(CmEventType.CONNECT_REQUEST, "clients of port " + c.port());
        if (e == null) {
            return -1;
        }
        QueuePair qp = node(pd, e.id());
        e.id().accept(null);
        if (c.count() > 0) {
            out.println("receiving data transfers");
            int[] peerQpn = {-1};
            InetAddress[] peer = {null};
            if (!poll(cq, c.count(), "receive", e.id().remoteAddress(), wc -> {
                if (peer[0] == null) { // udaddy's create_reply_ah: the GRH's source, the immediate's QPN
                    peer[0] = grhSource();
                    peerQpn[0] = wc.immData();
                }
            })) {
                return -1;
            }
            out.println("sending replies");
            AddressHandle ah = pd.createAddressHandle(AddressVector.of(peer[0]).withPort(c.udpPort()));
            sends(qp, ah, peerQpn[0], CmId.UDP_QKEY, true);
            if (!poll(cq, c.count(), "send", e.id().remoteAddress(), wc -> { })) {
                return -1;
            }
            out.println("data transfers complete");
        }
        e.id().close();
        listener.close();
        return 0;
    }

    private int client(ProtectionDomain pd) throws InterruptedException {
        out.println("udaddy: starting client");
        out.println("udaddy: connecting");
        CmId id = channel.createId(PortSpace.UDP, null);
        InetSocketAddress server = new InetSocketAddress(c.destination(), c.port());
        id.resolveAddr(c.bind(), server, 2000);
        if (expect(CmEventType.ADDR_RESOLVED, server) == null) {
            return -1;
        }
        id.resolveRoute(2000);
        if (expect(CmEventType.ROUTE_RESOLVED, server) == null) {
            return -1;
        }
        QueuePair qp = node(pd, id);
        id.connect(null);
        CmEvent e = expect(CmEventType.ESTABLISHED, server);
        if (e == null) {
            return -1;
        }
        if (c.count() > 0) {
            out.println("initiating data transfers");
            sends(qp, e.ud().ah(), e.ud().qpNum(), e.ud().qkey(), false);
            out.println("receiving data transfers");
            if (!poll(cq, c.count(), "receive", server, wc -> { })) {
                return -1;
            }
            out.println("data transfers complete");
        }
        id.close();
        return 0;
    }

    /** The sender's address in the GRH area of the receive buffer (IPv4: its header after 20 zero bytes). */
    private InetAddress grhSource() {
        byte[] a = new byte[4];
        buf.get(32, a);
        try {
            return InetAddress.getByAddress(a);
        } catch (UnknownHostException ex) {
            throw new IllegalStateException("4 bytes are always an address", ex);
        }
    }
}
