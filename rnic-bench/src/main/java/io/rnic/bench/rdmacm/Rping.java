package io.rnic.bench.rdmacm;

import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import io.rnic.verbs.cm.CmEvent;
import io.rnic.verbs.cm.CmEventType;
import io.rnic.verbs.cm.CmId;
import io.rnic.verbs.cm.ConnParam;
import io.rnic.verbs.cm.PortSpace;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * rdma-core's {@code rping} on an emulated HCA, connected through rdma_cm: the client SENDs the
 * address, R_Key and size of its "start" buffer; the server READs it, SENDs "go on"; the client
 * SENDs its "rdma" buffer's; the server WRITEs the data back and SENDs "done"; the client
 * compares. The messages, the buffers' registration, the QP's sizes and the output lines are
 * rping's, so either side may be ours or rdma-core's.
 */
public final class Rping extends CmTool {
    private static final int INFO = 16; // struct rping_rdma_info: __be64 buf, __be32 rkey, __be32 size
    private static final int SQ_DEPTH = 16;

    private final RpingConfig c;
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion recvMr;
    private MemoryRegion sendMr;
    private MemoryRegion rdmaMr;
    private MemoryRegion startMr;
    private ByteBuffer recvBuf;
    private ByteBuffer sendBuf;
    private ByteBuffer rdmaBuf;
    private ByteBuffer startBuf;
    private final WorkCompletion wc = new WorkCompletion();
    /** Whom this side waits for: the server's address and port, or the client's. */
    private Object peer;

    /** A run with {@code config}, printing as rping does. */
    public Rping(RpingConfig config, PrintStream out, PrintStream err) {
        super("rping", out, err);
        this.c = config;
    }

    /** Runs to the end; the exit status (0: every ping done, or the server's client disconnected). */
    public int run() throws InterruptedException {
        return open(c.hcaIp(), c.udpPort(), c.icrc(), c.pcap());
    }

    @Override
    int run(RdmaDevice dev) throws InterruptedException {
        return c.server() ? server(dev) : client(dev);
    }

    private int server(RdmaDevice dev) throws InterruptedException {
        CmId listener = channel.createId(PortSpace.TCP, null);
        debug("created cm_id %s", listener);
        listener.bindAddr(new InetSocketAddress(c.address(), c.port()));
        debug("rdma_bind_addr successful");
        listener.listen(3);
        debug("rdma_listen");
        CmEvent e = event(Long.MAX_VALUE, "RDMA_CM_EVENT_CONNECT_REQUEST", "clients of port " + c.port());
        if (e == null || e.type() != CmEventType.CONNECT_REQUEST) {
            err.printf("wait for CONNECT_REQUEST state %d%n", 11);
            return 1;
        }
        debug("child cma %s", e.id());
        CmId child = e.id();
        peer = child.remoteAddress();
        setup(dev, child, false);
        post(recv());
        child.accept(null);
        e = event(WAIT, "RDMA_CM_EVENT_ESTABLISHED", peer);
        if (e == null || e.type() != CmEventType.ESTABLISHED) {
            err.println("wait for CONNECTED state 11");
            err.println("connect error -1");
            return 1;
        }
        int ret = serveUntilDisconnected();
        child.disconnect();
        child.close();
        listener.close();
        return ret;
    }

