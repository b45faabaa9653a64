package io.rnic.verbs;

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

    /**
     * Builds this side's connection information for {@code qp}: the device's GID, the QP number,
     * the starting PSN and, if {@code mr} is given, the region the peer may READ, WRITE or run
     * atomics on.
     *
     * @param qp  the local QP
     * @param psn the first PSN this side sends; only the low 24 bits are used
     * @param mr  the region to expose to the peer, or {@code null} to expose none (address and R_Key 0)
     * @return the information to send to the peer
     */
    public static ConnectionInfo local(QueuePair qp, int psn, MemoryRegion mr) {
        return new ConnectionInfo(qp.device().gid(), qp.qpn(), psn & 0xFFFFFF,
                mr == null ? 0 : mr.address(), mr == null ? 0 : mr.rkey());
    }

    /**
     * Moves {@code qp} (RC, UC, or either half of XRC) from RESET through INIT and RTR to RTS, connected to
     * {@code remote} on the RoCEv2 UDP port 4791. Use the overload with a port when the peer
     * device listens elsewhere (several emulated devices on one address).
     *
     * @param qp     the local QP, in RESET
     * @param local  this side's information, as sent to the peer (its PSN becomes the send PSN)
     * @param remote the peer's information (its GID and QPN are the destination, its PSN the
     *               expected receive PSN)
     * @param o      MTU, access flags, timers and retry counts; a UC QP uses only MTU, P_Key
     *               index and the REMOTE_WRITE access flag
     * @throws IllegalArgumentException if the QP refuses a transition (it names the attribute)
     */
    public static void connect(QueuePair qp, ConnectionInfo local, ConnectionInfo remote, RcOptions o) {
        connect(qp, local, remote, o, AddressVector.ROCE_PORT);
    }

    /**
     * As {@link #connect(QueuePair, ConnectionInfo, ConnectionInfo, RcOptions)}, to a peer whose
     * device receives on UDP port {@code remotePort}.
     *
     * @param qp         the local QP, in RESET
     * @param local      this side's information, as sent to the peer
     * @param remote     the peer's information
     * @param o          MTU, access flags, timers and retry counts
     * @param remotePort the UDP port the peer's device receives on
     * @throws IllegalArgumentException if the QP refuses a transition (it names the attribute)
     */
    public static void connect(QueuePair qp, ConnectionInfo local, ConnectionInfo remote, RcOptions o, int remotePort) {
        io.rnic.core.engine.TransportPolicy policy = io.rnic.core.engine.TransportPolicy.of(qp.type());
        if (policy.destination() != io.rnic.core.engine.TransportPolicy.DestinationKind.CONNECTED) {
            throw new IllegalArgumentException("connect is for connected QPs; use readyDatagram (UD) or readyRd (RD) for " + qp);
        }
        // Which halves the QP has decides the attributes each transition takes (reference §6.2):
        // a responder half needs the READ/atomic depth and RNR timer at RTR, a requester half the
        // timers and retry counts at RTS; UC has neither, an XRC target only the ACK timeout.
        boolean reliable = policy.ack().acked();
        boolean responds = reliable && policy.sides().responds();
        boolean requests = reliable && policy.sides().sends();
        int access = reliable ? o.accessFlags() : o.accessFlags() & io.rnic.verbs.AccessFlags.REMOTE_WRITE;
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(o.pkeyIndex()).port(1).accessFlags(access));
        AddressVector av = AddressVector.of(remote.gid().toInetAddress()).withPort(remotePort)
                .withTrafficClass(o.trafficClass());
        QpAttributes rtr = new QpAttributes().state(QpState.RTR).av(av).pathMtu(o.mtu()).destQpn(remote.qpn())
                .rqPsn(remote.psn());
        QpAttributes rts = new QpAttributes().state(QpState.RTS).sqPsn(local.psn());
        if (responds) {
            rtr.maxDestRdAtomic(o.maxDestRdAtomic()).minRnrTimer(o.minRnrTimer());
        }
        // Seed 002's loss recovery is RC's (the transition table says which types take it).
        if ((io.rnic.core.qp.QpTransitions.rule(qp.type(), QpState.INIT, QpState.RTR).accepted()
                & QpAttrMask.LOSS_RECOVERY) != 0) {
            rtr.lossRecovery(o.lossRecovery());
        }
        if (requests) {
            rts.retryCnt(o.retryCnt()).rnrRetry(o.rnrRetry()).maxRdAtomic(o.maxRdAtomic());
        }
        if (reliable) {
            rts.timeout(o.timeout());
        }
        qp.modify(rtr);
        qp.modify(rts);
    }

    /**
     * Moves a UD QP from RESET through INIT (P_Key index 0, port 1, {@code qkey}) and RTR to RTS
     * with send PSN {@code psn}, as {@code ibv_ud_pingpong} does.
     *
     * @param qp   a UD (or GSI) QP in RESET
     * @param qkey the Q_Key the QP accepts datagrams with (and sends with when a work request
     *             asks for the QP's own, with the high-order bit of its Q_Key set)
     * @param psn  the first PSN the QP sends; only the low 24 bits are used
     * @throws IllegalArgumentException if {@code qp} is not a UD QP or refuses a transition
     */
    public static void readyDatagram(QueuePair qp, int qkey, int psn) {
        if (!io.rnic.core.engine.TransportPolicy.of(qp.type()).headers().carriesQkey()) {
            throw new IllegalArgumentException("readyDatagram is for datagram QPs (UD, GSI); " + qp + " is " + qp.type());
        }
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).qkey(qkey));
        qp.modify(new QpAttributes().state(QpState.RTR));
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(psn & 0xFFFFFF));
    }

    /**
     * Moves an RD QP from RESET through INIT (P_Key index 0, port 1, {@code qkey}, {@code access})
     * and RTR to RTS. It has no PSN, path or retry counts: those are its EE contexts'.
     *
     * @param qp     an RD QP in RESET
     * @param qkey   the Q_Key requests to it must carry (and its own when a work request asks)
     * @param access the remote operations it allows ({@link AccessFlags})
     * @throws IllegalArgumentException if {@code qp} is not an RD QP or refuses a transition
     */
    public static void readyRd(QueuePair qp, int qkey, int access) {
        if (!throughEeContexts(qp.type())) {
            throw new IllegalArgumentException("readyRd is for RD QPs; " + qp + " is " + qp.type());
        }
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).qkey(qkey).accessFlags(access));
        qp.modify(new QpAttributes().state(QpState.RTR));
        qp.modify(new QpAttributes().state(QpState.RTS));
    }

    /** True for a QP type whose messages go through EE contexts (its policy row's destination column). */
    static boolean throughEeContexts(QpType type) {
        io.rnic.core.engine.TransportPolicy policy = io.rnic.core.engine.TransportPolicy.of(type);
        return policy != null && policy.destination().throughEeContext();
    }

    /**
     * Brings EE context {@code eec}, in RESET, to RTS, its peer being context {@code peerEecn} of
     * the device at {@code peer} (UDP port {@code peerPort}): receive PSN {@code peerPsn} (the
     * peer's first), send PSN {@code psn}, and {@code o}'s MTU, timers, retry counts and
     * READ/atomic depths (its access flags and RNR timer are the RD QPs').
     *
     * @param eec      the local EE context, in RESET
     * @param psn      the first PSN it sends
     * @param peer     the address of the peer context's device
     * @param peerPort the UDP port the peer's device receives on
     * @param peerEecn the peer context's number ({@link EeContext#eecn()} there)
     * @param peerPsn  the first PSN the peer context sends
     * @param o        MTU, timers, retry counts and READ/atomic depths
     * @throws IllegalArgumentException if the context refuses a transition
     */
    public static void connectEeContext(EeContext eec, int psn, java.net.InetAddress peer, int peerPort, int peerEecn,
                                        int peerPsn, RcOptions o) {
        java.util.Objects.requireNonNull(peer, "peer");
        eec.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(o.pkeyIndex()).port(1));
        eec.modify(new QpAttributes().state(QpState.RTR).av(AddressVector.of(peer).withPort(peerPort)).pathMtu(o.mtu())
                .destQpn(peerEecn).rqPsn(peerPsn).maxDestRdAtomic(o.maxDestRdAtomic()));
        eec.modify(new QpAttributes().state(QpState.RTS).sqPsn(psn & 0xFFFFFF).timeout(o.timeout())
                .retryCnt(o.retryCnt()).rnrRetry(o.rnrRetry()).maxRdAtomic(o.maxRdAtomic()));
    }

    /**
     * Connects two EE contexts in one process to each other (each in RESET), {@code a} sending
     * from {@code psnA} and {@code b} from {@code psnB}.
     *
     * @param a    one context, in RESET
     * @param psnA the first PSN {@code a} sends
     * @param b    the other, of another device, in RESET
     * @param psnB the first PSN {@code b} sends
     * @param o    the options both use
     * @throws IllegalArgumentException if a context refuses a transition
     */
    public static void connectEeContexts(EeContext a, int psnA, EeContext b, int psnB, RcOptions o) {
        var wa = a.device().wire().localAddress();
        var wb = b.device().wire().localAddress();
        connectEeContext(a, psnA, wb.getAddress(), wb.getPort(), b.eecn(), psnB, o);
        connectEeContext(b, psnB, wa.getAddress(), wa.getPort(), a.eecn(), psnA, o);
    }

    /**
     * Connects two QPs in one process to each other, each exposing its region to the other: the
     * out-of-band exchange without the socket, for tests and examples.
     *
     * @param a    one QP, in RESET
     * @param mrA  the region {@code a}'s side exposes, or {@code null}
     * @param psnA the first PSN {@code a} sends
     * @param b    the other QP, in RESET, of the same type (or the XRC half that matches {@code a}'s)
     * @param mrB  the region {@code b}'s side exposes, or {@code null}
     * @param psnB the first PSN {@code b} sends
     * @param o    the options both sides use
     * @throws IllegalArgumentException if a QP refuses a transition
     */
    public static void connectPair(QueuePair a, MemoryRegion mrA, int psnA, QueuePair b, MemoryRegion mrB, int psnB,
                                   RcOptions o) {
        ConnectionInfo ia = local(a, psnA, mrA);
        ConnectionInfo ib = local(b, psnB, mrB);
        connect(a, ia, ib, o, b.device().wire().localAddress().getPort());
        connect(b, ib, ia, o, a.device().wire().localAddress().getPort());
    }

    /**
     * The server side of the out-of-band exchange, as in rdma-core's pingpong examples: waits on
     * TCP {@code port} for one peer, reads its information, answers with {@code local}.
     *
     * @param port          the TCP port to listen on
     * @param local         this side's information
     * @param timeoutMillis how long to wait for the peer to connect, and then for each read
     * @return the peer's information
     * @throws IOException if the socket fails, or no peer connects or answers in time
     *     ({@link java.net.SocketTimeoutException})
     * @throws IllegalArgumentException if the peer sends malformed information
     */
    public static ConnectionInfo serve(int port, ConnectionInfo local, int timeoutMillis) throws IOException {
        java.util.Objects.requireNonNull(local, "local");
        try (ServerSocket ss = new ServerSocket(port)) {
            ss.setSoTimeout(timeoutMillis);
            try (Socket s = ss.accept()) {
                s.setSoTimeout(timeoutMillis);
                return exchange(s, local, false);
            }
        }
    }

    /**
     * The client side of the out-of-band exchange: connects to a peer in {@link #serve}, sends
     * {@code local} and reads the peer's answer.
     *
     * @param server        the peer's TCP address
     * @param local         this side's information
     * @param timeoutMillis how long to wait for the connection, and then for the answer
     * @return the peer's information
     * @throws IOException if the connection fails or the peer does not answer in time
     * @throws IllegalArgumentException if the peer sends malformed information
     */
    public static ConnectionInfo dial(InetSocketAddress server, ConnectionInfo local, int timeoutMillis) throws IOException {
        java.util.Objects.requireNonNull(server, "server");
        java.util.Objects.requireNonNull(local, "local");
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
