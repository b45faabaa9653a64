package io.rnic.core.transport;

import io.netty.buffer.ByteBuf;
import io.rnic.core.hca.AsyncEvent;
import io.rnic.core.hca.Counter;
import io.rnic.core.hca.Hca;
import io.rnic.core.memory.AccessResult;
import io.rnic.core.memory.MemoryAccess;
import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.memory.ProtectionDomain;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.packet.Transport;
import io.rnic.core.qp.AddressVector;
import io.rnic.core.qp.QpAttrMask;
import io.rnic.core.qp.QpAttributes;
import io.rnic.core.qp.QpState;
import io.rnic.core.qp.QpTransitions;
import io.rnic.core.qp.QpType;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The protocol state of one queue pair (the "QPC"): attributes, send and receive queues, and
 * the requester, completer and responder state machines. Protocol state is owned by the HCA's
 * protocol thread; {@link #postSend} and {@link #postRecv} may be called from any thread and
 * hand work over through the doorbell.
 */
public final class QpContext {
    final Hca hca;
    final int qpn;
    final QpType type;
    final Transport transport;
    /** What this QP's transport does differently (acknowledgement, PSN checking). */
    final TransportPolicy policy;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QpCaps caps;
    final boolean signalAll;
    /** Advertise and honour AETH end-to-end credits; false keeps rxe's "always invalid" behaviour. */
    final boolean endToEndCredits;
    final SendQueue sq;
    final RecvQueue rq;
    final Requester requester;
    final Completer completer;
    final Responder responder;

    volatile QpState state = QpState.RESET;
    /** The attributes in force (copied on every successful modify). */
    final QpAttributes attrs = new QpAttributes();
    int accessFlags;
    int pkey = 0xFFFF;
    int mtu = 1024;
    int destQpn;
    InetSocketAddress remote;
    int sourcePort;
    final PseudoHeader txPseudo = new PseudoHeader();
    private final AtomicBoolean doorbellRung = new AtomicBoolean();
    private final Runnable doorbell = this::onDoorbell;
    private boolean destroyed;

    public QpContext(Hca hca, int qpn, QpType type, ProtectionDomain pd, CompletionQueue sendCq,
                     CompletionQueue recvCq, QpCaps caps, boolean signalAll, boolean endToEndCredits) {
        TransportPolicy policy = TransportPolicy.of(type);
        if (policy == null) {
            throw new IllegalArgumentException("QP type " + type + " is not supported yet: RC and UC are");
        }
        this.hca = hca;
        this.qpn = qpn;
        this.type = type;
        this.policy = policy;
        this.transport = policy.transport();
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.caps = caps;
        this.signalAll = signalAll;
        this.endToEndCredits = endToEndCredits;
        this.sq = new SendQueue(caps.maxSendWr(), caps.maxSendSge(), caps.maxInlineData());
        this.rq = new RecvQueue(caps.maxRecvWr(), caps.maxRecvSge());
        this.requester = new Requester(this);
        this.completer = new Completer(this);
        this.responder = new Responder(this);
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

    public QpState state() {
        return state;
    }

    public ProtectionDomain pd() {
        return pd;
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

    /** The UDP source port of this QP's flow (valid from RTR on). */
    public int sourcePort() {
        return sourcePort;
    }

    /** A copy of the attributes in force. Owner thread. */
    public QpAttributes query(QpAttributes out) {
        out.copyFrom(attrs);
        out.state(state);
        return out;
    }

    // ---------------------------------------------------------------- posting (any thread)

    /**
     * Posts a send work request. Validation failures throw and post nothing.
     *
     * @throws IllegalStateException if the QP's state does not allow posting sends or the queue is full
     * @throws IllegalArgumentException if the request is invalid for this QP
     */
    public void postSend(SendWorkRequest wr) {
        QpState s = state;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
            throw new IllegalStateException("post_send on QP 0x" + Integer.toHexString(qpn) + " in state " + s
                    + ": sends need RTS (or SQD, SQE, ERR)");
        }
        RequestKind kind = RequestKind.of(wr.opcode);
        if (kind == null || !kind.transports().contains(transport)) {
            throw new IllegalArgumentException("opcode " + wr.opcode + " cannot be posted on a " + type + " QP");
        }
        if (wr.sges.count > caps.maxSendSge()) {
            throw new IllegalArgumentException(wr.sges.count + " SGEs exceed max_send_sge " + caps.maxSendSge());
        }
        long total = wr.totalLength();
        boolean inline = (wr.flags & SendWqe.INLINE) != 0;
        if (inline && total > caps.maxInlineData()) {
            throw new IllegalArgumentException("inline data of " + total + " bytes exceeds max_inline_data " + caps.maxInlineData());
        }
        if (inline && kind.isReadOrAtomic()) {
            throw new IllegalArgumentException(wr.opcode + " cannot be sent inline: its data comes back from the responder");
        }
        if (total > hca.limits().maxMessageSize()) {
            throw new IllegalArgumentException("message of " + total + " bytes exceeds the maximum message size "
                    + hca.limits().maxMessageSize());
        }
        if (kind.isAtomic()) {
            if (total != 8) {
                throw new IllegalArgumentException(wr.opcode + " needs exactly 8 bytes of local buffer, got " + total);
            }
            if ((wr.remoteAddr & 7) != 0) {
                throw new IllegalArgumentException(String.format("%s remote address 0x%x is not 8-byte aligned", wr.opcode, wr.remoteAddr));
            }
        }
        synchronized (sq) {
            SendWqe w = sq.claim();
            if (w == null) {
                throw new IllegalStateException("send queue of QP 0x" + Integer.toHexString(qpn) + " is full (max_send_wr "
                        + caps.maxSendWr() + ")");
            }
            w.wrId = wr.wrId;
            w.opcode = wr.opcode;
            w.kind = kind;
            w.flags = wr.flags | (signalAll ? SendWqe.SIGNALED : 0);
            w.imm = wr.imm;
            w.invalidateRkey = wr.invalidateRkey;
            w.remoteAddr = wr.remoteAddr;
            w.rkey = wr.rkey;
            w.compareAdd = wr.compareAdd;
            w.swap = wr.swap;
            if (inline) {
                copyInline(wr, w);
            } else {
                wr.sges.copyTo(w.sgl);
            }
            sq.publish();
        }
        ring();
    }

    private void copyInline(SendWorkRequest wr, SendWqe w) {
        int at = 0;
        Sges g = wr.sges;
        for (int i = 0; i < g.count; i++) {
            int len = g.length[i];
            if (len == 0) {
                continue;
            }
            MemoryRegion mr = hca.keys().lookup(g.lkey[i]);
            AccessResult r = MemoryAccess.check(mr, pd, g.addr[i], len, 0, 1);
            if (r != AccessResult.OK) {
                throw new IllegalArgumentException(String.format("inline SGE %d (lkey 0x%08x, addr 0x%x, length %d): %s",
                        i, g.lkey[i], g.addr[i], len, r));
            }
            mr.read(g.addr[i], w.inlineBuf, at, len);
            at += len;
        }
        w.inlineLength = at;
    }

    /**
     * Posts a receive work request.
     *
     * @throws IllegalStateException in RESET or when the receive queue is full
     * @throws IllegalArgumentException for too many SGEs
     */
    public void postRecv(RecvWorkRequest wr) {
        if (state == QpState.RESET) {
            throw new IllegalStateException("post_recv on QP 0x" + Integer.toHexString(qpn) + " in RESET: receives need INIT or later");
        }
        if (wr.sges.count > caps.maxRecvSge()) {
            throw new IllegalArgumentException(wr.sges.count + " SGEs exceed max_recv_sge " + caps.maxRecvSge());
        }
        synchronized (rq) {
            RecvWqe w = rq.claim();
            if (w == null) {
                throw new IllegalStateException("receive queue of QP 0x" + Integer.toHexString(qpn) + " is full (max_recv_wr "
                        + caps.maxRecvWr() + ")");
            }
            w.wrId = wr.wrId;
            wr.sges.copyTo(w.sgl);
            rq.publish();
        }
        if (state == QpState.ERR) {
            ring();
        }
    }

    /** Hands the queues to the protocol thread, once per batch of posts. */
    private void ring() {
        if (doorbellRung.compareAndSet(false, true)) {
            hca.scheduler().execute(doorbell);
        }
    }

    private void onDoorbell() {
        doorbellRung.set(false);
        if (destroyed) {
            return;
        }
        if (state == QpState.ERR) {
            flushSend();
            flushRecv();
            return;
        }
        requester.run();
    }

    // ---------------------------------------------------------------- modify (owner thread)

    /** The UDP source port rxe derives from the two QP numbers (reference §4.2). */
    public static int udpSourcePort(int localQpn, int remoteQpn) {
        long v = (long) localQpn * remoteQpn;
        v ^= v >>> 20;
        v ^= v >>> 40;
        int fl = (int) (v & 0xFFFFF);
        return 0xC000 | ((fl & 0x3FFF) ^ ((fl & 0xFC000) >>> 14));
    }

    /**
     * Applies a modify: validates the transition and attributes against the table of reference
     * §6.2, then changes state. Owner thread only.
     *
     * @throws IllegalArgumentException naming the transition and attribute when invalid
     */
    public void modify(QpAttributes a, int mask) {
        QpTransitions.validate(type, state, a, mask, hca.limits().qpLimits());
        QpState target = (mask & QpAttrMask.STATE) != 0 ? a.state() : state;
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0) {
            accessFlags = a.accessFlags();
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0) {
            pkey = hca.pkeys().get(a.pkeyIndex());
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0) {
            mtu = a.pathMtu().bytes();
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0) {
            destQpn = a.destQpn();
        }
        if ((mask & QpAttrMask.AV) != 0) {
            AddressVector av = a.av();
            remote = new InetSocketAddress(av.address(), av.port());
        }
        attrs.copyFrom(a, mask);
        if ((mask & QpAttrMask.STATE) == 0) {
            completer.attributesChanged();
            return;
        }
        QpState from = state;
        switch (target) {
            case RESET -> reset();
            case INIT -> state = QpState.INIT;
            case RTR -> {
                if (from == QpState.INIT) {
                    int wanted = udpSourcePort(qpn, destQpn);
                    sourcePort = hca.output().openFlow(wanted);
                    txPseudo.addresses(hca.address(), remote.getAddress()).ports(sourcePort, remote.getPort());
                    responder.start(attrs.rqPsn(), attrs.maxDestRdAtomic());
                }
                state = QpState.RTR;
            }
            case RTS -> {
                if (from == QpState.RTR) {
                    requester.start(attrs.sqPsn());
                    completer.start();
                }
                state = QpState.RTS;
                completer.attributesChanged();
                requester.run();
            }
            case SQD -> {
                state = QpState.SQD;
                requester.drainRequested(attrs.enSqdAsyncNotify());
            }
            case SQE -> state = QpState.SQE;
            case ERR -> moveToError(null);
            default -> throw new IllegalStateException("unhandled target state " + target);
        }
    }

    private void reset() {
        state = QpState.RESET;
        requester.reset();
        completer.reset();
        responder.reset();
        synchronized (sq) {
            for (long i = sq.completed(); i < sq.posted(); i++) {
                sq.at(i).sgl.unpin();
            }
            sq.clear();
        }
        synchronized (rq) {
            for (long i = rq.completedIndex(); i < rq.postedIndex(); i++) {
                rq.at(i).sgl.unpin();
            }
            rq.clear();
        }
    }

    /** Destroys the QP: queues are dropped without completions. Owner thread. */
    public void destroy() {
        destroyed = true;
        reset();
    }

    // ---------------------------------------------------------------- errors and completions

    /**
     * Moves the QP to ERR: the requester and responder stop, every outstanding send and receive
     * WQE completes with WR_FLUSH_ERR, and an asynchronous event is raised if {@code event} is set.
     */
    void moveToError(AsyncEvent.Type event) {
        if (state == QpState.ERR) {
            return;
        }
        state = QpState.ERR;
        requester.stop();
        completer.stop();
        responder.stop();
        flushSend();
        flushRecv();
        if (event != null) {
            hca.raise(new AsyncEvent(event, qpn, "QP 0x" + Integer.toHexString(qpn) + " moved to ERR"));
        }
    }

    void flushSend() {
        while (sq.completed() < sq.posted()) {
            completeSend(sq.at(sq.completed()), WcStatus.WR_FLUSH_ERR);
        }
    }

    void flushRecv() {
        while (rq.completedIndex() < rq.postedIndex()) {
            RecvWqe w = rq.at(rq.completedIndex());
            long wrId = w.wrId;
            w.sgl.unpin();
            rq.retire();
            WorkCompletion wc = recvCq.begin();
            if (wc != null) {
                wc.wrId = wrId;
                wc.status = WcStatus.WR_FLUSH_ERR;
                wc.opcode = WcOpcode.RECV;
                wc.qpNum = qpn;
                recvCq.commit(false);
            }
        }
        rq.flushAll();
    }

    /**
     * Completes the oldest send WQE and retires it. Successful unsignaled WQEs produce no
     * completion; errors always do.
     */
    void completeSend(SendWqe w, WcStatus status) {
        // The slot is freed before the completion is published: an application that polls it
        // may post again at once and must find room.
        long wrId = w.wrId;
        WcOpcode opcode = w.kind == null ? WcOpcode.SEND : w.kind.completion();
        int byteLen = status == WcStatus.SUCCESS ? (int) w.length() : 0;
        boolean report = status != WcStatus.SUCCESS || w.signaled();
        if (w.kind != null && w.kind.operation() == io.rnic.core.packet.Operation.SEND) {
            hca.counters().inc(Counter.RDMA_SENDS);
        }
        w.state = SendWqe.State.DONE;
        w.sgl.unpin();
        sq.retire();
        if (report) {
            WorkCompletion wc = sendCq.begin();
            if (wc != null) {
                wc.wrId = wrId;
                wc.status = status;
                wc.opcode = opcode;
                wc.qpNum = qpn;
                wc.byteLen = byteLen;
                sendCq.commit(false);
            } else {
                cqOverflow(sendCq);
            }
        }
    }

    /** Writes a receive completion for {@code w} (the oldest taken RWQE) and retires it. */
    void completeRecv(RecvWqe w, WcStatus status, WcOpcode opcode, int byteLen, int flags, int imm, int invRkey,
                      boolean solicited) {
        long wrId = w.wrId;
        w.sgl.unpin();
        rq.retire(); // freed before the completion is published, as for sends
        WorkCompletion wc = recvCq.begin();
        if (wc != null) {
            wc.wrId = wrId;
            wc.status = status;
            wc.opcode = opcode;
            wc.qpNum = qpn;
            wc.srcQp = destQpn;
            if (status == WcStatus.SUCCESS) {
                wc.byteLen = byteLen;
                wc.wcFlags = flags;
                wc.immData = imm;
                wc.invalidatedRkey = invRkey;
                hca.counters().inc(Counter.RDMA_RECVS);
            }
            recvCq.commit(solicited);
        } else {
            cqOverflow(recvCq);
        }
    }

    private void cqOverflow(CompletionQueue cq) {
        // The CQ reported CQ_ERR itself; the QPs that lost a completion go to ERR.
        hca.scheduler().execute(() -> moveToError(AsyncEvent.Type.QP_FATAL));
    }

    // ---------------------------------------------------------------- packets

    /** Lays out an outgoing packet to the peer QP; fill its fields, then {@link #transmit}. */
    RocePacket startPacket(Opcode op, int payloadLength) {
        RocePacket p = hca.txPacket();
        ByteBuf buf = hca.output().allocator().directBuffer(PacketEncoder.packetLength(op, payloadLength));
        hca.encoder().layout(buf, op, payloadLength, p);
        p.bth().pkey(pkey).destQp(destQpn);
        return p;
    }

    /** Seals (ICRC) and sends the packet from {@link #startPacket}. */
    void transmit(RocePacket p) {
        hca.encoder().seal(p, txPseudo);
        hca.transmit(p.buffer(), sourcePort, remote);
    }

    /** Entry point for a received packet addressed to this QP; checks done by the HCA. */
    public void receive(RocePacket p) {
        if (p.opcode().isResponse()) {
            if (state == QpState.RTS || state == QpState.SQD || state == QpState.SQE) {
                completer.onResponse(p);
            } else {
                hca.counters().inc(Counter.RCVD_WRONG_QP_STATE_OR_TYPE);
            }
        } else if (state == QpState.RTR || state == QpState.RTS || state == QpState.SQD || state == QpState.SQE) {
            responder.onRequest(p);
        } else {
            hca.counters().inc(Counter.RCVD_WRONG_QP_STATE_OR_TYPE);
        }
    }

    /** The transport this QP runs. */
    public Transport transport() {
        return transport;
    }

    /** The remote address packets of this QP must come from, or {@code null} before RTR. */
    public InetSocketAddress remote() {
        return remote;
    }

    public int pkey() {
        return pkey;
    }

    @Override
    public String toString() {
        return "QP 0x" + Integer.toHexString(qpn) + " " + type + " " + state;
    }
}
