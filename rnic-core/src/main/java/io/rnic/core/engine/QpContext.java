package io.rnic.core.engine;

import io.rnic.core.hca.Hca;
import io.rnic.core.memory.ProtectionDomain;
import io.rnic.core.packet.Transport;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;

/**
 * The context of one queue pair (the "QPC"): what it is (number, type, transport policy, PD,
 * CQs, queues), the state and attributes in force, and the rooms that do its work:
 * <ul>
 *   <li>{@link Posting}: post_send and post_recv (any thread), and the doorbell;</li>
 *   <li>{@link QpModify}: modify_qp, the state changes and what they start and stop;</li>
 *   <li>{@link CompletionWriter}: completions and flushes;</li>
 *   <li>{@link PacketFramer}: TX framing;</li>
 *   <li>{@link RxDispatch}: the per-QP receive checks and the hand-over to the engines;</li>
 *   <li>the {@link Requester}, {@link Completer} and {@link Responder} state machines, whose
 *       reliability state is a {@link ReliabilityContext};</li>
 *   <li>its {@link Addressing} (the destination seam) and its {@link ReceiveQueue} (the receive
 *       source seam: its own queue or an SRQ).</li>
 * </ul>
 * Protocol state is owned by the HCA's protocol thread; posting may be done from any thread.
 */
public final class QpContext {
    /** Bytes a send WR may carry inline: rxe's, the room of its largest send WQE (32 SGEs). */
    public static final int MAX_INLINE_DATA = 512;

    final Hca hca;
    final int qpn;
    final QpType type;
    /**
     * The opcode range its packets use: the policy's, or rnic's selective-retransmission RC once
     * the QP is ready to receive with {@code LossRecovery.SELECTIVE} (set at RTR, protocol thread).
     */
    volatile Transport transport;
    /** What this QP's transport does differently. */
    final TransportPolicy policy;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QpCaps caps;
    final boolean signalAll;
    /** Advertise and honour AETH end-to-end credits; false keeps rxe's "always invalid" behaviour. */
    final boolean endToEndCredits;
    final SendQueue sq;
    /** Where messages find receive WQEs: the QP's own queue or its SRQ. */
    final ReceiveQueue rq;
    /** The SRQ the QP was created with, or {@code null}. */
    final SrqContext srq;
    /** The XRC domain of an XRC target QP, or {@code null}. */
    final XrcDomainContext xrcd;
    /** The reliable datagram domain of an RD QP or EE context, or {@code null}. */
    final RddContext rdd;
    final ReliabilityContext rel = new ReliabilityContext();
    /** The outbound scheduler of an EE context (the context's "EE mode"), or {@code null}. */
    final EecScheduler ee;
    /** What serves the send queue: the requester, an RD QP's EE contexts, or an EE context's scheduler. */
    final SendDriver sendDriver;
    /** Which queue, PD and CQ each incoming message uses. */
    final MessageTarget target;
    final Addressing addressing;
    final Posting posting;
    final QpModify modify;
    final CompletionWriter completions;
    final PacketFramer framer;
    final RxDispatch rx;
    final Requester requester;
    final Completer completer;
    final Responder responder;

    volatile QpState state = QpState.RESET;
    /** The attributes in force (copied on every successful modify). */
    final QpAttributes attrs = new QpAttributes();
    int accessFlags;
    int pkey = 0xFFFF;
    /** The path MTU in bytes (the port's active MTU for datagram QPs, which have no path). */
    int mtu;
    /** The Q_Key of a datagram QP. */
    int qkey;
    boolean destroyed;
    /**
     * Whether the responder (at RTR) and the requester (at RTS) have started since the last
     * RESET: from then on {@link #query} reports their live PSNs. Protocol thread.
     */
    boolean responderStarted;
    boolean requesterStarted;
    /**
     * Why posts are refused from now on (the QP destroyed, its device closed), or null. Written and
     * read under the send queue's lock, so a post either is published before the refusal, and the
     * flush or the destruction that follows finds it, or throws.
     */
    String postsRefused;

