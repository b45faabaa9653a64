package io.rnic.bench.cli;

import io.rnic.core.hca.IcrcPolicy;
import io.rnic.core.memory.AccessFlags;
import io.rnic.core.qp.AddressVector;
import io.rnic.core.qp.PathMtu;
import io.rnic.core.qp.QpAttributes;
import io.rnic.core.qp.QpState;
import io.rnic.core.transport.QpCaps;
import io.rnic.core.transport.RecvWorkRequest;
import io.rnic.core.transport.SendWorkRequest;
import io.rnic.core.transport.WcStatus;
import io.rnic.core.transport.WorkCompletion;
import io.rnic.core.transport.WrOpcode;
import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.CompletionChannel;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.DeviceConfig;
import io.rnic.verbs.Gid;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RdmaDevice;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

/**
 * {@code rnic pingpong}: rdma-core's {@code ibv_rc_pingpong} on an emulated HCA — the same
 * options, the same out-of-band exchange over TCP (52-byte {@code LID:QPN:PSN:GID} records and a
 * final {@code "done"}), the same traffic and the same report, so either side can be ours or
 * rdma-core's (reference §11.2).
 */
public final class PingpongCommand extends ParsedCommand {
    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;
    static final int RECORD = 52;

    private final ArgParser parser = new ArgParser("rnic pingpong", "[options] [SERVER]")
            .description("""
                    Ping-pong SENDs over an RC queue pair, interoperable with rdma-core's ibv_rc_pingpong
                    (for example against Linux Soft-RoCE: ibv_rc_pingpong -d rxe0 -g 1). Without SERVER it
                    waits for a client on the TCP port; with SERVER it connects to it. The HCA binds --ip on
                    UDP port 4791.""")
            .option(null, "--ip", "A.B.C.D", "address of this emulated HCA (default 127.0.0.2 as server, 127.0.0.3 as client)")
            .option("-p", "--port", "PORT", "TCP port of the exchange (default 18515)")
            .option("-s", "--size", "SIZE", "size of each message (default 4096)")
            .option("-n", "--iters", "ITERS", "number of exchanges (default 1000)")
            .option("-m", "--mtu", "MTU", "path MTU (default 1024)")
            .option("-r", "--rx-depth", "DEPTH", "receive queue depth (default 500)")
            .flag("-e", "--events", "sleep on completion-channel events instead of polling")
            .flag(null, "--uc", "unreliable connection: interoperate with ibv_uc_pingpong instead")
            .option(null, "--udp-port", "N", "UDP port of the HCA (default 4791)")
            .option(null, "--icrc", "POLICY", "strict (default) or accept-unverifiable: use the latter against a kernel "
                    + "peer, whose IPv4 identification (covered by the ICRC) a UDP socket cannot see")
            .positionals("SERVER", 0, 1)
            .epilog("Exit status: 0 all iterations completed, 1 a failure, 2 bad options.");

    @Override
    public String name() {
        return "pingpong";
    }

    @Override
    public String summary() {
        return "ibv_rc_pingpong (or --uc ibv_uc_pingpong) on an emulated HCA, interoperable with rdma-core's";
    }

    @Override
    protected ArgParser parser() {
        return parser;
    }