    private int serveUntilDisconnected() throws InterruptedException {
        for (;;) {
            // Wait for the client's start buffer (or its disconnect: rping's normal end).
            Object next = await("the start buffer's address (a SEND) or RDMA_CM_EVENT_DISCONNECTED");
            if (next instanceof CmEvent ev) {
                if (ev.type() == CmEventType.DISCONNECTED) {
                    err.println("server DISCONNECT EVENT...");
                    err.println("wait for RDMA_READ_ADV state 10");
                    return 0;
                }
                return fail("cma event " + ev.type() + ", error " + ev.status());
            }
            Info start = received();
            if (start == null) {
                return 1;
            }
            debug("Received rkey %x addr %x len %d from peer", start.rkey, start.addr, start.size);
            post(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(rdmaMr.address(), start.size, rdmaMr.lkey()).rdma(start.addr, start.rkey));
            if (!expect(WcOpcode.RDMA_READ, "wait for RDMA_READ_COMPLETE state %d")) {
                return 1;
            }
            if (c.verbose()) {
                out.println("server ping data: " + cString(rdmaBuf));
            }
            post(send()); // "go on": rping's server sends its (zeroed) send buffer
            next = await("the sink buffer's address (a SEND)");
            if (!(next instanceof WorkCompletion)) {
                return fail("wait for RDMA_WRITE_ADV state 10");
            }
            Info sink = received();
            if (sink == null) {
                return 1;
            }
            int len = cString(rdmaBuf).length() + 1;
            post(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(rdmaMr.address(), len, rdmaMr.lkey()).rdma(sink.addr, sink.rkey));
            if (!expect(WcOpcode.RDMA_WRITE, "wait for RDMA_WRITE_COMPLETE state %d")) {
                return 1;
            }
            post(send()); // "begin again"
        }
    }

    private int client(RdmaDevice dev) throws InterruptedException {
        CmId id = channel.createId(PortSpace.TCP, null);
        peer = new InetSocketAddress(c.address(), c.port());
        id.resolveAddr(c.source(), (InetSocketAddress) peer, 2000);
        CmEvent e = event(WAIT, "RDMA_CM_EVENT_ADDR_RESOLVED", peer);
        if (e != null && e.type() == CmEventType.ADDR_RESOLVED) {
            id.resolveRoute(2000);
            e = event(WAIT, "RDMA_CM_EVENT_ROUTE_RESOLVED", peer);
        }
        if (e == null || e.type() != CmEventType.ROUTE_RESOLVED) {
            err.printf("waiting for addr/route resolution state %d%n", 1);
            return 1;
        }
        setup(dev, id, true);
        post(recv());
        id.connect(new ConnParam(null, 1, 1, 7, 7, false));
        e = event(WAIT, "RDMA_CM_EVENT_ESTABLISHED", peer);
        if (e == null || e.type() != CmEventType.ESTABLISHED) {
            if (e != null) {
                err.printf("cma event RDMA_CM_EVENT_%s, error %d%n", e.type(), e.status());
            }
            err.println("wait for CONNECTED state 10");
            err.println("connect error -1");
            return 1;
        }
        int ret = ping();
        id.disconnect();
        e = channel.getEvent(2_000_000_000L);
        if (e != null && e.type() == CmEventType.DISCONNECTED) {
            err.println("client DISCONNECT EVENT...");
        }
        id.close();
        return ret;
    }

    private int ping() throws InterruptedException {
        int start = 65;
        for (int ping = 0; c.count() == 0 || ping < c.count(); ping++) {
            byte[] head = String.format("rdma-ping-%d: ", ping).getBytes(StandardCharsets.US_ASCII);
            int cc = Math.min(head.length, c.size());
            startBuf.put(0, head, 0, cc);
            int ch = start;
            for (int i = cc; i < c.size(); i++) {
                startBuf.put(i, (byte) ch);
                if (++ch > 122) {
                    ch = 65;
                }
            }
            if (++start > 122) {
                start = 65;
            }
            startBuf.put(c.size() - 1, (byte) 0);
            post(send(startMr));
            Object next = await("the server's \"go on\" (a SEND)");
            if (!(next instanceof WorkCompletion) || received() == null) {
                return fail("wait for RDMA_WRITE_ADV state 10");
            }
            post(send(rdmaMr));
            next = await("the server's \"done\" (a SEND)");
            if (!(next instanceof WorkCompletion) || received() == null) {
                return fail("wait for RDMA_WRITE_COMPLETE state 10");
            }
            if (c.validate() && !startBuf.slice(0, c.size()).equals(rdmaBuf.slice(0, c.size()))) {
                err.println("data mismatch!");
                return 1;
            }
            if (c.verbose()) {
                out.println("ping data: " + cString(rdmaBuf));
            }
        }
        return 0;
    }

    // ---- resources, as rping_setup_qp and rping_setup_buffers make them ----