    private QpContext(Hca hca, int qpn, TransportPolicy policy, ProtectionDomain pd, CompletionQueue sendCq,
                      CompletionQueue recvCq, QpCaps caps, SrqContext srq, XrcDomainContext xrcd, RddContext rdd,
                      boolean signalAll, boolean endToEndCredits) {
        this.hca = hca;
        this.xrcd = xrcd;
        this.rdd = rdd;
        this.qpn = qpn;
        this.type = policy.type();
        this.policy = policy;
        this.transport = policy.transport();
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.caps = caps;
        this.srq = srq;
        this.signalAll = signalAll;
        this.endToEndCredits = endToEndCredits;
        this.mtu = hca.limits().activeMtu().bytes();
        TransportPolicy.DestinationKind dest = policy.destination();
        this.sq = dest == TransportPolicy.DestinationKind.EE_PEER ? new EecSendQueue()
                : new SendQueue(caps.maxSendWr(), caps.maxSendSge(), caps.maxInlineData());
        this.completions = dest == TransportPolicy.DestinationKind.EE_PEER ? new EecCompletions(this)
                : new CompletionWriter(this);
        this.posting = new Posting(this);
        this.rq = srq != null ? srq
                : policy.receiveSource() != TransportPolicy.ReceiveSource.QP_RQ_OR_SRQ ? NoReceiveQueue.INSTANCE
                : new OwnReceiveQueue(caps.maxRecvWr(), caps.maxRecvSge(), pd, () -> state == QpState.ERR, posting::ring);
        this.target = policy.receiveSource().target(this);
        this.addressing = switch (dest) {
            case CONNECTED -> new ConnectedAddressing(hca, qpn);
            case PER_WORK_REQUEST -> new DatagramAddressing(hca, this);
            case THROUGH_EE_CONTEXT -> new RdQpAddressing(this);
            case EE_PEER -> new EecAddressing(hca, qpn);
        };
        this.modify = new QpModify(this);
        this.framer = new PacketFramer(this);
        this.rx = new RxDispatch(this);
        this.requester = new Requester(this);
        this.completer = new Completer(this);
        this.responder = new Responder(this);
        this.ee = dest == TransportPolicy.DestinationKind.EE_PEER ? new EecScheduler(this) : null;
        this.sendDriver = switch (dest) {
            case THROUGH_EE_CONTEXT -> new RdQpSender(this);
            case EE_PEER -> ee;
            default -> requester;
        };
    }

    /**
     * Creates a QP in RESET and routes its number's packets to it; callable from any thread.
     *
     * @param srq the shared receive queue its messages take receive WQEs from, or {@code null}
     *            for a receive queue of its own ({@code caps.maxRecvWr()} entries)
     * @throws IllegalArgumentException if the type is not supported or the sizes exceed the device's
     * @throws IllegalStateException if the device has no QP left
     */
    public static QpContext create(Hca hca, QpType type, ProtectionDomain pd, CompletionQueue sendCq,
                                   CompletionQueue recvCq, QpCaps caps, SrqContext srq, boolean signalAll,
                                   boolean endToEndCredits) {
        TransportPolicy policy = TransportPolicy.of(type);
        if (policy == null) {
            throw new IllegalArgumentException("QP type " + type + " is not supported yet: RC, UC, UD, GSI and XRC are");
        }
        if (policy.receiveSource() == TransportPolicy.ReceiveSource.SRQ_BY_XRCETH) {
            throw new IllegalArgumentException("a " + type + " QP belongs to an XRC domain, not a PD: createXrcTarget");
        }
        if (policy.destination().throughEeContext()) {
            throw new IllegalArgumentException("an RD QP belongs to a reliable datagram domain too: createRd");
        }
        if (policy.receiveSource() == TransportPolicy.ReceiveSource.NONE) {
            recvCq = null; // an initiator receives nothing: a receive CQ would only be held in use
        } else if (recvCq == null) {
            throw new IllegalArgumentException("a " + type + " QP needs a receive completion queue");
        }
        if (pd == null || sendCq == null) {
            throw new IllegalArgumentException("a " + type + " QP needs a protection domain and a send completion queue");
        }
        return create(hca, policy, pd, sendCq, recvCq, caps, srq, null, null, signalAll, endToEndCredits);
    }

