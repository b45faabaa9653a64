package io.rnic.bench.pingpong;

import io.rnic.bench.pingpong.PingpongExchange.Dest;
import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AddressHandle;
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
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * One run of rdma-core's {@code ibv_rc_pingpong}, {@code ibv_uc_pingpong}, {@code ibv_ud_pingpong}
 * or {@code ibv_srq_pingpong} on an emulated HCA: the same resources and QP settings, the same
 * exchange, the same traffic (each QP sends its next message once its previous send completed
 * and a message arrived on it; receives are topped up to {@code -r} when they run low) and the
 * same report, so that either side can be rdma-core's program.
 */
public final class Pingpong {
    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;
    private static final long WAIT_NANOS = 30_000_000_000L;
    private static final int PAGE = 4096;

    private final PingpongConfig c;
    private final PingpongMode mode;
    private final PrintStream out;
    private final PrintStream err;
    private final SecureRandom random = new SecureRandom();
    /** Inline sends up to this many bytes, as the programs do when the QP allows it. */
    private final int maxInline;

    private ByteBuffer buf;
    private MemoryRegion mr;
    private CompletionQueue cq;
    private SharedReceiveQueue srq;
    private QueuePair[] qps;
    private AddressHandle ah;
    private int udRemoteQpn;

    public Pingpong(PingpongConfig config, PrintStream out, PrintStream err) {
        this.c = config;
        this.mode = config.mode();
        this.out = out;
        this.err = err;
        this.maxInline = Math.min(config.size(), 256);
    }