    @Override
    protected int execute(ParsedArgs args, PrintStream out, PrintStream err) throws UsageException {
        String server = args.positionals().isEmpty() ? null : args.positionals().get(0);
        String ip = args.has("--ip") ? args.value("--ip") : server == null ? "127.0.0.2" : "127.0.0.3";
        int tcpPort = args.intValue("--port", 1, 65535).orElse(18515);
        int size = args.intValue("--size", 1, 1 << 24).orElse(4096);
        int iters = args.intValue("--iters", 1, Integer.MAX_VALUE).orElse(1000);
        int rxDepth = args.intValue("--rx-depth", 1, 1 << 15).orElse(500);
        int udpPort = args.intValue("--udp-port", 1, 65535).orElse(4791);
        boolean events = args.flag("--events");
        boolean uc = args.flag("--uc");
        PathMtu mtu;
        try {
            mtu = PathMtu.ofBytes(args.intValue("--mtu", 256, 4096).orElse(1024));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--mtu must be 256, 512, 1024, 2048 or 4096");
        }
        String policy = args.has("--icrc") ? args.value("--icrc") : "strict";
        IcrcPolicy icrc = switch (policy) {
            case "strict" -> IcrcPolicy.STRICT;
            case "accept-unverifiable" -> IcrcPolicy.ACCEPT_UNVERIFIABLE;
            default -> throw new UsageException("--icrc must be strict or accept-unverifiable, not " + policy);
        };
        try {
            return run(out, err, server, ip, tcpPort, size, iters, rxDepth, udpPort, events, mtu, icrc, uc);
        } catch (IOException | RuntimeException e) {
            err.println("rnic pingpong: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private int run(PrintStream out, PrintStream err, String server, String ip, int tcpPort, int size, int iters, int rxDepth,
                    int udpPort, boolean events, PathMtu mtu, IcrcPolicy icrc, boolean uc)
            throws IOException, InterruptedException {
        try (RdmaDevice dev = RdmaDevice.open(UdpWire.bind(ip).port(udpPort).open(), DeviceConfig.defaults().withIcrcPolicy(icrc))) {
            ProtectionDomain pd = dev.allocPd();
            ByteBuffer buf = ByteBuffer.allocateDirect(size);
            MemoryRegion mr = pd.registerMemory(buf, AccessFlags.LOCAL_WRITE);
            CompletionChannel channel = events ? dev.createCompletionChannel() : null;
            CompletionQueue cq = dev.createCq(rxDepth + 1, channel);
            int maxInline = Math.min(size, 256);
            QpInitAttributes init = uc ? QpInitAttributes.uc(cq, cq) : QpInitAttributes.rc(cq, cq);
            QueuePair qp = pd.createQp(init.withCaps(new QpCaps(1, rxDepth, 1, 1, maxInline)));
            qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
            RecvWorkRequest rwr = new RecvWorkRequest().wrId(RECV_WRID).sge(mr.address(), size, mr.lkey());
            for (int i = 0; i < rxDepth; i++) {
                qp.postRecv(rwr);
            }
            int routs = rxDepth;
            if (events) {
                cq.requestNotify(false);
            }
            int psn = new SecureRandom().nextInt(1 << 24);
            Gid gid = dev.gid();
            String local = String.format("%04x:%06x:%06x:%s", 0, qp.qpn(), psn, gid.toHex());
            String[] remote;
            if (server == null) {
                // Listen before saying so: a client started after this line can connect.
                try (ServerSocket ss = new ServerSocket()) {
                    ss.setReuseAddress(true);
                    ss.bind(new InetSocketAddress(tcpPort));
                    out.printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", 0, qp.qpn(), psn, gid);
                    out.flush();
                    remote = serve(ss, local, qp, psn, mtu);
                }
            } else {
                out.printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", 0, qp.qpn(), psn, gid);
                remote = dial(server, tcpPort, local);
            }
            int rqpn = Integer.parseInt(remote[1], 16);
            int rpsn = Integer.parseInt(remote[2], 16);
            Gid rgid = Gid.parseHex(remote[3]);
            out.printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", Integer.parseInt(remote[0], 16), rqpn, rpsn,
                    rgid);
            if (server != null) {
                connect(qp, psn, rqpn, rpsn, rgid, mtu);
            }

            SendWorkRequest swr = new SendWorkRequest().wrId(SEND_WRID).opcode(WrOpcode.SEND).signaled(true)
                    .inline(size <= maxInline).sge(mr.address(), size, mr.lkey());
            int pending = RECV_WRID;
            long start = System.nanoTime();
            if (server != null) {
                qp.postSend(swr);
                pending |= SEND_WRID;
            }
            int rcnt = 0;
            int scnt = 0;
            WorkCompletion[] wcs = new WorkCompletion[2];
            wcs[0] = new WorkCompletion();
            wcs[1] = new WorkCompletion();
            while (rcnt < iters || scnt < iters) {
                int n;
                if (events) {
                    CompletionQueue ev = channel.getEvent(30_000_000_000L);
                    if (ev == null) {
                        err.println("Failed to get cq_event");
                        return 1;
                    }
                    cq.requestNotify(false);
                }
                do {
                    n = cq.poll(wcs);
                    if (n == 0 && !events && !cq.await(30_000_000_000L)) {
                        err.printf("timed out after %d sends and %d receives%n", scnt, rcnt);
                        return 1;
                    }
                } while (n == 0 && !events);
                for (int i = 0; i < n; i++) {
                    WorkCompletion wc = wcs[i];
                    if (wc.status() != WcStatus.SUCCESS) {
                        err.printf("Failed status %s (%d) for wr_id %d%n", wc.status(), wc.status().value(), wc.wrId());
                        return 1;
                    }
                    if (wc.wrId() == SEND_WRID) {
                        scnt++;
                    } else if (wc.wrId() == RECV_WRID) {
                        if (--routs <= 1) {
                            for (int k = routs; k < rxDepth; k++) {
                                qp.postRecv(rwr);
                            }
                            routs = rxDepth;
                        }
                        rcnt++;
                    } else {
                        err.println("Completion for unknown wr_id " + wc.wrId());
                        return 1;
                    }
                    pending &= (int) ~wc.wrId();
                    if (scnt < iters && pending == 0) {
                        qp.postSend(swr);
                        pending = RECV_WRID | SEND_WRID;
                    }
                }
            }
            double usec = (System.nanoTime() - start) / 1000.0;
            long bytes = (long) size * iters * 2;
            out.printf("%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1_000_000, bytes * 8.0 / usec);
            out.printf("%d iters in %.2f seconds = %.2f usec/iter%n", iters, usec / 1_000_000, usec / iters);
            qp.close();
            return 0;
        }
    }

    /** ibv_rc_pingpong's server side: read the client's record, connect, answer, read "done". */
    private static String[] serve(ServerSocket ss, String local, QueuePair qp, int psn, PathMtu mtu) throws IOException {
        try (Socket s = ss.accept()) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            String[] remote = parse(readRecord(in, RECORD));
            connect(qp, psn, Integer.parseInt(remote[1], 16), Integer.parseInt(remote[2], 16), Gid.parseHex(remote[3]), mtu);
            OutputStream o = s.getOutputStream();
            o.write(record(local));
            o.flush();
            readRecord(in, 5); // "done\0"
            return remote;
        }
    }

    /** ibv_rc_pingpong's client side: send our record, read the server's, send "done". */
    private static String[] dial(String server, int port, String local) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(server, port), 30_000);
            OutputStream o = s.getOutputStream();
            o.write(record(local));
            o.flush();
            String[] remote = parse(readRecord(new DataInputStream(s.getInputStream()), RECORD));
            o.write("done\0".getBytes(StandardCharsets.US_ASCII));
            o.flush();
            return remote;
        }
    }

    private static byte[] record(String text) {
        byte[] r = new byte[RECORD];
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, r, 0, Math.min(t.length, RECORD - 1));
        return r;
    }

    private static String readRecord(DataInputStream in, int n) throws IOException {
        byte[] b = new byte[n];
        in.readFully(b);
        int end = 0;
        while (end < n && b[end] != 0) {
            end++;
        }
        return new String(b, 0, end, StandardCharsets.US_ASCII);
    }

    private static String[] parse(String rec) {
        String[] f = rec.split(":");
        if (f.length != 4 || f[3].length() != 32) {
            throw new IllegalArgumentException("malformed LID:QPN:PSN:GID record \"" + rec + "\"");
        }
        return f;
    }

    /** The QP settings ibv_rc_pingpong and ibv_uc_pingpong use (reference §11.2). */
    static void connect(QueuePair qp, int psn, int rqpn, int rpsn, Gid rgid, PathMtu mtu) {
        InetAddress peer = rgid.toInetAddress();
        boolean rc = qp.type() == io.rnic.core.qp.QpType.RC;
        QpAttributes rtr = new QpAttributes().state(QpState.RTR).pathMtu(mtu).destQpn(rqpn).rqPsn(rpsn)
                .av(AddressVector.of(peer).withHopLimit(1));
        QpAttributes rts = new QpAttributes().state(QpState.RTS).sqPsn(psn);
        if (rc) {
            rtr.maxDestRdAtomic(1).minRnrTimer(12);
            rts.timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
        }
        qp.modify(rtr);
        qp.modify(rts);
    }
}