    /**
     * Creates an RD QP in RESET in reliable datagram domain {@code rdd} (seed 001 §9.7.8): its
     * queues, protection domain and CQs are its own; its messages go through the EE contexts of
     * the domain that its work requests name.
     *
     * @throws IllegalArgumentException if a required object is missing or the sizes exceed the device's
     * @throws IllegalStateException if the domain is freed or the device has no QP left
     */
    public static QpContext createRd(Hca hca, ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
                                     QpCaps caps, SrqContext srq, boolean signalAll, RddContext rdd) {
        if (pd == null || sendCq == null || recvCq == null || rdd == null) {
            throw new IllegalArgumentException("an RD QP needs a protection domain, both completion queues and a "
                    + "reliable datagram domain");
        }
        rdd.attach();
        try {
            return create(hca, TransportPolicy.RD, pd, sendCq, recvCq, caps, srq, null, rdd, signalAll, false);
        } catch (RuntimeException e) {
            rdd.detach();
            throw e;
        }
    }

    /**
     * Creates an EE context in RESET in reliable datagram domain {@code rdd}: a context in "EE
     * mode" (seed 001 §9.7.8, implementation note), numbered from the QPs' space, that carries
     * the messages of the domain's RD QPs to one peer context with RC's reliability. It is
     * brought up as an RC QP is: INIT, RTR with the path, the peer context's number (as the
     * destination QP) and the receive PSN, RTS with the send PSN and the retry counts.
     *
     * @param qpErrors what an error of a message's QP does (o9-114.a1)
     * @throws IllegalStateException if the domain is freed or the device has no number left
     */
    public static QpContext createEeContext(Hca hca, RddContext rdd, io.rnic.verbs.RdQpErrorRecovery qpErrors) {
        if (rdd == null || qpErrors == null) {
            throw new IllegalArgumentException("an EE context needs a reliable datagram domain and a choice for QP errors");
        }
        rdd.attach();
        try {
            QpContext eec = create(hca, TransportPolicy.RD_EEC, null, null, null, new QpCaps(1, 1, 1, 1, 0), null, null,
                    rdd, false, false);
            eec.ee.qpErrors(qpErrors);
            return eec;
        } catch (RuntimeException e) {
            rdd.detach();
            throw e;
        }
    }

    /**
     * Creates an XRC target QP ({@code ibv_create_qp_ex} with {@code IBV_QPT_XRC_RECV}) in RESET:
     * the responder half of XRC, belonging to domain {@code xrcd}; it has no PD, CQs or queues
     * of its own, each message using those of the XRC SRQ of the domain that it names.
     *
     * @throws IllegalStateException if the domain is closed or the device has no QP left
     */
    public static QpContext createXrcTarget(Hca hca, XrcDomainContext xrcd) {
        if (xrcd == null) {
            throw new IllegalArgumentException("an XRC target QP needs an XRC domain");
        }
        xrcd.attachTargetQp();
        try {
            return create(hca, TransportPolicy.XRC_RECV, null, null, null, new QpCaps(1, 1, 1, 1, 0), null, xrcd,
                    null, false, false);
        } catch (RuntimeException e) {
            xrcd.detachTargetQp();
            throw e;
        }
    }

