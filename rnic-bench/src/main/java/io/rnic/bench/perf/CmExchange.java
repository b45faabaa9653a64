package io.rnic.bench.perf;

import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import io.rnic.verbs.cm.CmEvent;
import io.rnic.verbs.cm.CmEventChannel;
import io.rnic.verbs.cm.CmEventType;
import io.rnic.verbs.cm.CmId;
import io.rnic.verbs.cm.ConnParam;
import io.rnic.verbs.cm.PortSpace;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * perftest's {@code -R}: the exchange runs over an rdma_cm connection of its own (an RC QP
 * whose SENDs carry one exchange message each), and the test QPs are connected by the connection
 * manager instead of by the key records. The messages are the TCP exchange's, in perftest's
 * binary form where it differs: a key record travels as the 56-byte {@code struct
 * pingpong_dest} (each field in network order: LID, outstanding reads, QPN, PSN, R_Key, 4 bytes
 * of padding, address, GID, SRQ number, GID index) instead of the 108-byte text line;
 * {@link PerfExchange} writes the TCP forms and these streams convert. (The MTU's 2 bytes
 * travel with 2 bytes of BTH padding, which is why a capture shows 4.)
 */
final class CmExchange implements AutoCloseable {
    static final int DEST = 56;
    private static final int BUF = 128;
    private static final long WAIT = 60_000_000_000L;

    private final PerfSide side;
    private final PerfConfig config;
    private final boolean client;
    private final CmEventChannel channel;
    private final List<CmId> testIds = new ArrayList<>();
    private CmId comm;
    private CmId testListener;
    private QueuePair qp;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private ByteBuffer sendBuf;
    private ByteBuffer recvBuf;
    private MemoryRegion sendMr;
    private MemoryRegion recvMr;
    private final WorkCompletion wc = new WorkCompletion();
    /** The peer's QP as the last SIDR resolved it (UD test QPs), else null. */
    private io.rnic.verbs.cm.UdParam lastUd;

    private CmExchange(PerfSide side, PerfConfig config, boolean client) {
        this.side = side;
        this.config = config;
        this.client = client;
        this.channel = CmEventChannel.create(side.device);
    }

    /** The client's side: connects the exchange QP to the server's port, retrying while it does not listen yet. */
    static CmExchange client(PerfSide side, PerfConfig config) throws InterruptedException {
        CmExchange x = new CmExchange(side, config, true);
        x.comm = x.connect(() -> {
            x.commResources(null);
            return x.qp;
        }, null);
        return x;
    }

    /** The server's side: accepts the exchange connection on its port. */
    static CmExchange server(PerfSide side, PerfConfig config) throws InterruptedException {
        CmExchange x = new CmExchange(side, config, false);
        CmId listener = x.channel.createId(PortSpace.TCP, null);
        listener.bindAddr(new InetSocketAddress(side.device.gid().toInetAddress(), config.tcpPort()));
        listener.listen(1);
        CmEvent e = x.next(CmEventType.CONNECT_REQUEST, null);
        x.comm = e.id();
        x.commResources(x.comm);
        x.comm.accept(x.param(false));
        listener.close(); // perftest's server destroys its control ID once the exchange is connected
        return x;
    }

    private ConnParam param(boolean testQp) {
        PerfTest.Op op = config.test().op();
        // As the QPs without -R: the device's max_qp_rd_atom (128, as rxe's) for READ and atomics.
        int reads = op == PerfTest.Op.READ || op == PerfTest.Op.ATOMIC ? side.device.queryDevice().maxQpRdAtom() : 0;
        return new ConnParam(null, reads, reads, 7, 7, false);
    }