    /** Runs to the end; returns the exit status (0 when every iteration completed). */
    public int run() throws IOException, InterruptedException {
        try (RdmaDevice dev = RdmaDevice.open(UdpWire.bind(c.ip()).port(c.udpPort()).gso(io.rnic.transport.udp.Gso.OFF)
                // One thread does everything in ibv_*_pingpong: it drives its HCA too (no hand-offs).
                .ownedAgent(io.rnic.transport.udp.HcaAgent.invoker(io.rnic.transport.udp.HcaAgent.Idle.BLOCK)).open(),
                DeviceConfig.defaults().withIcrcPolicy(c.icrc()))) {
            int portMtu = dev.queryPort().activeMtu().bytes();
            if (mode == PingpongMode.UD && c.size() > portMtu) {
                err.printf("Requested size larger than port MTU (%d)%n", portMtu);
                return 1;
            }
            ProtectionDomain pd = dev.allocPd();
            int bufLen = c.size() + mode.receiveHeader();
            buf = ByteBuffer.allocateDirect(bufLen);
            for (int i = 0; i < bufLen; i++) {
                buf.put(i, (byte) mode.fill());
            }
            mr = pd.registerMemory(buf, AccessFlags.LOCAL_WRITE);
            CompletionChannel channel = c.events() ? dev.createCompletionChannel() : null;
            cq = dev.createCq(c.rxDepth() + c.numQp(), channel);
            srq = mode == PingpongMode.SRQ ? pd.createSrq(c.rxDepth(), 1, 0) : null;
            qps = new QueuePair[c.numQp()];
            for (int i = 0; i < qps.length; i++) {
                QpCaps caps = new QpCaps(1, srq != null ? 1 : c.rxDepth(), 1, 1, maxInline);
                qps[i] = pd.createQp(new QpInitAttributes(mode.type(), cq, cq, caps, false, true).withSrq(srq));
                QpAttributes init = new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1);
                qps[i].modify(mode == PingpongMode.UD ? init.qkey(PingpongMode.UD_QKEY) : init.accessFlags(0));
            }
            int routs = postRecvs(c.rxDepth());
            if (c.events()) {
                cq.requestNotify(false);
            }
            Gid gid = dev.gid();
            List<Dest> local = new ArrayList<>();
            for (QueuePair qp : qps) {
                local.add(new Dest(0, qp.qpn(), random.nextInt(1 << 24), gid));
            }
            List<Dest> remote = exchange(pd, local);
            for (int i = 0; i < qps.length; i++) {
                Dest r = remote.get(i);
                out.printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", r.lid(), r.qpn(), r.psn(),
                        r.gid() == null ? "::" : r.gid());
            }
            if (!c.isServer()) {
                connect(pd, local, remote);
            }
            try {
                return traffic(channel, routs);
            } finally {
                if (ah != null) {
                    ah.close();
                }
            }
        }
    }

    private void printLocal(List<Dest> local) {
        for (Dest d : local) {
            // ibv_ud_pingpong alone prints a colon before the GID.
            out.printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x%s GID %s%n", d.lid(), d.qpn(), d.psn(),
                    mode == PingpongMode.UD ? ":" : ",", d.gid());
        }
        out.flush();
    }

    private List<Dest> exchange(ProtectionDomain pd, List<Dest> local) throws IOException {
        if (c.isServer()) {
            // Listen before saying so: a client started after the local lines can connect.
            try (ServerSocket ss = new ServerSocket()) {
                ss.setReuseAddress(true);
                ss.bind(new InetSocketAddress(c.tcpPort()));
                printLocal(local);
                return PingpongExchange.serve(ss, local, mode.records(), remote -> connect(pd, local, remote));
            }
        }
        printLocal(local);
        return PingpongExchange.dial(c.server(), c.tcpPort(), local, mode.records());
    }

    /** The QP settings the programs use (reference §11.2, §11.3). */
    private void connect(ProtectionDomain pd, List<Dest> local, List<Dest> remote) {
        if (remote.get(0).gid() == null) {
            throw new IllegalArgumentException("the peer sent no GID; RoCE needs one (run it with -g)");
        }
        // Every QP's address comes from the first record, as in ibv_srq_pingpong.
        AddressVector av = AddressVector.of(remote.get(0).gid().toInetAddress()).withHopLimit(1);
        if (mode == PingpongMode.UD) {
            qps[0].modify(new QpAttributes().state(QpState.RTR));
            qps[0].modify(new QpAttributes().state(QpState.RTS).sqPsn(local.get(0).psn()));
            ah = pd.createAddressHandle(av);
            udRemoteQpn = remote.get(0).qpn();
            return;
        }
        boolean rc = mode.type() == io.rnic.verbs.QpType.RC;
        for (int i = 0; i < qps.length; i++) {
            QpAttributes rtr = new QpAttributes().state(QpState.RTR).pathMtu(c.mtu()).destQpn(remote.get(i).qpn())
                    .rqPsn(remote.get(i).psn()).av(av);
            QpAttributes rts = new QpAttributes().state(QpState.RTS).sqPsn(local.get(i).psn());
            if (rc) {
                rtr.maxDestRdAtomic(1).minRnrTimer(12);
                rts.timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
            }
            qps[i].modify(rtr);
            qps[i].modify(rts);
        }
    }

    /** Posts up to {@code n} receives (to the SRQ, or the QP's own queue); returns how many. */
    private int postRecvs(int n) {
        RecvWorkRequest rwr = new RecvWorkRequest().wrId(RECV_WRID).sge(mr.address(), c.size() + mode.receiveHeader(),
                mr.lkey());
        for (int i = 0; i < n; i++) {
            if (srq != null) {
                srq.postRecv(rwr);
            } else {
                qps[0].postRecv(rwr);
            }
        }
        return n;
    }

    private void postSend(SendWorkRequest swr, int qp) {
        qps[qp].postSend(swr);
    }

    private int traffic(CompletionChannel channel, int routs) throws InterruptedException {
        int header = mode.receiveHeader();
        SendWorkRequest swr = new SendWorkRequest().wrId(SEND_WRID).opcode(WrOpcode.SEND).signaled(true)
                .inline(c.size() <= maxInline).sge(mr.address() + header, c.size(), mr.lkey());
        if (mode == PingpongMode.UD) {
            swr.ud(ah, udRemoteQpn, PingpongMode.UD_QKEY);
        }
        int[] pending = new int[qps.length];
        if (!c.isServer()) {
            if (c.validate()) {
                for (int i = 0; i < c.size(); i += PAGE) {
                    buf.put(header + i, (byte) 0);
                }
            }
            for (int i = 0; i < qps.length; i++) {
                postSend(swr, i);
                pending[i] = RECV_WRID | SEND_WRID;
            }
        } else {
            java.util.Arrays.fill(pending, RECV_WRID);
        }
        long start = System.nanoTime();
        int threshold = mode == PingpongMode.SRQ ? qps.length : 1;
        int rcnt = 0;
        int scnt = 0;
        WorkCompletion[] wcs = new WorkCompletion[mode == PingpongMode.SRQ ? qps.length + c.rxDepth() : 2];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        while (rcnt < c.iters() || scnt < c.iters()) {
            int n;
            if (c.events()) {
                if (channel.getEvent(WAIT_NANOS) == null) {
                    err.println("Failed to get cq_event");
                    return 1;
                }
                cq.requestNotify(false);
            }
            do {
                n = cq.poll(wcs);
                if (n == 0 && !c.events() && !cq.await(WAIT_NANOS)) {
                    err.printf("timed out after %d sends and %d receives%n", scnt, rcnt);
                    return 1;
                }
            } while (n == 0 && !c.events());
            for (int k = 0; k < n; k++) {
                WorkCompletion wc = wcs[k];
                if (wc.status() != WcStatus.SUCCESS) {
                    err.printf("Failed status %s (%d) for wr_id %d%n", wc.status().text(), wc.status().value(), (int) wc.wrId());
                    return 1;
                }
                int qp = indexOf(wc.qpNum());
                if (qp < 0) {
                    err.printf("Couldn't find QPN %06x%n", wc.qpNum());
                    return 1;
                }
                if (wc.wrId() == SEND_WRID) {
                    scnt++;
                } else if (wc.wrId() == RECV_WRID) {
                    if (--routs <= threshold) {
                        routs += postRecvs(c.rxDepth() - routs);
                    }
                    rcnt++;
                } else {
                    err.printf("Completion for unknown wr_id %d%n", (int) wc.wrId());
                    return 1;
                }
                pending[qp] &= (int) ~wc.wrId();
                if (scnt < c.iters() && pending[qp] == 0) {
                    postSend(swr, qp);
                    pending[qp] = RECV_WRID | SEND_WRID;
                }
            }
        }
        double usec = (System.nanoTime() - start) / 1000.0;
        long bytes = (long) c.size() * c.iters() * 2;
        out.printf("%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1_000_000, bytes * 8.0 / usec);
        out.printf("%d iters in %.2f seconds = %.2f usec/iter%n", c.iters(), usec / 1_000_000, usec / c.iters());
        if (c.isServer() && c.validate()) {
            for (int i = 0; i < c.size(); i += PAGE) {
                if (buf.get(header + i) != 0) {
                    out.printf("invalid data in page %d%n", i / PAGE);
                }
            }
        }
        for (QueuePair qp : qps) {
            qp.close();
        }
        if (srq != null) {
            srq.close();
        }
        return 0;
    }

    private int indexOf(int qpn) {
        for (int i = 0; i < qps.length; i++) {
            if (qps[i].qpn() == qpn) {
                return i;
            }
        }
        return -1;
    }
}