    private void setup(RdmaDevice dev, CmId id, boolean client) {
        ProtectionDomain pd = dev.allocPd();
        cq = dev.createCq(SQ_DEPTH * 2);
        qp = id.createQp(pd, QpInitAttributes.rc(cq, cq).withCaps(new QpCaps(SQ_DEPTH, 2, 1, 1, 0)));
        recvBuf = ByteBuffer.allocateDirect(INFO);
        sendBuf = ByteBuffer.allocateDirect(INFO);
        rdmaBuf = ByteBuffer.allocateDirect(c.size());
        recvMr = pd.registerMemory(recvBuf, AccessFlags.LOCAL_WRITE);
        sendMr = pd.registerMemory(sendBuf, 0);
        int remote = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE;
        rdmaMr = pd.registerMemory(rdmaBuf, remote);
        if (client) {
            startBuf = ByteBuffer.allocateDirect(c.size());
            startMr = pd.registerMemory(startBuf, remote);
        }
    }

    private RecvWorkRequest recv() {
        return new RecvWorkRequest().wrId(0).sge(recvMr.address(), INFO, recvMr.lkey());
    }

    private SendWorkRequest send() {
        return new SendWorkRequest().wrId(3).opcode(WrOpcode.SEND).signaled(true)
                .sge(sendMr.address(), INFO, sendMr.lkey());
    }

    /** The SEND that tells the peer where {@code mr} is (rping_format_send). */
    private SendWorkRequest send(MemoryRegion mr) {
        sendBuf.putLong(0, mr.address()).putInt(8, mr.rkey()).putInt(12, c.size());
        debug("RDMA addr %x rkey %x len %d", mr.address(), mr.rkey(), c.size());
        return send();
    }

    private void post(SendWorkRequest wr) {
        qp.postSend(wr);
    }

    private void post(RecvWorkRequest wr) {
        qp.postRecv(wr);
    }

    /** The peer's buffer from the receive that just completed, reposting the receive; null on a bogus size. */
    private Info received() {
        if (wc.byteLen() != INFO) {
            err.printf("Received bogus data, size %d%n", wc.byteLen());
            return null;
        }
        Info info = new Info(recvBuf.getLong(0), recvBuf.getInt(8), recvBuf.getInt(12));
        post(recv());
        return info;
    }

    private record Info(long addr, int rkey, int size) {
    }

    /**
     * The next completion other than a SEND's, or a CM event; fails on an error completion. A
     * long wait is mentioned as waiting for {@code what} from the peer.
     */
    private Object await(String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT;
        WaitNotice.Wait w = waiting(what, peer);
        while (System.nanoTime() < deadline) {
            w.check();
            while (cq.poll(wc)) {
                if (!wc.isSuccess()) {
                    if (wc.status() == io.rnic.verbs.WcStatus.WR_FLUSH_ERR) {
                        continue;
                    }
                    err.printf("cq completion failed status %d%n", wc.status().value());
                    return null;
                }
                if (wc.opcode() != WcOpcode.SEND) {
                    return wc;
                }
            }
            CmEvent e = channel.pollEvent();
            if (e != null) {
                return e;
            }
            cq.await(1_000_000);
        }
        return null;
    }

    private boolean expect(WcOpcode op, String failure) throws InterruptedException {
        Object next = await("the " + op + " completion");
        if (next instanceof WorkCompletion w && w.opcode() == op) {
            return true;
        }
        if (next instanceof CmEvent ev && ev.type() == CmEventType.DISCONNECTED) {
            err.printf(failure + "%n", 10);
            return false;
        }
        err.printf(failure + "%n", 11);
        return false;
    }

    private int fail(String message) {
        err.println(message);
        return 1;
    }

    private void debug(String format, Object... args) {
        if (c.debug()) {
            out.printf(format + "%n", args);
        }
    }

    /** The buffer's bytes up to the first NUL, as printf's %s reads them. */
    static String cString(ByteBuffer b) {
        int n = 0;
        while (n < b.capacity() && b.get(n) != 0) {
            n++;
        }
        byte[] s = new byte[n];
        b.get(0, s);
        return new String(s, StandardCharsets.ISO_8859_1);
    }
}