    /** The exchange QP: one SEND and one receive in flight, a buffer for each (perftest's comm context). */
    private void commResources(CmId passive) {
        sendCq = side.device.createCq(4);
        recvCq = side.device.createCq(4);
        CmId id = passive != null ? passive : comm;
        qp = id.createQp(side.pd, QpInitAttributes.rc(sendCq, recvCq).withCaps(new QpCaps(2, 2, 1, 1, 0)));
        sendBuf = ByteBuffer.allocateDirect(BUF);
        recvBuf = ByteBuffer.allocateDirect(BUF);
        sendMr = side.pd.registerMemory(sendBuf, 0);
        recvMr = side.pd.registerMemory(recvBuf, AccessFlags.LOCAL_WRITE);
        postRecv();
    }

    private interface QpMaker {
        QueuePair make();
    }

    /**
     * An active connection to the server's port with the QP {@code maker} attaches; a REJECTED
     * (the server not listening yet) is tried again after 100 ms, for up to a minute.
     */
    private CmId connect(QpMaker maker, QueuePair existing) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT;
        for (;;) {
            CmId id = channel.createId(existing != null ? testSpace() : PortSpace.TCP, null);
            id.resolveAddr(null, new InetSocketAddress(serverAddress(), config.tcpPort()), 2000);
            next(CmEventType.ADDR_RESOLVED, id);
            id.resolveRoute(2000);
            next(CmEventType.ROUTE_RESOLVED, id);
            if (existing != null) {
                id.attachQp(existing);
            } else {
                comm = id;
                maker.make();
            }
            id.connect(param(existing != null));
            CmEvent e = channel.getEvent(WAIT);
            while (e != null && e.id() != id) {
                e = channel.getEvent(WAIT);
            }
            if (e != null && e.type() == CmEventType.ESTABLISHED) {
                lastUd = e.ud();
                return id;
            }
            // Not listening yet answers a REQ with a REJ, a SIDR_REQ with "unsupported" (UNREACHABLE).
            boolean notYet = e != null && (e.type() == CmEventType.REJECTED || e.type() == CmEventType.UNREACHABLE
                    && e.status() != CmEvent.ETIMEDOUT);
            if (!notYet || System.nanoTime() > deadline) {
                throw new IllegalStateException("rdma_cm connection to " + config.server() + ":" + config.tcpPort()
                        + " failed: " + (e == null ? "no event" : e.type() + " status " + e.status()));
            }
            // Not listening yet: start again with a fresh ID, as perftest's client does.
            id.close();
            if (existing != null) {
                existing.modify(new io.rnic.verbs.QpAttributes().state(io.rnic.verbs.QpState.RESET));
            } else {
                qp.close();
                sendCq.close();
                recvCq.close();
            }
            Thread.sleep(100);
        }
    }

    /** The test QPs' port space: TCP for connected QPs, UDP (SIDR) for UD, as perftest's rdma_cm_allocate_nodes. */
    private PortSpace testSpace() {
        return config.type() == io.rnic.verbs.QpType.UD ? PortSpace.UDP : PortSpace.TCP;
    }

    private InetAddress serverAddress() {
        try {
            return InetAddress.getByName(config.server());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("unknown server " + config.server(), e);
        }
    }

    private CmEvent next(CmEventType type, CmId id) throws InterruptedException {
        for (;;) {
            CmEvent e = channel.getEvent(WAIT);
            if (e == null) {
                throw new IllegalStateException("no " + type + " from the connection manager in 60 s");
            }
            if (id != null && e.id() != id || id == null && e.type() == CmEventType.ESTABLISHED) {
                continue; // another ID's event (the exchange connection's ESTABLISHED on a server)
            }
            if (e.type() != type) {
                throw new IllegalStateException("rdma_cm: " + e.type() + " (status " + e.status() + ") instead of "
                        + type);
            }
            return e;
        }
    }

    /**
     * perftest's {@code create_rdma_cm_connection}: a handshake, the test QPs connected by the
     * connection manager (the client connects each, the server accepts each), a handshake.
     */
    void connectTestQps(java.io.DataInputStream in, OutputStream o) throws IOException, InterruptedException {
        if (!client) { // listen before the handshake, so that the client never finds no one there
            testListener = channel.createId(testSpace(), null);
            testListener.bindAddr(new InetSocketAddress(side.device.gid().toInetAddress(), config.tcpPort()));
            testListener.listen(side.qps.size());
        }
        handshake(in, o);
        for (QueuePair q : side.qps) {
            if (client) {
                testIds.add(connect(null, q));
                if (udNeedsQpNumber()) {
                    sendQpNumber(q);
                }
            } else {
                CmEvent e = next(CmEventType.CONNECT_REQUEST, null);
                e.id().attachQp(q);
                MemoryRegion grh = udNeedsQpNumber() ? postQpNumberReceive(q) : null;
                e.id().accept(param(true));
                if (grh != null) {
                    awaitQpNumber();
                    grh.close();
                }
                testIds.add(e.id());
            }
        }
        if (testListener != null) {
            testListener.close();
        }
        handshake(in, o);
    }

    /**
     * perftest's UD latency over {@code -R}: SIDR gives the client the server's QP, but the server
     * learns the client's from a SEND with immediate (its QP number) the client sends first
     * ({@code send_qp_num_for_ah}, {@code rdma_cm_initialize_ud_connection_parameters}).
     */
    private boolean udNeedsQpNumber() {
        return config.type() == io.rnic.verbs.QpType.UD && config.test().latency();
    }

    private void sendQpNumber(QueuePair q) throws IOException {
        sendBuf.putInt(0, Integer.reverseBytes(q.qpn())); // perftest memcpy's its host-order qp_num
        q.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.SEND_WITH_IMM).signaled(true).imm(q.qpn())
                .sge(sendMr.address(), 4, sendMr.lkey()).ud(lastUd.ah(), lastUd.qpNum(), lastUd.qkey()));
        await(side.cq, "QP-number send");
    }

    private MemoryRegion postQpNumberReceive(QueuePair q) {
        MemoryRegion grh = side.pd.registerMemory(ByteBuffer.allocateDirect(40 + 4), AccessFlags.LOCAL_WRITE);
        q.postRecv(new RecvWorkRequest().wrId(3).sge(grh.address(), 40 + 4, grh.lkey()));
        return grh;
    }

    private void awaitQpNumber() throws IOException {
        await(side.cq, "QP-number receive");
    }

    private void handshake(java.io.DataInputStream in, OutputStream o) throws IOException {
        byte[] zero = new byte[PerfExchange.RECORD];
        byte[] text = toText(new byte[DEST]);
        System.arraycopy(text, 0, zero, 0, text.length);
        if (client) {
            o.write(zero);
            o.flush();
            in.readFully(new byte[PerfExchange.RECORD]);
        } else {
            in.readFully(new byte[PerfExchange.RECORD]);
            o.write(zero);
            o.flush();
        }
    }

    // ---- the exchange's streams ----

    InputStream in() {
        return new InputStream() {
            private byte[] message = new byte[0];
            private int at;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (at == message.length) {
                    message = receive();
                    at = 0;
                }
                int n = Math.min(len, message.length - at);
                System.arraycopy(message, at, b, off, n);
                at += n;
                return n;
            }
        };
    }

    OutputStream out() {
        return new OutputStream() {
            private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

            @Override
            public void write(int b) {
                pending.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                pending.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                if (pending.size() > 0) {
                    send(pending.toByteArray());
                    pending.reset();
                }
            }
        };
    }

    /** One exchange message out as one SEND, waiting for its completion (perftest's rdma_write_data). */
    private void send(byte[] tcpForm) throws IOException {
        byte[] m = tcpForm.length == PerfExchange.RECORD && !startsWith(tcpForm, PerfExchange.REPORT) ? toBinary(tcpForm)
                : tcpForm;
        sendBuf.put(0, m);
        qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).signaled(true)
                .sge(sendMr.address(), m.length, sendMr.lkey()));
        await(sendCq, "send");
    }

    /** The next message, in the TCP exchange's form (perftest's rdma_read_data). */
    private byte[] receive() throws IOException {
        await(recvCq, "receive");
        byte[] m = new byte[wc.byteLen()];
        recvBuf.get(0, m);
        postRecv();
        return m.length == DEST ? toText(m) : m;
    }

    private void postRecv() {
        qp.postRecv(new RecvWorkRequest().wrId(2).sge(recvMr.address(), BUF, recvMr.lkey()));
    }

    private void await(CompletionQueue cq, String what) throws IOException {
        long deadline = System.nanoTime() + WAIT;
        try {
            while (!cq.poll(wc)) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("the exchange's " + what + " did not complete in 60 s");
                }
                cq.await(1_000_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (!wc.isSuccess()) {
            throw new IOException("the exchange's " + what + " failed: " + wc.status());
        }
    }

    private static boolean startsWith(byte[] b, String prefix) {
        return new String(b, 0, Math.min(b.length, prefix.length()), StandardCharsets.US_ASCII).equals(prefix);
    }

    /** A text key record ("lid:out_reads:qpn:psn:rkey:vaddr:gid bytes:srqn:") as a pingpong_dest. */
    static byte[] toBinary(byte[] text) {
        String s = new String(text, StandardCharsets.US_ASCII);
        int nul = s.indexOf('\0');
        String[] f = (nul >= 0 ? s.substring(0, nul) : s).split(":");
        ByteBuffer b = ByteBuffer.allocate(DEST);
        b.putInt(0, Integer.parseInt(f[0], 16)).putInt(4, Integer.parseInt(f[1], 16))
                .putInt(8, Integer.parseInt(f[2], 16)).putInt(12, Integer.parseInt(f[3], 16))
                .putInt(16, (int) Long.parseLong(f[4], 16)).putLong(24, Long.parseUnsignedLong(f[5], 16));
        for (int i = 0; i < 16; i++) {
            b.put(32 + i, (byte) Integer.parseInt(f[6 + i], 16));
        }
        b.putInt(48, f.length > 22 ? (int) Long.parseLong(f[22], 16) : 0).putInt(52, 1);
        return b.array();
    }

    /** A pingpong_dest as the text key record the TCP exchange carries. */
    static byte[] toText(byte[] dest) {
        ByteBuffer b = ByteBuffer.wrap(dest);
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x:",
                b.getInt(0) & 0xFFFF, b.getInt(4) & 0xFFFF, b.getInt(8) & 0xFFFFFF, b.getInt(12) & 0xFFFFFF,
                b.getInt(16), b.getLong(24)));
        for (int i = 0; i < 16; i++) {
            s.append(String.format(Locale.ROOT, "%02x:", b.get(32 + i) & 0xFF));
        }
        s.append(String.format(Locale.ROOT, "%08x:", b.getInt(48)));
        byte[] out = new byte[PerfExchange.RECORD];
        byte[] t = s.toString().getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, out, 0, t.length);
        return out;
    }

    /**
     * Disconnects as perftest ends an rdma_cm run: every test QP's connection (both sides ask at
     * once), then the exchange connection, which the server closes and the client answers.
     */
    @Override
    public void close() throws InterruptedException {
        for (CmId id : testIds) {
            id.disconnect();
        }
        drainDisconnects(testIds);
        if (comm != null) {
            if (!client) {
                comm.disconnect();
            }
            drainDisconnects(List.of(comm));
            if (client) {
                comm.disconnect(); // the DREP
            }
        }
        for (CmId id : testIds) {
            id.close();
        }
        if (comm != null) {
            comm.close();
        }
        channel.close();
    }

    private void drainDisconnects(List<CmId> ids) throws InterruptedException {
        java.util.Set<CmId> left = new java.util.HashSet<>(ids);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            CmEvent e = channel.getEvent(deadline - System.nanoTime());
            if (e != null && e.type() == CmEventType.DISCONNECTED) {
                left.remove(e.id());
            }
        }
    }
}
