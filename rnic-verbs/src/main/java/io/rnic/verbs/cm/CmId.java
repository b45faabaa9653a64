package io.rnic.verbs.cm;

import io.rnic.core.time.Scheduler;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AddressHandle;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.ConnectionInfo;
import io.rnic.verbs.Connections;
import io.rnic.verbs.Gid;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A connection-manager ID ({@code struct rdma_cm_id}): one side of one connection, or a
 * listener. The active side goes {@link #resolveAddr} → {@link #resolveRoute} →
 * {@link #createQp} → {@link #connect}; the passive side {@link #bindAddr} → {@link #listen}, then
 * for each CONNECT_REQUEST event {@link #createQp} and {@link #accept} (or {@link #reject}) on
 * the event's new ID; either side {@link #disconnect}s. The ID moves its QP through INIT, RTR
 * and RTS with what the two sides agreed, as rdma_cm does, and to ERR on disconnect.
 *
 * <p>The messages follow IBA chapter 12 and the Linux CM's choices on RoCEv2: REQ/REP/RTU and
 * DREQ/DREP for connected QPs, SIDR_REQ/SIDR_REP for UD, REJ and MRA; each request is repeated
 * until answered (at most 15 times, 6.1 s apart by default). Methods may be called from any
 * thread; the state lives on the device's protocol thread.
 */
public final class CmId implements AutoCloseable {
    /** REJ reason 4: the sender timed out waiting (IBA table 112); its ARI is the sender's CA GUID. */
    public static final int REJ_TIMEOUT = 4;
    /** REJ reason 8: no listener for the service ID (IBA table 112). */
    public static final int REJ_INVALID_SERVICE_ID = 8;
    /** REJ reason 9: the request's transport service type (or QP) cannot be connected (IBA table 112). */
    public static final int REJ_INVALID_TRANSPORT_TYPE = 9;
    /** REJ reason 10: the connection is stale (IBA table 112, 12.9.8.3.1). */
    public static final int REJ_STALE_CONN = 10;
    /** REJ reason 12: the primary path's GIDs are rejected (IBA table 112); its ARI is the port's GID. */
    public static final int REJ_INVALID_GID = 12;
    /** REJ reason 26: the path MTU is not one of 256 to 4096 (IBA table 112). */
    public static final int REJ_INVALID_MTU = 26;
    /** REJ reason 28: the consumer rejected the request. */
    public static final int REJ_CONSUMER_DEFINED = 28;
    /**
     * The backlog {@link #listen} takes for 0 or less, as librdmacm's {@code rdma_listen} takes
     * its default for 0: at most this many requests await accept or reject.
     */
    public static final int DEFAULT_BACKLOG = 1024;
    /** The Q_Key rdma_cm gives UD QPs of the UDP port space ({@code RDMA_UDP_QKEY}). */
    public static final int UDP_QKEY = 0x01234567;

    /** rdma_cm's CM response timeout exponent (4.096 µs × 2^20 ≈ 4.3 s). */
    static final int CM_RESPONSE_TIMEOUT = 20;
    /** rdma_cm's retries of a CM request. */
    static final int MAX_CM_RETRIES = 15;
    /** The packet life time rdma_cm assumes on RoCE (4.096 µs × 2^18 ≈ 1.07 s). */
    static final int PACKET_LIFE_TIME = 18;
    /** The service timeout of the MRA sent for a repeated REQ (4.096 µs × 2^24 ≈ 69 s), as Linux's. */
    static final int MRA_SERVICE_TIMEOUT = 24;
    /** rnic's RNR timer code for CM-made QPs (0.64 ms; the kernel CM leaves 0, 655 ms). */
    static final int MIN_RNR_TIMER = 12;

    /** Where an ID is in its life (the Linux CM's states, folded with rdma_cm's). */
    public enum State {
        /** Created. */
        IDLE,
        /** Bound to a local address and device. */
        ADDR_BOUND,
        /** The destination is reachable from a local device. */
        ADDR_RESOLVED,
        /** The path is known. */
        ROUTE_RESOLVED,
        /** Listening for requests. */
        LISTEN,
        /** A REQ or SIDR_REQ is out, not yet answered. */
        REQ_SENT,
        /** A request came in; the application has not accepted or rejected it yet. */
        CONNECT_REQUEST,
        /** A REP is out, waiting for the RTU. */
        REP_SENT,
        /** Connected. */
        ESTABLISHED,
        /** This side asked to disconnect; waiting for the DREP. */
        DREQ_SENT,
        /** The peer asked to disconnect; this side's DREP goes out on {@link #disconnect}. */
        DREQ_RCVD,
        /** Disconnected. */
        DISCONNECTED,
        /** Rejected, unreachable or failed. */
        ERROR,
        /** Destroyed. */
        DESTROYED
    }

    private final CmEventChannel channel;
    private final PortSpace portSpace;
    private volatile Object context;
    private CmAgent agent;
    private volatile State state = State.IDLE;
    private InetSocketAddress localAddress;
    private InetSocketAddress remoteAddress;
    private InetAddress peerIp;
    private QueuePair qp;
    private int localCommId;
    private int remoteCommId;
    private int remoteQpn;
    private long tid;
    private CmReq req;
    private SidrMessage sidrReq;
    private ConnParam offered;
    private int startingPsn;
    private long serviceId = -1;
    private long remoteCaGuid;
    // A listener's backlog, and its requests that await accept or reject (counted on the protocol
    // threads of every device a wildcard listener hears).
    private int backlog;
    private final java.util.concurrent.atomic.AtomicInteger awaitingAnswer =
            new java.util.concurrent.atomic.AtomicInteger();
    // A request's ID: its listener, whether it counts against the listener's backlog, whether it expired.
    private CmId listenerOf;
    private boolean awaiting;
    private boolean expired;
    /** The agents a listener listens on: its device's, or every device of the channel for a wildcard address. */
    private final java.util.List<CmAgent> listening = new java.util.ArrayList<>();
    private boolean wildcard;
    // The request or reply this side repeats until answered.
    private final byte[] pending = new byte[Mad.SIZE];
    private boolean pendingValid;
    private int retriesLeft;
    private long retryNanos;
    private Scheduler.Timer timer;
    private long retransmissions;

    CmId(CmEventChannel channel, PortSpace portSpace, Object context) {
        this.channel = channel;
        this.portSpace = portSpace;
        this.context = context;
    }

    // ---- accessors ----

    /** @return the port space */
    public PortSpace portSpace() {
        return portSpace;
    }

    /** @return the application's object for this ID, or {@code null} */
    public Object context() {
        return context;
    }

    /**
     * Attaches an application object to this ID.
     *
     * @param c the object
     */
    public void context(Object c) {
        this.context = c;
    }

    /** @return the ID's state */
    public State state() {
        return state;
    }

    /** @return the device the ID is bound to, or {@code null} before an address is bound or resolved */
    public RdmaDevice device() {
        return agent == null ? null : agent.device;
    }

    /** @return the ID's QP, or {@code null} before {@link #createQp} */
    public QueuePair qp() {
        return qp;
    }

    /** @return the local address and port, or {@code null} */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** @return the peer's address and port, or {@code null} */
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** @return the event channel the ID reports to */
    public CmEventChannel channel() {
        return channel;
    }

    /** The communication ID this side's messages carry as their local ID (0 before there is one). */
    int localCommId() {
        return localCommId;
    }

    /** The listen backlog (0 unless listening). */
    int backlog() {
        return backlog;
    }

    /** @return how often this ID repeated a request or reply that went unanswered */
    public long retransmissions() {
        return retransmissions;
    }

    // ---- the passive side ----

    /**
     * Binds the ID to a local address ({@code rdma_bind_addr}): the device with that address, or
     * for a wildcard address every device of the channel (a listener then hears requests to any of
     * them, as librdmacm's does; an active ID uses the first).
     *
     * @param address the local address and port (port 0 picks one)
     * @throws IllegalArgumentException if no device of the channel has the address
     * @throws IllegalStateException if the ID is already bound
     */
    public void bindAddr(InetSocketAddress address) {
        requireState(State.IDLE, "bind");
        RdmaDevice d = channel.deviceFor(address.getAddress());
        if (d == null) {
            throw new IllegalArgumentException("no device of " + channel + " has address " + address.getAddress());
        }
        agent = CmAgent.of(d);
        wildcard = address.getAddress().isAnyLocalAddress();
        int port = address.getPort() == 0 ? agent.call(() -> 1024 + agent.random.nextInt(60000)) : address.getPort();
        localAddress = new InetSocketAddress(wildcard ? address.getAddress() : agent.address(), port);
        state = State.ADDR_BOUND;
    }

    /**
     * Listens for connection requests to the bound port ({@code rdma_listen}); each arrives as a
     * CONNECT_REQUEST event with a new ID.
     *
     * <p>At most {@code backlog} requests (REQs and SIDR_REQs) await {@link #accept} or
     * {@link #reject} at a time; the connection manager refuses one more with REJ reason 28
     * (consumer defined; for SIDR a SIDR_REP "rejected") and counts it
     * ({@link CmCounters#requestsOverBacklog()}). A request not answered by the time its sender
     * gives up (its CM response timeout, at most rdma_cm's 4.3 s plus twice the packet life time,
     * times its Max CM Retries + 1, at most 16: about 98 s) is refused with REJ reason 4
     * (timeout) and forgotten ({@link CmCounters#requestsTimedOut()}); the application hears
     * nothing more of it, and {@code accept} or {@code reject} on its ID then throw. Linux's IB
     * CM has no backlog (only iWARP's honours it); rnic bounds what a peer can make it hold.
     *
     * @param backlog the most requests awaiting an answer; 0 or less takes
     *                {@link #DEFAULT_BACKLOG}, as librdmacm takes its default for 0
     * @throws IllegalStateException if the ID is not bound, or another ID listens on the port
     */
    public void listen(int backlog) {
        requireState(State.ADDR_BOUND, "listen");
        this.backlog = backlog > 0 ? backlog : DEFAULT_BACKLOG;
        serviceId = portSpace.serviceId(localAddress.getPort());
        java.util.List<CmAgent> agents = wildcard ? channel.devices().stream().map(CmAgent::of).toList()
                : java.util.List.of(agent);
        try {
            for (CmAgent a : agents) {
                a.run(() -> a.listen(serviceId, this));
                listening.add(a);
            }
        } catch (RuntimeException e) {
            stopListening();
            throw e;
        }
        state = State.LISTEN;
    }

    // ---- the active side ----

    /**
     * Resolves the destination to a local device ({@code rdma_resolve_addr}); ADDR_RESOLVED
     * follows, or ADDR_ERROR if no device of the channel has {@code source} (any device when
     * {@code source} is null).
     *
     * @param source      the local address to use, or {@code null}
     * @param destination the peer's address and the port it listens on
     * @param timeoutMs   accepted for librdmacm's signature (resolution is immediate here)
     */
    public void resolveAddr(InetAddress source, InetSocketAddress destination, int timeoutMs) {
        java.util.Objects.requireNonNull(destination, "destination");
        if (state != State.IDLE && state != State.ADDR_BOUND) {
            throw new IllegalStateException("resolveAddr on " + this + " in state " + state);
        }
        RdmaDevice d = agent != null ? agent.device : channel.deviceFor(source);
        if (d == null) {
            channel.deliver(new CmEvent(CmEventType.ADDR_ERROR, this, null, -101, null, null)); // ENETUNREACH
            return;
        }
        agent = CmAgent.of(d);
        if (localAddress == null) {
            int port = agent.call(() -> 1024 + agent.random.nextInt(60000));
            localAddress = new InetSocketAddress(agent.address(), port);
        }
        remoteAddress = destination;
        peerIp = destination.getAddress();
        state = State.ADDR_RESOLVED;
        channel.deliver(new CmEvent(CmEventType.ADDR_RESOLVED, this, null, 0, null, null));
    }

    /**
     * Resolves the path ({@code rdma_resolve_route}): on RoCEv2 the IP route is the path, so
     * ROUTE_RESOLVED follows at once.
     *
     * @param timeoutMs accepted for librdmacm's signature
     */
    public void resolveRoute(int timeoutMs) {
        requireState(State.ADDR_RESOLVED, "resolveRoute");
        state = State.ROUTE_RESOLVED;
        channel.deliver(new CmEvent(CmEventType.ROUTE_RESOLVED, this, null, 0, null, null));
    }

    /**
     * Creates the ID's QP on its device ({@code rdma_create_qp}) and readies it as rdma_cm does:
     * a connected QP to INIT (its access flags follow at connect or accept), a UD QP through to
     * RTS with Q_Key {@link #UDP_QKEY}.
     *
     * @param pd   a protection domain of the ID's device
     * @param init the QP's attributes: RC or UC for the TCP port space, UD for UDP
     * @return the QP
     * @throws IllegalArgumentException if the PD is another device's or the QP type does not suit
     *     the port space
     * @throws IllegalStateException if the ID has no device yet or already has a QP
     */
    public QueuePair createQp(ProtectionDomain pd, QpInitAttributes init) {
        java.util.Objects.requireNonNull(pd, "pd");
        java.util.Objects.requireNonNull(init, "init");
        if (agent == null) {
            throw new IllegalStateException("createQp on " + this + ": resolve or bind an address first");
        }
        if (qp != null) {
            throw new IllegalStateException(this + " already has QP " + qp.qpn());
        }
        if (pd.device() != agent.device) {
            throw new IllegalArgumentException("the PD belongs to " + pd.device() + ", the ID to " + agent.device);
        }
        checkType(init.type());
        QueuePair created = pd.createQp(init);
        try {
            attach(created);
        } catch (RuntimeException e) {
            created.close();
            throw e;
        }
        return created;
    }

    /**
     * Makes {@code created}, a QP the application made itself and left in RESET, this ID's QP,
     * readied as {@link #createQp} readies one: librdmacm's way with a QP it did not create
     * ({@code rdma_connect} with {@code conn_param.qp_num}), for applications that create their
     * QPs before they know how they connect.
     *
     * @param created a QP of the ID's device, in RESET, RC or UC for the TCP port space, UD for UDP
     * @throws IllegalArgumentException if the QP is another device's, not in RESET or of the
     *     wrong type
     * @throws IllegalStateException if the ID has no device yet or already has a QP
     */
    public void attachQp(QueuePair created) {
        java.util.Objects.requireNonNull(created, "created");
        if (agent == null) {
            throw new IllegalStateException("attachQp on " + this + ": resolve or bind an address first");
        }
        if (qp != null) {
            throw new IllegalStateException(this + " already has QP " + qp.qpn());
        }
        if (created.device() != agent.device || created.state() != QpState.RESET) {
            throw new IllegalArgumentException("QP " + created.qpn() + " must be in RESET on " + agent.device
                    + " (it is " + created.state() + " on " + created.device() + ")");
        }
        checkType(created.type());
        attach(created);
    }

    private void checkType(QpType type) {
        boolean ud = type == QpType.UD;
        if (ud != (portSpace == PortSpace.UDP) && portSpace != PortSpace.IB
                || !ud && type != QpType.RC && type != QpType.UC) {
            throw new IllegalArgumentException("a " + type + " QP does not connect through the " + portSpace
                    + " port space (TCP: RC or UC; UDP: UD)");
        }
    }

    private void attach(QueuePair created) {
        if (created.type() == QpType.UD) {
            Connections.readyDatagram(created, UDP_QKEY, 0);
        } else {
            created.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
        }
        qp = created;
    }

    /**
     * Asks the peer to connect ({@code rdma_connect}): a REQ for a connected QP, a SIDR_REQ for
     * UD. ESTABLISHED follows when the peer accepts, REJECTED or UNREACHABLE when it does not.
     *
     * @param param depths, retry counts and private data (at most 56 bytes; 180 for UD)
     * @throws IllegalStateException if the route is not resolved or the ID has no QP
     */
    public void connect(ConnParam param) {
        requireState(State.ROUTE_RESOLVED, "connect");
        if (qp == null) {
            throw new IllegalStateException("connect on " + this + ": create its QP first (createQp)");
        }
        ConnParam p = param == null ? ConnParam.defaults() : param;
        agent.run(() -> {
            localCommId = agent.newLocalId(this);
            tid = agent.tid(localCommId);
            offered = p;
            serviceId = portSpace.serviceId(remoteAddress.getPort());
            ByteBuffer mad = agent.scratch();
            if (qp.type() == QpType.UD) {
                byte[] pd = CmaHeader.wrap(localAddress, remoteAddress, p.privateData(), SidrMessage.REQ_PRIVATE_DATA);
                SidrMessage.request(localCommId, 0xFFFF, serviceId, pd).encode(mad, tid);
            } else {
                startingPsn = agent.newPsn();
                byte[] pd = CmaHeader.wrap(localAddress, remoteAddress, p.privateData(), CmReq.PRIVATE_DATA);
                PathMtu mtu = agent.routeMtu();
                int flowLabel = (localAddress.getPort() * 31 + remoteAddress.getPort()) & 0xFFFFF;
                new CmReq(localCommId, serviceId, agent.caGuid, 0, qp.qpn(), p.responderResources(),
                        p.initiatorDepth(), CM_RESPONSE_TIMEOUT, qp.type() == QpType.UC ? 1 : 0, startingPsn,
                        CM_RESPONSE_TIMEOUT, p.retryCount(), 0xFFFF, mtu.value(), p.rnrRetryCount(), MAX_CM_RETRIES,
                        p.srq(), agent.device.gid().bytes(), Gid.of(peerIp).bytes(), flowLabel, 0, 64,
                        PACKET_LIFE_TIME + 1, pd).encode(mad, tid);
            }
            state = State.REQ_SENT;
            sendAndRepeat(mad, MAX_CM_RETRIES, timeoutNanos(CM_RESPONSE_TIMEOUT));
        });
    }

    // ---- answering a request ----

    /**
     * Accepts the request this ID was created for ({@code rdma_accept}): readies the QP with what
     * the two sides agreed and sends the REP (ESTABLISHED follows the peer's RTU), or for UD the
     * SIDR_REP (established at once).
     *
     * @param param this side's depths and private data, or {@code null} for what the request
     *              offered (as librdmacm does)
     * @throws IllegalStateException if no request is pending (none came, it was answered, or it
     *     timed out: see {@link #listen}) or the ID has no QP
     */
    public void accept(ConnParam param) {
        requireRequest("accept");
        if (qp == null) {
            throw new IllegalStateException("accept on " + this + ": create its QP first (createQp)");
        }
        agent.run(() -> {
            requireRequest("accept"); // again here: the request may have timed out meanwhile
            if (sidrReq != null) {
                byte[] pd = param == null ? null : param.privateData();
                ByteBuffer mad = agent.scratch();
                SidrMessage.reply(sidrReq.requestId(), sidrReq.serviceId(), SidrMessage.STATUS_VALID, qp.qpn(),
                        UDP_QKEY, pd).encode(mad, tid);
                mad.get(0, pending);
                pendingValid = true; // kept to answer a repeated SIDR_REQ
                agent.send(peerIp, mad);
                answered();
                state = State.ESTABLISHED;
                return;
            }
            // librdmacm's rdma_accept(NULL): the request's depths, 7 retries of both kinds.
            ConnParam p = param != null ? param
                    : new ConnParam(null, offered.responderResources(), offered.initiatorDepth(), 7, 7, false);
            int access = AccessFlags.REMOTE_WRITE
                    | (p.responderResources() > 0 ? AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC : 0);
            PathMtu mtu = PathMtu.ofValue(Math.min(req.pathMtu(), agent.routeMtu().value()));
            RcOptions o = RcOptions.defaults().withMtu(mtu).withAccess(access)
                    .withRetry(Math.max(1, req.localAckTimeout()), req.retryCount(), req.rnrRetryCount())
                    .withMinRnrTimer(MIN_RNR_TIMER).withRdAtomic(p.initiatorDepth(), p.responderResources());
            startingPsn = agent.newPsn();
            // Linux's rdma_cm takes a REQ's or REP's Starting PSN as the PSN its sender receives
            // at, and sends from the peer's (golden/rping_rdmacm.pcap: the client's first SEND
            // carries the REP's PSN); rnic does the same, or no Linux peer would take a packet.
            Connections.connect(qp, new ConnectionInfo(agent.device.gid(), qp.qpn(), req.startingPsn(), 0, 0),
                    new ConnectionInfo(Gid.of(req.localGid()), req.localQpn(), startingPsn, 0, 0), o,
                    agent.roceport());
            ByteBuffer mad = agent.scratch();
            new CmRep(localCommId, remoteCommId, 0, qp.qpn(), startingPsn, p.responderResources(), p.initiatorDepth(),
                    15, p.rnrRetryCount(), p.srq(), agent.caGuid, p.privateData()).encode(mad, tid);
            answered();
            state = State.REP_SENT;
            sendAndRepeat(mad, req.maxCmRetries(), timeoutNanos(req.localCmResponseTimeout()));
        });
    }

    /**
     * Rejects the request this ID was created for ({@code rdma_reject}) with REJ reason 28
     * (consumer defined), or a SIDR_REP with status "rejected".
     *
     * @param privateData up to 148 bytes for the peer (136 for UD), or {@code null}
     * @throws IllegalStateException if no request is pending (none came, it was answered, or it
     *     timed out: see {@link #listen})
     */
    public void reject(byte[] privateData) {
        requireRequest("reject");
        agent.run(() -> {
            requireRequest("reject");
            answered();
            ByteBuffer mad = agent.scratch();
            if (sidrReq != null) {
                SidrMessage.reply(sidrReq.requestId(), sidrReq.serviceId(), SidrMessage.STATUS_REJECT, 0, 0,
                        privateData).encode(mad, tid);
            } else {
                CmReply.rej(localCommId, remoteCommId, 0, REJ_CONSUMER_DEFINED, privateData).encode(mad, tid);
            }
            agent.send(peerIp, mad);
            state = State.ERROR;
        });
    }

    /** Refuses the request this ID holds with {@code reason} (SIDR: status "rejected"). Protocol thread. */
    private void rejectRequest(int reason, byte[] ari) {
        ByteBuffer mad = agent.scratch();
        if (sidrReq != null) {
            SidrMessage.reply(sidrReq.requestId(), sidrReq.serviceId(), SidrMessage.STATUS_REJECT, 0, 0, null)
                    .encode(mad, tid);
        } else {
            new CmReply(Mad.REJ, localCommId, remoteCommId, 0, reason, ari, null).encode(mad, tid);
        }
        agent.send(peerIp, mad);
        state = State.ERROR;
    }

    /**
     * Disconnects ({@code rdma_disconnect}): moves the QP to ERR (flushing what is posted) and
     * sends a DREQ, or answers the peer's DREQ with a DREP. DISCONNECTED follows on this side
     * when the DREP arrives (or the DREQ runs out of retries).
     */
    public void disconnect() {
        if (agent == null) {
            return;
        }
        agent.run(() -> {
            switch (state) {
                case ESTABLISHED, REP_SENT -> {
                    if (qp != null && qp.type() == QpType.UD) {
                        state = State.DISCONNECTED;
                        return;
                    }
                    sendDreq();
                }
                case DREQ_RCVD -> {
                    toError();
                    sendDrep();
                    state = State.DISCONNECTED;
                }
                default -> {
                }
            }
        });
    }

    /**
     * Destroys the ID ({@code rdma_destroy_id}): answers a pending DREQ, stops listening and
     * repeating, and forgets the ID. Its QP stays the application's to destroy.
     */
    @Override
    public void close() {
        if (state == State.DESTROYED) {
            return;
        }
        if (agent != null) {
            agent.run(() -> {
                if (state == State.DREQ_RCVD) {
                    sendDrep();
                }
                if (state == State.CONNECT_REQUEST && awaiting) {
                    rejectRequest(REJ_CONSUMER_DEFINED, CmReply.NONE); // as rdma_destroy_id does
                }
                answered();
                cancelTimer();
                forget();
            });
            stopListening();
        }
        state = State.DESTROYED;
    }

    private void stopListening() {
        for (CmAgent a : listening) {
            a.run(() -> a.unlisten(serviceId, this));
        }
        listening.clear();
    }

    // ---- messages, on the protocol thread ----

    /**
     * The new ID a request to this listener makes: the peer's, answering with the request's TID,
     * counted against the backlog until answered, and refused with a timeout after
     * {@code lifetimeNanos}.
     */
    private CmId child(CmAgent at, long reqTid, InetAddress from, int peerCommId, long lifetimeNanos) {
        CmId child = new CmId(channel, portSpace, context);
        child.agent = at;
        child.tid = reqTid;
        child.peerIp = from;
        child.remoteCommId = peerCommId;
        child.localCommId = at.newLocalId(child);
        child.listenerOf = this;
        child.awaiting = true; // its slot was taken by backlogFull
        child.timer = at.scheduler.schedule(lifetimeNanos, child::expire);
        at.answering(child, from, peerCommId);
        return child;
    }

    /** True if the backlog is full: the request is refused and counted. Otherwise takes a slot for it. */
    private boolean backlogFull(CmAgent at) {
        for (int n = awaitingAnswer.get(); n < backlog; n = awaitingAnswer.get()) {
            if (awaitingAnswer.compareAndSet(n, n + 1)) {
                return false;
            }
        }
        at.requestsOverBacklog++;
        return true;
    }

    /**
     * How long a request may wait for the application: as long as its sender waits for an answer
     * (twice the packet life time plus its CM response timeout, times Max CM Retries + 1), with
     * both capped at rdma_cm's own values so that no peer can hold a backlog slot for hours.
     */
    static long requestLifetimeNanos(int cmResponseTimeout, int maxCmRetries) {
        return timeoutNanos(Math.min(cmResponseTimeout, CM_RESPONSE_TIMEOUT))
                * (Math.min(maxCmRetries, MAX_CM_RETRIES) + 1);
    }

    /**
     * The application let a request wait past its lifetime: refuse it with REJ reason 4 (the CA
     * GUID as additional information, IBA table 112) and forget it. No event: the application
     * that never answered a CONNECT_REQUEST expects none (librdmacm's programs would take any as
     * a failure of something else); {@link #accept} and {@link #reject} say what happened.
     */
    private void expire() {
        timer = null;
        if (state != State.CONNECT_REQUEST || !awaiting) {
            return;
        }
        expired = true; // before the state's volatile write, so a caller that sees ERROR sees this too
        rejectRequest(REJ_TIMEOUT, ByteBuffer.allocate(8).putLong(0, agent.caGuid).array());
        answered();
        agent.requestsTimedOut++;
        forget();
    }

    /** A REQ to this listener, arriving on {@code at}'s device. */
    void onConnectRequest(CmAgent at, CmReq r, long reqTid, InetAddress from) {
        byte[] pd = r.privateData();
        if (portSpace != PortSpace.IB && !CmaHeader.valid(pd)) {
            at.requestsInvalid++;
            at.rejectRequest(r, reqTid, from, REJ_CONSUMER_DEFINED, CmReply.NONE);
            return;
        }
        if (backlogFull(at)) {
            at.rejectRequest(r, reqTid, from, REJ_CONSUMER_DEFINED, CmReply.NONE);
            return;
        }
        CmId child = child(at, reqTid, from, r.localCommId(),
                requestLifetimeNanos(r.remoteCmResponseTimeout(), r.maxCmRetries()));
        child.req = r;
        child.remoteQpn = r.localQpn();
        child.remoteCaGuid = r.localCaGuid();
        at.connecting(child, from, r.localQpn());
        child.localAddress = new InetSocketAddress(at.address(), localAddress.getPort());
        byte[] user = pd;
        if (portSpace != PortSpace.IB) {
            child.remoteAddress = CmaHeader.source(pd);
            child.localAddress = new InetSocketAddress(CmaHeader.destination(pd), localAddress.getPort());
            user = CmaHeader.user(pd);
        }
        var limits = at.device.queryDevice();
        child.offered = new ConnParam(user, Math.min(r.initiatorDepth(), limits.maxQpRdAtom()),
                Math.min(r.responderResources(), limits.maxQpInitRdAtom()), r.retryCount(), r.rnrRetryCount(), r.srq());
        child.state = State.CONNECT_REQUEST;
        channel.deliver(new CmEvent(CmEventType.CONNECT_REQUEST, child, this, 0, child.offered, null));
    }

    /** A SIDR_REQ to this listener, arriving on {@code at}'s device. */
    void onSidrRequest(CmAgent at, SidrMessage r, long reqTid, InetAddress from) {
        byte[] pd = r.privateData();
        boolean invalid = !CmaHeader.valid(pd);
        if (invalid || backlogFull(at)) {
            if (invalid) {
                at.requestsInvalid++;
            }
            SidrMessage.reply(r.requestId(), r.serviceId(), SidrMessage.STATUS_REJECT, 0, 0, null)
                    .encode(at.scratch(), reqTid);
            at.send(from, at.scratch());
            return;
        }
        // A SIDR_REQ carries no timeouts: rdma_cm's own (it repeats a SIDR_REQ as a REQ).
        CmId child = child(at, reqTid, from, r.requestId(), requestLifetimeNanos(CM_RESPONSE_TIMEOUT, MAX_CM_RETRIES));
        child.sidrReq = r;
        child.remoteAddress = CmaHeader.source(pd);
        child.localAddress = new InetSocketAddress(CmaHeader.destination(pd), localAddress.getPort());
        child.offered = new ConnParam(CmaHeader.user(pd), 0, 0, 0, 0, false);
        child.state = State.CONNECT_REQUEST;
        channel.deliver(new CmEvent(CmEventType.CONNECT_REQUEST, child, this, 0, child.offered, null));
    }

    /**
     * A repeated REQ. While the application has not answered, an MRA tells the active side to
     * wait (IBA 12.6.6; as the Linux CM, service timeout 24, about 69 s); once the REP is out it
     * repeats on its own timer, so the REQ is ignored.
     */
    void onDuplicateReq() {
        if (state == State.CONNECT_REQUEST) {
            CmReply.mra(localCommId, remoteCommId, 0, MRA_SERVICE_TIMEOUT).encode(agent.scratch(), tid);
            agent.send(peerIp, agent.scratch());
        }
    }

    /** A repeated SIDR_REQ: answer again if the application already has. */
    void onDuplicateSidrReq() {
        if (state == State.ESTABLISHED && pendingValid) {
            agent.send(peerIp, ByteBuffer.wrap(pending));
        }
    }

    // ---- who may speak for the peer ----

    /** True if {@code from} is this ID's peer. */
    boolean isPeer(InetAddress from) {
        return from.equals(peerIp);
    }

    /**
     * True if a REP naming this ID comes from its peer: from its address, and, as the Linux CM's
     * {@code cm_rep_handler} and {@code cm_dup_rep_handler} match, either the first (this side
     * knows no remote ID yet) or a repeat from the ID that sent the first.
     */
    boolean isFromPeer(CmRep rep, InetAddress from) {
        return isPeer(from) && (remoteCommId == 0 || rep.localCommId() == remoteCommId);
    }

    /**
     * True if an RTU, DREQ, DREP, REJ or MRA naming this ID comes from its peer: from its address,
     * with the remote communication ID the Linux CM's {@code cm_acquire_id} would ask of it:
     * <ul>
     * <li>RTU, DREQ, DREP, the REJ of a REP or of another message, the MRA of a REP or another
     *     message: the sender's ID is the one this side knows;</li>
     * <li>the REJ or MRA of a REQ: this side knows no remote ID yet (an active side before the
     *     REP; the REJ's own local ID, 0 from a Linux CM, is not looked at);</li>
     * <li>a REJ for a timeout: the Linux CM finds the ID by the sender's ID and CA GUID (the
     *     REJ's additional information), known once a REQ or REP came. Before that, when it is the
     *     REJ of a REQ (rnic's passive side sends one for a request the application never
     *     answered), it is taken as the REJ of a REQ; the Linux CM drops it and waits out its
     *     retries.</li>
     * </ul>
     */
    boolean isFromPeer(CmReply m, InetAddress from) {
        if (!isPeer(from)) {
            return false;
        }
        int rejected = m.value(); // REJ, MRA: 0 the REQ, 1 the REP, 2 another message
        return switch (m.attributeId()) {
            case Mad.REJ -> m.value2() == REJ_TIMEOUT && remoteCommId != 0
                    ? m.localCommId() == remoteCommId && m.info().length >= 8
                            && ByteBuffer.wrap(m.info()).getLong() == remoteCaGuid
                    : rejected == 0 ? remoteCommId == 0 : m.localCommId() == remoteCommId;
            case Mad.MRA -> rejected == 0 ? remoteCommId == 0 : rejected <= 2 && m.localCommId() == remoteCommId;
            default -> m.localCommId() == remoteCommId;
        };
    }

    /** True while this ID is (or is becoming) a connection: a REQ for its peer's QP is stale. */
    boolean holdsConnection() {
        return switch (state) {
            case CONNECT_REQUEST, REP_SENT, ESTABLISHED, DREQ_SENT, DREQ_RCVD -> true;
            default -> false;
        };
    }

    /**
     * A REQ for this connection's remote QP came (IBA 12.9.8.3.1): the peer's QP has moved on, so
     * an established connection ends with a DREQ (the Linux CM's {@code cm_match_req} sends one);
     * the application hears DISCONNECTED when the DREP comes or the DREQ runs out of retries.
     */
    void onStaleConnection() {
        if (state == State.ESTABLISHED) {
            sendDreq();
        }
    }

    void onSidrRep(SidrMessage rep, InetAddress from) {
        if (state != State.REQ_SENT) {
            return; // a repeated reply
        }
        cancelTimer();
        if (rep.status() != SidrMessage.STATUS_VALID) {
            state = State.ERROR;
            channel.deliver(new CmEvent(CmEventType.UNREACHABLE, this, null, -22, null, // EINVAL, as rdma_cm says
                    new UdParam(null, 0, 0, rep.privateData())));
            return;
        }
        AddressHandle ah = qp.pd().createAddressHandle(AddressVector.of(from).withPort(agent.roceport()));
        state = State.ESTABLISHED;
        channel.deliver(new CmEvent(CmEventType.ESTABLISHED, this, null, 0, null,
                new UdParam(ah, rep.qpn(), rep.qkey(), rep.privateData())));
    }

    void onRep(CmRep rep, InetAddress from) {
        if (state == State.ESTABLISHED) { // our RTU was lost: the peer repeats its REP
            sendRtu();
            return;
        }
        if (state != State.REQ_SENT) {
            return;
        }
        cancelTimer();
        remoteCommId = rep.localCommId();
        remoteQpn = rep.localQpn();
        remoteCaGuid = rep.localCaGuid();
        agent.connecting(this, peerIp, remoteQpn);
        ConnParam p = offered;
        int access = AccessFlags.REMOTE_WRITE
                | (p.responderResources() > 0 ? AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC : 0);
        RcOptions o = RcOptions.defaults().withMtu(agent.routeMtu()).withAccess(access)
                .withRetry(PACKET_LIFE_TIME + 1, p.retryCount(), rep.rnrRetryCount()).withMinRnrTimer(MIN_RNR_TIMER)
                .withRdAtomic(Math.min(p.initiatorDepth(), rep.responderResources()), p.responderResources());
        try {
            // Send from the REP's PSN, receive at the REQ's: Linux's reading (see accept).
            Connections.connect(qp, new ConnectionInfo(agent.device.gid(), qp.qpn(), rep.startingPsn(), 0, 0),
                    new ConnectionInfo(Gid.of(from), rep.localQpn(), startingPsn, 0, 0), o, agent.roceport());
        } catch (RuntimeException e) {
            // The QP refused what the peer offered: tell the peer, as the Linux CM does.
            CmReply.rej(localCommId, remoteCommId, 1, REJ_CONSUMER_DEFINED, null).encode(agent.scratch(), tid);
            agent.send(from, agent.scratch());
            state = State.ERROR;
            channel.deliver(new CmEvent(CmEventType.CONNECT_ERROR, this, null, -22, null, null));
            return;
        }
        sendRtu();
        state = State.ESTABLISHED;
        channel.deliver(new CmEvent(CmEventType.ESTABLISHED, this, null, 0,
                new ConnParam(rep.privateData(), Math.min(rep.initiatorDepth(), p.responderResources()),
                        Math.min(rep.responderResources(), p.initiatorDepth()), p.retryCount(), rep.rnrRetryCount(),
                        rep.srq()), null));
    }

    void onReply(CmReply m, long msgTid, InetAddress from) {
        switch (m.attributeId()) {
            case Mad.RTU -> {
                if (state == State.REP_SENT) {
                    cancelTimer();
                    state = State.ESTABLISHED;
                    channel.deliver(new CmEvent(CmEventType.ESTABLISHED, this, null, 0, null, null));
                }
            }
            case Mad.MRA -> {
                // The peer needs longer: wait its service timeout before repeating (IBA 12.6.6).
                if (timer != null && (state == State.REQ_SENT || state == State.REP_SENT)) {
                    cancelTimer();
                    long wait = timeoutNanos(m.value2()) + timeoutNanos(PACKET_LIFE_TIME) * 2;
                    timer = agent.scheduler.schedule(wait, this::repeat);
                }
            }
            case Mad.REJ -> {
                if (state == State.REQ_SENT || state == State.REP_SENT) {
                    cancelTimer();
                    toError();
                    state = State.ERROR;
                    channel.deliver(new CmEvent(CmEventType.REJECTED, this, null, m.value2(),
                            new ConnParam(m.privateData(), 0, 0, 0, 0, false), null));
                }
            }
            case Mad.DREQ -> {
                if (qp == null || m.value() != qp.qpn()) {
                    return; // IBA 12.6.9 / the Linux CM: a DREQ naming another QP is not for this connection
                }
                switch (state) {
                    case ESTABLISHED, REP_SENT, DREQ_SENT -> {
                        cancelTimer();
                        if (state == State.DREQ_SENT) { // both sides disconnected at once
                            sendDrep();
                            state = State.DISCONNECTED;
                            channel.deliver(new CmEvent(CmEventType.DISCONNECTED, this, null, 0, null, null));
                            return;
                        }
                        state = State.DREQ_RCVD;
                        channel.deliver(new CmEvent(CmEventType.DISCONNECTED, this, null, 0, null, null));
                    }
                    case DISCONNECTED -> sendDrep(); // our DREP was lost
                    default -> {
                    }
                }
            }
            case Mad.DREP -> {
                if (state == State.DREQ_SENT) {
                    cancelTimer();
                    state = State.DISCONNECTED;
                    channel.deliver(new CmEvent(CmEventType.DISCONNECTED, this, null, 0, null, null));
                }
            }
            default -> {
            }
        }
    }

    // ---- helpers ----

    /** Ends the connection from this side: the QP to ERR, a DREQ repeated until the DREP. */
    private void sendDreq() {
        toError();
        ByteBuffer mad = agent.scratch();
        CmReply.dreq(localCommId, remoteCommId, req != null ? req.localQpn() : remoteQpn, null).encode(mad, tid);
        state = State.DREQ_SENT;
        sendAndRepeat(mad, MAX_CM_RETRIES, retryNanos > 0 ? retryNanos : timeoutNanos(CM_RESPONSE_TIMEOUT));
    }

    /** Forgets this ID in its agent's tables. Protocol thread. */
    private void forget() {
        agent.forget(this, localCommId, peerIp, remoteCommId, remoteQpn);
    }

    /** Refuses an application's call on a request that is not pending, saying why. */
    private void requireRequest(String what) {
        if (expired) {
            throw new IllegalStateException(what + " on " + this + ": the request timed out, the application had"
                    + " neither accepted nor rejected it when its sender would give up, so the connection manager"
                    + " rejected it (REJ reason 4, timeout) and forgot it");
        }
        requireState(State.CONNECT_REQUEST, what);
    }

    /** The request is answered (or dropped): it no longer counts against its listener's backlog. */
    private void answered() {
        if (awaiting) {
            awaiting = false;
            listenerOf.awaitingAnswer.decrementAndGet();
            cancelTimer();
        }
    }

    private void sendRtu() {
        CmReply.rtu(localCommId, remoteCommId, null).encode(agent.scratch(), tid);
        agent.send(peerIp, agent.scratch());
    }

    private void sendDrep() {
        CmReply.drep(localCommId, remoteCommId, null).encode(agent.scratch(), tid);
        agent.send(peerIp, agent.scratch());
    }

    private void toError() {
        if (qp != null && !qp.isClosed() && qp.state() != QpState.RESET && qp.state() != QpState.ERR) {
            qp.modify(new QpAttributes().state(QpState.ERR));
        }
    }

    /** Sends {@code mad} and repeats it every {@code nanos} until answered or out of retries. */
    private void sendAndRepeat(ByteBuffer mad, int retries, long nanos) {
        mad.get(0, pending);
        pendingValid = true;
        retriesLeft = retries;
        retryNanos = nanos;
        agent.send(peerIp, mad);
        cancelTimer();
        timer = agent.scheduler.schedule(nanos, this::repeat);
    }

    private void repeat() {
        timer = null;
        if (state != State.REQ_SENT && state != State.REP_SENT && state != State.DREQ_SENT) {
            return;
        }
        if (retriesLeft-- > 0) {
            retransmissions++;
            agent.send(peerIp, ByteBuffer.wrap(pending));
            timer = agent.scheduler.schedule(retryNanos, this::repeat);
            return;
        }
        // Out of retries (IBA 12.9.8.x): a request or reply nobody answered.
        if (state == State.DREQ_SENT) {
            state = State.DISCONNECTED;
            channel.deliver(new CmEvent(CmEventType.DISCONNECTED, this, null, 0, null, null));
            return;
        }
        toError();
        state = State.ERROR;
        channel.deliver(new CmEvent(CmEventType.UNREACHABLE, this, null, CmEvent.ETIMEDOUT, null, null));
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /** The Linux CM's wait for an answer: twice the packet life time plus the peer's response time. */
    static long timeoutNanos(int cmResponseTimeout) {
        long ms = 2 * msOf(PACKET_LIFE_TIME) + msOf(cmResponseTimeout);
        return ms * 1_000_000L;
    }

    /** 4.096 µs × 2^n in whole milliseconds, as the kernel's {@code cm_convert_to_ms}. */
    private static long msOf(int ibaTime) {
        return 1L << Math.max(ibaTime - 8, 0);
    }

    private void requireState(State expected, String what) {
        if (state != expected) {
            throw new IllegalStateException(what + " on " + this + " needs state " + expected + ", not " + state);
        }
    }

    @Override
    public String toString() {
        return "CmId[" + portSpace + " " + state + (localAddress != null ? " " + localAddress : "")
                + (remoteAddress != null ? " -> " + remoteAddress : "") + (qp != null ? " qp " + qp.qpn() : "") + "]";
    }
}