    private static QpContext create(Hca hca, TransportPolicy policy, ProtectionDomain pd, CompletionQueue sendCq,
                                    CompletionQueue recvCq, QpCaps caps, SrqContext srq, XrcDomainContext xrcd,
                                    RddContext rdd, boolean signalAll, boolean endToEndCredits) {
        QpType type = policy.type();
        var limits = hca.limits();
        if (caps.maxSendWr() > limits.maxQpWr() || caps.maxRecvWr() > limits.maxQpWr()) {
            throw new IllegalArgumentException("max_send_wr/max_recv_wr " + caps.maxSendWr() + "/" + caps.maxRecvWr()
                    + " exceed the device's max_qp_wr " + limits.maxQpWr());
        }
        if (caps.maxSendSge() > limits.maxSge() || caps.maxRecvSge() > limits.maxSge()) {
            throw new IllegalArgumentException("max SGEs " + caps.maxSendSge() + "/" + caps.maxRecvSge()
                    + " exceed the device's max_sge " + limits.maxSge());
        }
        if (srq != null && policy.receiveSource() != TransportPolicy.ReceiveSource.QP_RQ_OR_SRQ) {
            throw new IllegalArgumentException("a " + type + " QP cannot be created with an SRQ");
        }
        if (srq != null && srq.hca() != hca) {
            throw new IllegalArgumentException(srq + " belongs to another device");
        }
        if (caps.maxInlineData() > MAX_INLINE_DATA) {
            throw new IllegalArgumentException("max_inline_data " + caps.maxInlineData() + " exceeds the device's "
                    + MAX_INLINE_DATA);
        }
        int qpn = policy.fixedQpn() != 0 ? hca.reserveFixedQpn(policy.fixedQpn()) : hca.reserveQpn();
        QpContext qp = null;
        boolean attached = false;
        try {
            if (srq != null) {
                srq.attach();
                attached = true;
            }
            qp = new QpContext(hca, qpn, policy, pd, sendCq, recvCq, caps, srq, xrcd, rdd, signalAll, endToEndCredits);
        } finally {
            if (qp == null) { // whatever failed, nothing stays counted
                if (attached) {
                    srq.detach();
                }
                hca.unreserveQpn(qpn);
            }
        }
        if (pd != null) {
            pd.retain();
        }
        if (sendCq != null) {
            sendCq.attach();
        }
        if (recvCq != null) {
            recvCq.attach();
        }
        hca.attach(qpn, qp.rx);
        return qp;
    }

    public int qpn() {
        return qpn;
    }

    public QpType type() {
        return type;
    }

    /** The transport policy this QP follows. */
    public TransportPolicy policy() {
        return policy;
    }

    /** The transport this QP runs. */
    public Transport transport() {
        return transport;
    }

    public QpState state() {
        return state;
    }

    /** The protection domain, or {@code null} for an XRC target QP (its SRQs' PDs are used). */
    public ProtectionDomain pd() {
        return pd;
    }

    /** The XRC domain of an XRC target QP, or {@code null}. */
    public XrcDomainContext xrcd() {
        return xrcd;
    }

    public QpCaps caps() {
        return caps;
    }

    public CompletionQueue sendCq() {
        return sendCq;
    }

    public CompletionQueue recvCq() {
        return recvCq;
    }

    /** The SRQ this QP takes receive WQEs from, or {@code null} if it has its own queue. */
    public SrqContext srq() {
        return srq;
    }

    /** The UDP source port of this QP's packets (from RTR on; -1 before). */
    public int sourcePort() {
        return addressing.sourcePort();
    }

    public int pkey() {
        return pkey;
    }

    /**
     * A copy of the attributes in force, with the live PSNs ({@code ibv_query_qp}, as rxe
     * reports them): {@code sq_psn} is the PSN the requester's next new packet takes once it has
     * started (RTS), {@code rq_psn} the responder's expected PSN once it has started (RTR); before
     * that, the values the last modify set. Owner thread: the PSNs are the protocol thread's, and
     * reading them there costs the packets nothing.
     */
    public QpAttributes query(QpAttributes out) {
        out.copyFrom(attrs);
        out.state(state);
        if (requesterStarted) {
            out.sqPsn(rel.sendWindow.next());
        }
        if (responderStarted) {
            out.rqPsn(rel.receiveWindow.expected());
        }
        return out;
    }

    /**
     * Posts a send work request. Validation failures throw and post nothing.
     *
     * @throws IllegalStateException if the QP's state does not allow posting sends or the queue is full
     * @throws IllegalArgumentException if the request is invalid for this QP
     */
    public void postSend(SendWorkRequest wr) {
        posting.postSend(wr);
    }

    /**
     * Posts a receive work request to the QP's own receive queue.
     *
     * @throws IllegalStateException in RESET, when the receive queue is full, or if the QP takes
     *     its receive WQEs from an SRQ (post to the SRQ instead)
     * @throws IllegalArgumentException for too many SGEs
     */
    public void postRecv(RecvWorkRequest wr) {
        posting.postRecv(wr);
    }

    /**
     * The UDP source port a modify with {@code attrs}/{@code mask} will open, or -1: the caller
     * opens it off the protocol thread first, because opening may bind a socket.
     */
    public int flowToOpen(QpAttributes attrs, int mask) {
        return addressing.flowToOpen(attrs, mask);
    }

