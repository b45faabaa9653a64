package io.rnic.verbs;

import io.rnic.core.qp.AddressVector;
import io.rnic.core.qp.QpAttributes;
import io.rnic.core.qp.QpState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * QP set-up: for RC and UC, the out-of-band exchange of {@link ConnectionInfo} (in process or
 * over a TCP socket) and one call that drives a QP from RESET to RTS connected to its peer; for
 * UD, one call that drives a QP to RTS with its Q_Key (a UD QP has no peer: each work request
 * names its destination).
 */
public final class Connections {
    private Connections() {
    }

    /** This side's connection information for {@code qp}, starting at {@code psn}, exposing {@code mr} (may be null). */
    public static ConnectionInfo local(QueuePair qp, int psn, MemoryRegion mr) {
        return new ConnectionInfo(qp.pd().device().gid(), qp.qpn(), psn & 0xFFFFFF,
                mr == null ? 0 : mr.address(), mr == null ? 0 : mr.rkey());
    }

    /**
     * Moves {@code qp} (RC or UC) from RESET through INIT and RTR to RTS, connected to {@code remote}
     * (remote UDP port 4791 unless the remote device listens elsewhere: see the overload).
     */
    public static void connect(QueuePair qp, ConnectionInfo local, ConnectionInfo remote, RcOptions o) {
        connect(qp, local, remote, o, AddressVector.ROCE_PORT);
    }

    /** As {@link #connect(QueuePair, ConnectionInfo, ConnectionInfo, RcOptions)}, to a peer on {@code remotePort}. */
    public static void connect(QueuePair qp, ConnectionInfo local, ConnectionInfo remote, RcOptions o, int remotePort) {
        // UC takes the same path with fewer attributes: nothing about reads, atomics or retries.
        boolean reliable = qp.type() == io.rnic.core.qp.QpType.RC;
        int access = reliable ? o.accessFlags() : o.accessFlags() & io.rnic.core.memory.AccessFlags.REMOTE_WRITE;
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(o.pkeyIndex()).port(1).accessFlags(access));
        AddressVector av = AddressVector.of(remote.gid().toInetAddress()).withPort(remotePort);
        QpAttributes rtr = new QpAttributes().state(QpState.RTR).av(av).pathMtu(o.mtu()).destQpn(remote.qpn())
                .rqPsn(remote.psn());
        QpAttributes rts = new QpAttributes().state(QpState.RTS).sqPsn(local.psn());
        if (reliable) {
            rtr.maxDestRdAtomic(o.maxDestRdAtomic()).minRnrTimer(o.minRnrTimer());
            rts.timeout(o.timeout()).retryCnt(o.retryCnt()).rnrRetry(o.rnrRetry()).maxRdAtomic(o.maxRdAtomic());
        }
        qp.modify(rtr);
        qp.modify(rts);
    }

    /**
     * Moves a UD QP from RESET through INIT (P_Key index 0, port 1, {@code qkey}) and RTR to RTS
     * with send PSN {@code psn}, as {@code ibv_ud_pingpong} does.
     */
    public static void readyDatagram(QueuePair qp, int qkey, int psn) {
        if (qp.type() != io.rnic.core.qp.QpType.UD) {
            throw new IllegalArgumentException("readyDatagram is for UD QPs; " + qp + " is " + qp.type());
        }
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).qkey(qkey));
        qp.modify(new QpAttributes().state(QpState.RTR));
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(psn & 0xFFFFFF));
    }

    /** Connects two QPs in one process to each other, with starting PSNs {@code psnA} and {@code psnB}. */
    public static void connectPair(QueuePair a, MemoryRegion mrA, int psnA, QueuePair b, MemoryRegion mrB, int psnB,
                                   RcOptions o) {
        ConnectionInfo ia = local(a, psnA, mrA);
        ConnectionInfo ib = local(b, psnB, mrB);
        connect(a, ia, ib, o, b.pd().device().wire().localAddress().getPort());
        connect(b, ib, ia, o, a.pd().device().wire().localAddress().getPort());
    }

    /** Waits on {@code port} for one peer, reads its information, answers with {@code local}. */
    public static ConnectionInfo serve(int port, ConnectionInfo local, int timeoutMillis) throws IOException {
        try (ServerSocket ss = new ServerSocket(port)) {
            ss.setSoTimeout(timeoutMillis);
            try (Socket s = ss.accept()) {
                s.setSoTimeout(timeoutMillis);
                return exchange(s, local, false);
            }
        }
    }

    /** Connects to a {@link #serve} peer, sends {@code local}, returns the peer's information. */
    public static ConnectionInfo dial(InetSocketAddress server, ConnectionInfo local, int timeoutMillis) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(server, timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            return exchange(s, local, true);
        }
    }

    private static ConnectionInfo exchange(Socket s, ConnectionInfo local, boolean sendFirst) throws IOException {
        Writer w = new OutputStreamWriter(s.getOutputStream(), StandardCharsets.US_ASCII);
        BufferedReader r = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
        if (sendFirst) {
            w.write(local.toLine() + "\n");
            w.flush();
            return ConnectionInfo.parse(r.readLine());
        }
        ConnectionInfo remote = ConnectionInfo.parse(r.readLine());
        w.write(local.toLine() + "\n");
        w.flush();
        return remote;
    }
}
