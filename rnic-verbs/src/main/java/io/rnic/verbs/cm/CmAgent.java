package io.rnic.verbs.cm;

import io.rnic.core.time.Scheduler;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AddressHandle;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.CompletionChannel;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.Gid;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.RnicException;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A device's connection-manager agent: the GSI QP (QP1) with its buffers, and the table of the
 * device's CM IDs by communication ID and by service ID. Everything it does runs on the device's
 * protocol thread — MADs arrive through a completion-channel handler, retries are the wire's
 * timers — so the manager keeps working while the application does not call it, and a seed on
 * the simulated network still gives the same bytes.
 */
final class CmAgent {
    private static final int RECVS = 64;
    private static final int SENDS = 64;
    private static final int GRH = 40;
    private static final int RECV_SLOT = GRH + Mad.SIZE;
    /** The kernel's MAD agent puts its agent number in the high half of a TID; ours is fixed. */
    private static final long HI_TID = 2L << 32;
    /** The address handles kept for replies; the least recently used goes first. */
    static final int MAX_ADDRESS_HANDLES = 128;
    private static final Map<RdmaDevice, CmAgent> AGENTS = new java.util.WeakHashMap<>();

    final RdmaDevice device;
    final Scheduler scheduler;
    final SplittableRandom random;
    final long caGuid;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair gsi;
    private final ByteBuffer sendBuf;
    private final ByteBuffer recvBuf;
    private final MemoryRegion sendMr;
    private final MemoryRegion recvMr;
    private final ArrayDeque<Integer> freeSends = new ArrayDeque<>();
    private final ArrayDeque<Runnable> waitingForSlot = new ArrayDeque<>();
    /**
     * Handles for the addresses this QP1 answers, the least recently used closed and dropped
     * past {@link #MAX_ADDRESS_HANDLES}: any sender of a MAD gets an answer (a REJ, a DREP), so
     * a handle per sender would let strangers grow the map without end. A datagram posted with a
     * handle still leaves after the handle is closed.
     */
    private final Map<InetAddress, AddressHandle> handles = new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<InetAddress, AddressHandle> eldest) {
            if (size() <= MAX_ADDRESS_HANDLES) {
                return false;
            }
            eldest.getValue().close();
            return true;
        }
    };
    private final Map<Integer, CmId> byLocalId = new HashMap<>();
    /** The passive IDs by the request they answer (peer address and its communication ID), for repeats. */
    private final Map<Peer, CmId> byPeer = new HashMap<>();

    private record Peer(InetAddress address, int commId) {
    }

    /**
     * The connections by the peer's address and QP (the Linux CM's remote QP table, keyed by
     * address where it keys by CA GUID): a REQ naming a QP that already has one is stale.
     */
    private final Map<RemoteQp, CmId> byRemoteQp = new HashMap<>();

    private record RemoteQp(InetAddress address, int qpn) {
    }
    private final Map<Long, CmId> listeners = new HashMap<>();
    private final WorkCompletion wc = new WorkCompletion();
    private final ByteBuffer scratch = ByteBuffer.allocate(Mad.SIZE);
    private long madsReceived;
    private long madsDropped;
    long strangerMadsDropped;
    long requestsOverBacklog;
    long requestsInvalid;
    long requestsStale;
    long requestsTimedOut;

    private CmAgent(RdmaDevice device) {
        this.device = device;
        this.scheduler = device.wire().scheduler();
        byte[] gid = device.gid().bytes();
        long seed = device.wire().seed().isPresent() ? device.wire().seed().getAsLong() ^ java.util.Arrays.hashCode(gid)
                : System.nanoTime() ^ java.util.Arrays.hashCode(gid);
        this.random = new SplittableRandom(seed);
        // An EUI-64 shaped node GUID from the address, as rxe makes one from the MAC.
        this.caGuid = 0x020000fffe000000L | ((gid[13] & 0xFFL) << 16 | (gid[14] & 0xFFL) << 8 | gid[15] & 0xFFL)
                | (long) (gid[12] & 0xFF) << 40;
        this.pd = device.allocPd();
        this.cq = device.createCq(RECVS + SENDS, new CompletionChannel(q -> onCompletions()));
        this.gsi = pd.createQp(QpInitAttributes.gsi(cq, cq).withCaps(new QpCaps(SENDS, RECVS, 1, 1, 0)));
        Connections.readyDatagram(gsi, Mad.GSI_QKEY, 0);
        sendBuf = ByteBuffer.allocateDirect(SENDS * Mad.SIZE);
        recvBuf = ByteBuffer.allocateDirect(RECVS * RECV_SLOT);
        sendMr = pd.registerMemory(sendBuf, 0);
        recvMr = pd.registerMemory(recvBuf, AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < SENDS; i++) {
            freeSends.add(i);
        }
        for (int i = 0; i < RECVS; i++) {
            postRecv(i);
        }
        cq.requestNotify(false);
        // The device's resource view lists this agent's IDs (cm_id), read on the protocol thread.
        device.addResourceProvider(() -> CmIdTable.of(byLocalId.values(), listeners.values()));
    }

    /** The device's agent, created (with its GSI QP) on first use. */
    static CmAgent of(RdmaDevice device) {
        synchronized (AGENTS) {
            CmAgent agent = AGENTS.get(device);
            if (agent == null) {
                if (device.isClosed()) {
                    throw new IllegalStateException("device " + device.gid() + " is closed");
                }
                agent = callOn(device, () -> new CmAgent(device));
                AGENTS.put(device, agent);
            }
            return agent;
        }
    }

    /** The device's agent if it has one, else null (creates nothing). */
    static CmAgent peek(RdmaDevice device) {
        synchronized (AGENTS) {
            return AGENTS.get(device);
        }
    }

    /** Runs {@code work} on {@code device}'s protocol thread and returns its result. */
    static <T> T callOn(RdmaDevice device, Supplier<T> work) {
        Scheduler s = device.wire().scheduler();
        if (s.inOwnerThread() || device.wire().virtualTime()) {
            return work.get(); // the simulated network runs on the application's thread: this is it
        }
        if (device.isCallerDriven()) {
            throw new IllegalStateException("device " + device.gid() + " is driven by the thread that created its"
                    + " agent (invoker threading); use the connection manager from that thread, not "
                    + Thread.currentThread().getName());
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        s.execute(() -> {
            try {
                f.complete(work.get());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new RnicException("the connection manager failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the protocol thread", e);
        } catch (TimeoutException e) {
            throw new RnicException("the protocol thread did not answer within 10 s", e);
        }
    }

    <T> T call(Supplier<T> work) {
        return callOn(device, work);
    }

    void run(Runnable work) {
        call(() -> {
            work.run();
            return null;
        });
    }

    // ---- IDs ----

    int newLocalId(CmId id) {
        int local;
        do {
            local = random.nextInt();
        } while (local == 0 || byLocalId.containsKey(local));
        byLocalId.put(local, id);
        return local;
    }

    /**
     * Forgets {@code id}: its local ID, the request it answers ({@code peerCommId} from
     * {@code peer}) and its connection to {@code peer}'s QP {@code remoteQpn}, where it has them.
     */
    void forget(CmId id, int localId, InetAddress peer, int peerCommId, int remoteQpn) {
        byLocalId.remove(localId, id);
        if (peer != null) {
            byPeer.remove(new Peer(peer, peerCommId), id);
            byRemoteQp.remove(new RemoteQp(peer, remoteQpn), id);
        }
    }

    /** Remembers that {@code id} answers the request {@code peerCommId} from {@code from}. */
    void answering(CmId id, InetAddress from, int peerCommId) {
        byPeer.put(new Peer(from, peerCommId), id);
    }

    /** Remembers that {@code id} is (or is becoming) a connection to QP {@code qpn} at {@code peer}. */
    void connecting(CmId id, InetAddress peer, int qpn) {
        byRemoteQp.put(new RemoteQp(peer, qpn), id);
    }

    /** The connection, not yet over, to QP {@code qpn} at {@code peer}, or null. */
    private CmId connectionTo(InetAddress peer, int qpn) {
        CmId id = byRemoteQp.get(new RemoteQp(peer, qpn));
        return id != null && id.holdsConnection() ? id : null;
    }

    void listen(long serviceId, CmId id) {
        CmId old = listeners.putIfAbsent(serviceId, id);
        if (old != null && old != id) {
            throw new IllegalStateException(String.format("service ID 0x%016x is already listened on by %s", serviceId,
                    old));
        }
    }

    void unlisten(long serviceId, CmId id) {
        listeners.remove(serviceId, id);
    }

    long tid(int localId) {
        return HI_TID | Integer.reverseBytes(localId) & 0xFFFFFFFFL;
    }

    int newPsn() {
        return random.nextInt() & 0xFFFFFF;
    }

    /** The MADs received, and those dropped as not for any ID here. */
    long[] madCounts() {
        return new long[] {madsReceived, madsDropped};
    }

    /** A snapshot of the counters; protocol thread. */
    CmCounters counters() {
        return new CmCounters(madsReceived, madsDropped, strangerMadsDropped, requestsOverBacklog, requestsInvalid,
                requestsStale, requestsTimedOut, byLocalId.size(), handles.size());
    }

    // ---- sending ----

    /** Sends the 256-byte MAD in {@code mad} to the GSI of {@code to}. Protocol thread. */
    void send(InetAddress to, ByteBuffer mad) {
        Integer slot = freeSends.poll();
        if (slot == null) { // every send slot is on the wire: send this once one comes back
            byte[] copy = new byte[Mad.SIZE];
            mad.get(0, copy);
            waitingForSlot.add(() -> send(to, ByteBuffer.wrap(copy)));
            return;
        }
        int off = slot * Mad.SIZE;
        for (int i = 0; i < Mad.SIZE; i++) {
            sendBuf.put(off + i, mad.get(i));
        }
        gsi.postSend(new SendWorkRequest().wrId(slot).opcode(WrOpcode.SEND).signaled(true)
                .sge(sendMr.address() + off, Mad.SIZE, sendMr.lkey()).ud(handle(to), 1, Mad.GSI_QKEY));
    }

    /** A buffer to encode one MAD into, valid until the next call. */
    ByteBuffer scratch() {
        return scratch;
    }

    AddressHandle handle(InetAddress to) {
        return handles.computeIfAbsent(to,
                a -> pd.createAddressHandle(AddressVector.of(a).withPort(device.wire().localAddress().getPort())));
    }

    /**
     * The path MTU of a route from this device, as rdma_cm takes it from the network device's
     * MTU ({@code iboe_get_mtu}: the largest IB MTU that fits with 96 bytes of headers), and no
     * larger than the port's active MTU. An address no local interface has (the simulated
     * network's) gets the port's active MTU.
     */
    io.rnic.verbs.PathMtu routeMtu() {
        io.rnic.verbs.PathMtu port = device.queryPort().activeMtu();
        try {
            java.net.NetworkInterface nif = java.net.NetworkInterface.getByInetAddress(address());
            if (nif == null || device.wire().virtualTime()) {
                return port;
            }
            int room = nif.getMTU() - 96;
            for (int v = port.value(); v >= 1; v--) {
                io.rnic.verbs.PathMtu m = io.rnic.verbs.PathMtu.ofValue(v);
                if (m.bytes() <= room) {
                    return m;
                }
            }
            return io.rnic.verbs.PathMtu.ofValue(1);
        } catch (java.net.SocketException e) {
            return port;
        }
    }

    /** The UDP port peers' devices receive on: ours (a CM peer runs the same RoCE port). */
    int roceport() {
        return device.wire().localAddress().getPort();
    }

    // ---- receiving ----

    private void postRecv(int slot) {
        gsi.postRecv(new RecvWorkRequest().wrId(slot).sge(recvMr.address() + (long) slot * RECV_SLOT, RECV_SLOT,
                recvMr.lkey()));
    }

    private void onCompletions() {
        try {
            cq.requestNotify(false);
            while (cq.poll(wc)) {
                int slot = (int) wc.wrId();
                if (wc.opcode() == io.rnic.verbs.WcOpcode.RECV) {
                    if (wc.isSuccess() && wc.byteLen() >= RECV_SLOT) {
                        received(slot);
                    }
                    if (!gsi.isClosed()) {
                        postRecv(slot);
                    }
                } else {
                    freeSends.add(slot);
                    Runnable next = waitingForSlot.poll();
                    if (next != null) {
                        next.run();
                    }
                }
            }
        } catch (RuntimeException e) {
            // A manager fault must not take the protocol thread down: count it and go on.
            madsDropped++;
        }
    }

    private void received(int slot) {
        int off = slot * RECV_SLOT;
        InetAddress from = sourceOf(off);
        ByteBuffer mad = ByteBuffer.allocate(Mad.SIZE);
        for (int i = 0; i < Mad.SIZE; i++) {
            mad.put(i, recvBuf.get(off + GRH + i));
        }
        madsReceived++;
        if (from == null || !Mad.isCm(mad)) {
            madsDropped++;
            return;
        }
        dispatch(mad, from);
    }

    /** The sender's address from the GRH area: IPv4 after 20 zero bytes, else the IPv6 header. */
    private InetAddress sourceOf(int off) {
        boolean v4 = true;
        for (int i = 0; i < 20; i++) {
            if (recvBuf.get(off + i) != 0) {
                v4 = false;
                break;
            }
        }
        byte[] a = new byte[v4 ? 4 : 16];
        recvBuf.get(off + (v4 ? 32 : 8), a);
        try {
            return InetAddress.getByAddress(a);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private void dispatch(ByteBuffer mad, InetAddress from) {
        int attr = Mad.attributeId(mad);
        switch (attr) {
            case Mad.REQ -> onReq(CmReq.decode(mad), Mad.tid(mad), from);
            case Mad.SIDR_REQ -> onSidrReq(SidrMessage.decode(mad), Mad.tid(mad), from);
            case Mad.SIDR_REP -> {
                SidrMessage rep = SidrMessage.decode(mad);
                CmId id = byLocalId.get(rep.requestId());
                if (id == null) {
                    madsDropped++;
                } else if (!id.isPeer(from)) {
                    strangerMadsDropped++;
                } else {
                    id.onSidrRep(rep, from);
                }
            }
            case Mad.REP -> {
                CmRep rep = CmRep.decode(mad);
                CmId id = byLocalId.get(rep.remoteCommId());
                if (id == null) {
                    madsDropped++;
                } else if (!id.isFromPeer(rep, from)) {
                    strangerMadsDropped++;
                } else {
                    id.onRep(rep, from);
                }
            }
            case Mad.RTU, Mad.DREQ, Mad.DREP, Mad.REJ, Mad.MRA -> {
                CmReply m = CmReply.decode(mad);
                CmId id = byLocalId.get(m.remoteCommId());
                if (id == null) {
                    if (attr == Mad.DREQ) { // the connection is long gone here: say so, as the kernel does
                        // cm_issue_drep: the IDs as the DREQ named them, so its sender matches the DREP.
                        CmReply.drep(m.remoteCommId(), m.localCommId(), null).encode(scratch, Mad.tid(mad));
                        send(from, scratch);
                    }
                    madsDropped++;
                } else if (!id.isFromPeer(m, from)) {
                    // Our ID, not our peer: a stranger who learned or guessed a 32-bit ID. The
                    // Linux CM does not answer those (cm_acquire_id finds nothing); neither do we.
                    strangerMadsDropped++;
                } else {
                    id.onReply(m, Mad.tid(mad), from);
                }
            }
            default -> madsDropped++; // LAP, APR and ClassPortInfo are not spoken here
        }
    }

    private CmId existing(int remoteCommId, InetAddress from) {
        return byPeer.get(new Peer(from, remoteCommId));
    }

    private void onReq(CmReq req, long tid, InetAddress from) {
        CmId dup = existing(req.localCommId(), from);
        if (dup != null) {
            dup.onDuplicateReq();
            return;
        }
        int invalid = req.invalidReason(device.gid().bytes(), Gid.of(from).bytes());
        if (invalid != 0) {
            // A field no connection can use: refused here, as the IBA's reasons say, rather than
            // handed to the application, whose accept() could only fail on it.
            requestsInvalid++;
            rejectRequest(req, tid, from, invalid,
                    invalid == CmId.REJ_INVALID_GID ? device.gid().bytes() : CmReply.NONE);
            return;
        }
        CmId old = connectionTo(from, req.localQpn());
        if (old != null) {
            // IBA 12.9.8.3.1 (the Linux CM's cm_match_req): a REQ for a QP that is still in a
            // connection here is stale. Refuse it, and end the old connection with a DREQ.
            requestsStale++;
            rejectRequest(req, tid, from, CmId.REJ_STALE_CONN, CmReply.NONE);
            old.onStaleConnection();
            return;
        }
        CmId listener = listeners.get(req.serviceId());
        if (listener == null || listener.portSpace() == PortSpace.UDP) {
            // IBA 12.6.7: no one serves this service ID.
            rejectRequest(req, tid, from, CmId.REJ_INVALID_SERVICE_ID, CmReply.NONE);
            return;
        }
        listener.onConnectRequest(this, req, tid, from);
    }

    /**
     * Answers a REQ no ID takes with a REJ, as the Linux CM's {@code cm_issue_rej}: its local
     * communication ID 0, the REQ's as remote, the REQ as the message rejected.
     */
    void rejectRequest(CmReq req, long tid, InetAddress from, int reason, byte[] ari) {
        new CmReply(Mad.REJ, 0, req.localCommId(), 0, reason, ari, null).encode(scratch, tid);
        send(from, scratch);
    }

    private void onSidrReq(SidrMessage req, long tid, InetAddress from) {
        CmId dup = existing(req.requestId(), from);
        if (dup != null) {
            dup.onDuplicateSidrReq();
            return;
        }
        CmId listener = listeners.get(req.serviceId());
        if (listener == null || listener.portSpace() == PortSpace.TCP) {
            SidrMessage.reply(req.requestId(), req.serviceId(), SidrMessage.STATUS_UNSUPPORTED, 0, 0, null)
                    .encode(scratch, tid);
            send(from, scratch);
            return;
        }
        listener.onSidrRequest(this, req, tid, from);
    }

    /** The device's own IPv4 or IPv6 address. */
    InetAddress address() {
        return device.gid().toInetAddress();
    }

    static boolean isV4(InetAddress a) {
        return a instanceof Inet4Address;
    }
}