    /**
     * Applies a modify: validates the transition and attributes against the table of reference
     * §6.2, then changes state. Owner thread only.
     *
     * @throws IllegalArgumentException naming the transition and attribute when invalid
     */
    public void modify(QpAttributes a, int mask) {
        modify.apply(a, mask);
    }

    /**
     * Destroys the QP: queues are dropped without completions and its number stops receiving.
     * Owner thread.
     */
    public void destroy() {
        if (destroyed) {
            return;
        }
        refusePosts((ee != null ? "EE context 0x" : "QP 0x") + Integer.toHexString(qpn) + " is destroyed");
        destroyed = true;
        modify.reset();
        hca.detach(qpn);
        if (pd != null) {
            pd.release();
        }
        if (sendCq != null) {
            sendCq.detach();
        }
        if (recvCq != null) {
            recvCq.detach();
        }
        if (srq != null) {
            srq.detach();
        }
        if (xrcd != null) {
            xrcd.detachTargetQp();
        }
        if (rdd != null) {
            rdd.detach();
        }
    }

    /** False for an RD QP, whose PSNs are those of the EE contexts that carry its messages. */
    boolean keepsOwnPsns() {
        return !policy.destination().throughEeContext();
    }

    /** Refuses every later post, send or receive, with {@code reason}; see {@link #postsRefused}. */
    private void refusePosts(String reason) {
        synchronized (sq) {
            postsRefused = reason;
        }
        rq.refusePosts(reason);
    }

    /**
     * The device is closing (protocol thread, or when none runs): later posts are refused with
     * {@code reason}, and the QP moves to ERR from whatever state it is in, as on a device being
     * removed, so every work request it accepted completes, flushed; a QP already in ERR flushes
     * what was posted since. A destroyed QP holds nothing.
     */
    public void deviceClosed(String reason) {
        refusePosts(reason);
        if (destroyed) {
            return;
        }
        if (state != QpState.ERR) {
            moveToError(null);
        } else {
            // Posts accepted in ERR are flushed by their doorbell, which may never run now.
            completions.flushSend();
            rq.flushPosted(this);
        }
    }

    /** The send side of an RD QP. */
    RdQpSender rdSender() {
        return (RdQpSender) sendDriver;
    }

    /** True for an EE context (a context in EE mode) rather than a QP. */
    public boolean isEeContext() {
        return ee != null;
    }

    /** The reliable datagram domain of an RD QP or EE context, or {@code null}. */
    public RddContext rdd() {
        return rdd;
    }

    /**
     * Send WQE {@code w} (or, if {@code null}, the send side) failed with {@code status}: as the
     * transport's recovery column says, the QP moves to ERR with the WQE's error completion, or an
     * EE context abandons the message and carries on (9.7.8.5).
     */
    void sendFailed(SendWqe w, io.rnic.verbs.WcStatus status, AsyncEvent.Type event) {
        switch (policy.recovery()) {
            case QP_FAILS -> failWith(event, w == null ? null : () -> completions.completeSend(w, status));
            case ABANDON_OR_SUSPEND_THEN_RESYNC -> ee.failed(w, status, event);
            default -> throw new IllegalStateException("recovery " + policy.recovery());
        }
    }

    /**
     * Moves the QP to ERR: the requester and responder stop, every outstanding send and receive
     * WQE completes with WR_FLUSH_ERR (an SRQ's only the one a message held), and an asynchronous
     * event is raised if {@code event} is set.
     */
    void moveToError(AsyncEvent.Type event) {
        failWith(event, null);
    }

    /**
     * Moves the QP to ERR because of an error that {@code errorCompletion} reports (it writes the
     * failed WQE's completion): the state reads ERR before that completion can be polled, so an
     * application that sees the error never reads a stale state; the flushes follow it.
     */
    void failWith(AsyncEvent.Type event, Runnable errorCompletion) {
        // What the responder acknowledged before the error still leaves, as it would have uncoalesced.
        responder.flushBeforeError();
        modify.toError(event, errorCompletion);
    }

    @Override
    public String toString() {
        return (ee != null ? "EEC 0x" : "QP 0x") + Integer.toHexString(qpn) + " " + type + " " + state;
    }
}
