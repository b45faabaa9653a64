package io.rnic.bench.pingpong;

import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.CompletionChannel;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.DeviceConfig;
import io.rnic.verbs.Gid;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import io.rnic.verbs.XrcDomain;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * rdma-core's {@code ibv_xsrq_pingpong} on an emulated HCA (reference §11.4): each "process" has
 * a PD, a buffer, a receive CQ, a send CQ, and one XRC SRQ in the node's shared XRC domain; for
 * every peer it has a target QP (reached by the peer's initiator) and an initiator QP (reaching
 * the peer's target). The exchange is one 66-byte {@code LID:RECV QPN:SEND QPN:PSN:SRQN:GID}
 * record each way per client, over TCP connections that stay open; traffic starts at the server,
 * which sends to each client's SRQ through its initiators round robin, so a message for one
 * client may travel through the initiator connected to another client's target QP: one
 * initiator reaches every XRC SRQ of the node's domain (IBA 9.7.9.1). Only the last send
 * to each peer is signaled. At the end each client sends {@code "END"} and waits for the
 * server's, which answers once every client has said it.
 *
 * <p>Several clients of one node are processes sharing one XRC domain; here {@code --clients}
 * on the client side runs that many of them in this process, on one emulated HCA, each with
 * its own resources and TCP connection.
 */
public final class XsrqPingpong {
    static final int RECORD = 66;
    private static final byte[] END = "END\0".getBytes(StandardCharsets.US_ASCII);
    private static final long WAIT_NANOS = 30_000_000_000L;

    private final PingpongConfig c;
    private final PrintStream out;
    private final PrintStream err;
    private final SecureRandom random = new SecureRandom();

    public XsrqPingpong(PingpongConfig config, PrintStream out, PrintStream err) {
        this.c = config;
        this.out = out;
        this.err = err;
    }

    /** One side's record: its target (receive) QP, initiator (send) QP, PSN and XRC SRQ. */
    record Dest(int lid, int recvQpn, int sendQpn, int psn, int srqn, Gid gid) {
        String text() {
            return String.format("%04x:%06x:%06x:%06x:%06x:%s", lid, recvQpn, sendQpn, psn, srqn,
                    gid == null ? "0".repeat(32) : gid.toHex());
        }

        static Dest parse(String rec) {
            String[] f = rec.split(":");
            if (f.length != 6 || f[5].length() != 32) {
                throw new IllegalArgumentException("malformed LID:RECV:SEND:PSN:SRQN:GID record \"" + rec + "\"");
            }
            boolean zero = f[5].chars().allMatch(ch -> ch == '0');
            return new Dest(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                    Integer.parseInt(f[3], 16), Integer.parseInt(f[4], 16), zero ? null : Gid.parseHex(f[5]));
        }

        String line(String who) {
            return String.format("%8s: LID %04x, QPN RECV %06x SEND %06x, PSN %06x, SRQN %06x, GID %s", who, lid, recvQpn,
                    sendQpn, psn, srqn, gid == null ? "::" : gid);
        }
    }

    /** Runs to the end; returns the exit status (0: "success"). */
    public int run() throws IOException, InterruptedException {
        try (RdmaDevice dev = RdmaDevice.open(UdpWire.bind(c.ip()).port(c.udpPort())
                .gso(io.rnic.transport.udp.Gso.OFF).open(), DeviceConfig.defaults().withIcrcPolicy(c.icrc())
                // ibv_xsrq_pingpong's send CQ has one entry per client for num_clients x num_tests
                // sends: it polls as it goes. The clone keeps that sizing, so not the warning.
                .withPitfallWarningsOff(io.rnic.verbs.Pitfall.CQ_SMALLER_THAN_ITS_QUEUES))) {
            if (c.isServer()) {
                return new Process(dev, c.numQp()).serve();
            }
            int clients = c.numQp();
            if (clients == 1) {
                return new Process(dev, 1).dial();
            }
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            try {
                List<Future<Integer>> runs = new ArrayList<>();
                for (int i = 0; i < clients; i++) {
                    Process p = new Process(dev, 1);
                    runs.add(pool.submit((Callable<Integer>) p::dial));
                }
                int status = 0;
                for (Future<Integer> f : runs) {
                    status |= f.get();
                }
                return status;
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IOException(e.getCause().getMessage(), e.getCause());
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /** One ibv_xsrq_pingpong process: its resources, its peers, its loop. */
    private final class Process {
        final RdmaDevice dev;
        final int peers;
        final ProtectionDomain pd;
        final ByteBuffer buf;
        final MemoryRegion mr;
        final XrcDomain xrcd;
        final CompletionChannel channel;
        final CompletionQueue recvCq;
        final CompletionQueue sendCq;
        final SharedReceiveQueue srq;
        final QueuePair[] recvQp;
        final QueuePair[] sendQp;
        final Dest[] remote;
        final int[] ppCnt;
        final Socket[] sockets;
        final RecvWorkRequest rwr;
        final SendWorkRequest swr = new SendWorkRequest();

        Process(RdmaDevice dev, int peers) {
            this.dev = dev;
            this.peers = peers;
            pd = dev.allocPd();
            buf = ByteBuffer.allocateDirect(Math.max(1, c.size()));
            mr = pd.registerMemory(buf, AccessFlags.LOCAL_WRITE);
            // The program opens its domain through a file that every process of the node names.
            xrcd = dev.openXrcd("/tmp/xrc_domain");
            channel = c.events() ? dev.createCompletionChannel() : null;
            recvCq = dev.createCq(peers, channel);
            if (channel != null) {
                recvCq.requestNotify(false);
            }
            sendCq = dev.createCq(peers);
            srq = pd.createXrcSrq(xrcd, recvCq, peers, 1, 0);
            recvQp = new QueuePair[peers];
            sendQp = new QueuePair[peers];
            for (int i = 0; i < peers; i++) {
                recvQp[i] = xrcd.createTargetQp();
                recvQp[i].modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                        .accessFlags(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ));
                QpCaps caps = new QpCaps(Math.max(1, peers * c.iters()), 1, 1, 1, 0);
                sendQp[i] = pd.createQp(new QpInitAttributes(QpType.XRC_SEND, sendCq, null, caps, false, false));
                sendQp[i].modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
            }
            remote = new Dest[peers];
            ppCnt = new int[peers];
            sockets = new Socket[peers];
            rwr = new RecvWorkRequest().wrId(0).sge(mr.address(), c.size(), mr.lkey());
            postRecv(peers);
        }

        void postRecv(int n) {
            for (int i = 0; i < n; i++) {
                srq.postRecv(rwr);
            }
        }

        /** The next message to peer {@code index}, through the initiators round robin; the last one signaled. */
        void postSend(int index) {
            int qpi = (index + ppCnt[index]) % peers;
            boolean last = ++ppCnt[index] >= c.iters();
            sendQp[qpi].postSend(swr.reset().wrId(index).opcode(WrOpcode.SEND).signaled(last)
                    .sge(mr.address(), c.size(), mr.lkey()).xrc(remote[index].srqn()));
        }

        Dest local(int index) {
            return new Dest(0, recvQp[index].qpn(), sendQp[index].qpn(), random.nextInt(1 << 24), srq.srqn(), dev.gid());
        }

        int serve() throws IOException, InterruptedException {
            try (ServerSocket ss = new ServerSocket()) {
                ss.setReuseAddress(true);
                ss.bind(new InetSocketAddress(c.tcpPort()), peers);
                for (int i = 0; i < peers; i++) {
                    sockets[i] = ss.accept();
                    remote[i] = read(sockets[i]);
                    out.println(remote[i].line("remote"));
                    Dest me = local(i);
                    out.println(me.line("local"));
                    write(sockets[i], me);
                    connect(i, me);
                }
            }
            out.flush();
            for (int i = 0; i < peers; i++) {
                postSend(i);
            }
            int status = traffic();
            if (status == 0) {
                for (Socket s : sockets) {
                    expectEnd(s);
                }
                for (Socket s : sockets) {
                    s.getOutputStream().write(END);
                    s.getOutputStream().flush();
                }
            }
            return finish(status);
        }

        int dial() throws IOException, InterruptedException {
            Socket s = connectToServer();
            sockets[0] = s;
            Dest me = local(0);
            out.println(me.line("local"));
            out.flush();
            write(s, me);
            remote[0] = read(s);
            out.println(remote[0].line("remote"));
            out.flush();
            connect(0, me);
            int status = traffic();
            if (status == 0) {
                s.getOutputStream().write(END);
                s.getOutputStream().flush();
                expectEnd(s);
            }
            return finish(status);
        }

        /** The QP settings of the program's connect_qps (reference §11.4). */
        void connect(int i, Dest me) {
            Dest r = remote[i];
            if (r.gid() == null) {
                throw new IllegalArgumentException("the peer sent no GID; RoCE needs one (run it with -g)");
            }
            AddressVector av = AddressVector.of(r.gid().toInetAddress()).withHopLimit(5);
            recvQp[i].modify(new QpAttributes().state(QpState.RTR).av(av).pathMtu(c.mtu()).destQpn(r.sendQpn())
                    .rqPsn(r.psn()).maxDestRdAtomic(0).minRnrTimer(12));
            recvQp[i].modify(new QpAttributes().state(QpState.RTS).timeout(14).sqPsn(me.psn()));
            sendQp[i].modify(new QpAttributes().state(QpState.RTR).av(av).pathMtu(c.mtu()).destQpn(r.recvQpn())
                    .rqPsn(r.psn()));
            sendQp[i].modify(new QpAttributes().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(me.psn())
                    .maxRdAtomic(0));
        }

        /** Receives {@code peers × iters} messages, answering each peer until it has had its share. */
        int traffic() throws InterruptedException {
            int total = peers * c.iters();
            int cnt = 0;
            WorkCompletion wc = new WorkCompletion();
            while (cnt < total) {
                if (channel != null) {
                    if (channel.getEvent(WAIT_NANOS) == null) {
                        err.println("Failed to get cq_event");
                        return 1;
                    }
                    recvCq.requestNotify(false);
                } else if (recvCq.size() == 0 && !recvCq.await(WAIT_NANOS)) {
                    err.printf("timed out after %d of %d messages%n", cnt, total);
                    return 1;
                }
                while (recvCq.poll(wc)) {
                    if (wc.status() != WcStatus.SUCCESS) {
                        err.printf("Work completion error %d%n", wc.status().value());
                        return 1;
                    }
                    postRecv(1);
                    int qpi = findQp(wc.qpNum());
                    if (ppCnt[qpi] < c.iters()) {
                        postSend(qpi);
                    }
                    cnt++;
                }
            }
            for (int done = 0; done < peers; ) {
                if (sendCq.poll(wc)) {
                    if (wc.status() != WcStatus.SUCCESS) {
                        err.printf("Work completion error %d%n", wc.status().value());
                        return 1;
                    }
                    done++;
                } else if (!sendCq.await(WAIT_NANOS)) {
                    err.println("timed out waiting for the last sends");
                    return 1;
                }
            }
            return 0;
        }

        int findQp(int qpn) {
            if (peers == 1) {
                return 0;
            }
            for (int i = 0; i < peers; i++) {
                if (recvQp[i].qpn() == qpn) {
                    return i;
                }
            }
            err.printf("Unable to find qp %x%n", qpn);
            return 0;
        }

        int finish(int status) throws IOException {
            for (int i = 0; i < peers; i++) {
                sendQp[i].close();
                recvQp[i].close();
                if (sockets[i] != null) {
                    sockets[i].close();
                }
            }
            srq.close();
            xrcd.close();
            if (status == 0) {
                out.println("success");
            }
            out.flush();
            return status;
        }
    }

    /**
     * Connects to the server, trying again for 30 s while it refuses: it listens only once its
     * QPs exist, and it prints nothing before a client connects, so a client started at the same
     * time could otherwise arrive first.
     */
    private Socket connectToServer() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(c.server(), c.tcpPort()), 30_000);
                return s;
            } catch (java.net.ConnectException e) {
                s.close();
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    private static void write(Socket s, Dest d) throws IOException {
        byte[] r = new byte[RECORD];
        byte[] t = d.text().getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, r, 0, Math.min(t.length, RECORD - 1));
        OutputStream o = s.getOutputStream();
        o.write(r);
        o.flush();
    }

    private static Dest read(Socket s) throws IOException {
        byte[] b = new byte[RECORD];
        new DataInputStream(s.getInputStream()).readFully(b);
        int end = 0;
        while (end < RECORD && b[end] != 0) {
            end++;
        }
        return Dest.parse(new String(b, 0, end, StandardCharsets.US_ASCII));
    }

    private static void expectEnd(Socket s) throws IOException {
        byte[] b = new byte[END.length];
        new DataInputStream(s.getInputStream()).readFully(b);
        if (!java.util.Arrays.equals(b, END)) {
            throw new IOException("Invalid termination ack was accepted");
        }
    }
}
