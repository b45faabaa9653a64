package io.rnic.verbs.cm;

import static io.rnic.verbs.cm.ConnectionManagerTest.PORT;
import static io.rnic.verbs.cm.ConnectionManagerTest.SECOND;
import static io.rnic.verbs.cm.ConnectionManagerTest.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.Gid;
import io.rnic.verbs.QpInitAttributes;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The connection manager under attack and misuse, on the simulated network in virtual time:
 * floods of requests nobody answers, strangers' MADs, requests no connection can use, stale
 * connections. What it refuses it refuses as the IBA (chapter 12) and the Linux CM do, what it
 * drops it drops unanswered, and it counts both ({@link CmCounters}).
 */
class CmMisuseTest {
    private static final InetAddress SERVER = address("10.0.0.2");
    private static final InetAddress CLIENT = address("10.0.0.1");

    static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    static void runFor(ConnectionManagerTest.Pair p, long nanos) {
        p.net.scheduler().runUntil(p.net.scheduler().nanoTime() + nanos);
    }

    /** How long a request may wait for the application: its CM response timeout × (Max CM Retries + 1). */
    static long requestLifetime() {
        return CmId.timeoutNanos(CmId.CM_RESPONSE_TIMEOUT) * (CmId.MAX_CM_RETRIES + 1);
    }

    // ---- half-open requests are bounded (listen backlog) and expire ----

    /**
     * A flood of REQs with fresh communication IDs, in bursts of 100. While the application does
     * not read its events at all, the listener holds its backlog of requests and refuses the
     * rest with REJ reason 28, counted; then the application reads them between bursts and turns
     * the stranger away, and a legitimate client that connects in the middle of the flood is
     * accepted. The manager never holds more than the backlog and the legitimate connection.
     * {@code -Drnic.cm.flood.n} sets the flood's size (CI: 3000) and prints the figures.
     */
    @Test
    void aReqFloodHoldsAtMostTheBacklogAndALegitimateClientStillConnectsDuringIt() throws Exception {
        int n = Integer.getInteger("rnic.cm.flood.n", 3000);
        int backlog = 3; // the Pair's listener: listen(3)
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(31, PortSpace.TCP)) {
            MadForger attacker = new MadForger(p.net, "10.0.0.66", false); // keeps no MADs: the heap is the manager's
            long maxHeldIgnored = 0;
            long maxHeld = 0;
            long appRejected = 0;
            boolean connected = false;
            boolean measure = System.getProperty("rnic.cm.flood.n") != null; // the long run reports its heap
            long heapBefore = measure ? usedHeap() : 0;
            long t0 = System.nanoTime();
            for (int sent = 0; sent < n;) {
                for (int i = 0; i < 100 && sent < n; i++, sent++) {
                    attacker.send(p.wb, MadForger.mad(
                            MadForger.req(0x10000 + sent, 0x100 + sent % 0xFFFF00, attacker.address(), SERVER, PORT), sent));
                }
                runFor(p, 1_000_000);
                long held = p.sch.counters().idsHeld();
                maxHeld = Math.max(maxHeld, held);
                if (sent <= n / 2) { // the first half: the application does not read its events
                    maxHeldIgnored = Math.max(maxHeldIgnored, held);
                    continue;
                }
                // Then it reads them, and turns the stranger away, as servers that check who asks do.
                for (CmEvent e; (e = p.sch.pollEvent()) != null;) {
                    assertEquals(CmEventType.CONNECT_REQUEST, e.type());
                    e.id().reject(null);
                    e.id().close();
                    appRejected++;
                }
                if (!connected && sent >= n * 3 / 4) { // three quarters in, a client connects
                    CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
                    c.connect(null);
                    runFor(p, 1_000_000);
                    CmEvent req = p.sch.pollEvent();
                    assertEquals(CmEventType.CONNECT_REQUEST, req.type());
                    assertEquals(CLIENT, req.id().remoteAddress().getAddress());
                    p.acceptAndEstablish(req);
                    connected = true;
                }
            }
            long wall = System.nanoTime() - t0;
            CmCounters after = p.sch.counters();
            assertTrue(connected);
            assertEquals(backlog, maxHeldIgnored, "an application that reads nothing holds its backlog, no more");
            assertTrue(maxHeld <= backlog + 1, "at most the backlog and the legitimate connection: " + maxHeld);
            assertEquals(n, appRejected + after.requestsOverBacklog(), "every request reached the application or was refused");
            assertTrue(after.requestsOverBacklog() >= n / 2 - backlog, "refused: " + after.requestsOverBacklog());
            runFor(p, SECOND);
            assertEquals(n, attacker.rejects(), "each REQ drew one REJ");
            assertEquals(n, attacker.rejCounts[CmId.REJ_CONSUMER_DEFINED],
                    "reason 28 from the manager (backlog) and from the application alike");
            assertEquals(1, p.sch.counters().idsHeld(), "only the legitimate connection is held");
            if (measure) {
                System.out.printf("[CmMisuseTest] flood of %d REQs in %d ms: max IDs held %d (%d while the application"
                                + " read nothing), refused over backlog %d, rejected by the application %d, used heap"
                                + " after GC %d KiB -> %d KiB%n", n, wall / 1_000_000, maxHeld, maxHeldIgnored,
                        after.requestsOverBacklog(), appRejected, heapBefore / 1024, usedHeap() / 1024);
            }
        }
    }

    private static long usedHeap() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    /**
     * Requests the application never answers are refused with REJ reason 4 (timeout, the CA GUID
     * as additional information) once the peer would have given up, their IDs freed; the
     * application, which saw CONNECT_REQUEST, gets no further event, and accept or reject on the
     * ID then refuses with a message that says why. The backlog is free again for the next client.
     */
    @Test
    void requestsTheApplicationNeverAnswersExpireWithRejTimeoutAndTheirIdsAreFreed() throws Exception {
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(32, PortSpace.TCP)) {
            MadForger attacker = new MadForger(p.net, "10.0.0.66");
            for (int i = 0; i < 5; i++) {
                attacker.send(p.wb, MadForger.mad(MadForger.req(0x500 + i, 0x200 + i, attacker.address(), SERVER, PORT), i));
            }
            runFor(p, SECOND);
            List<CmEvent> requests = new ArrayList<>();
            for (CmEvent e; (e = p.sch.pollEvent()) != null;) {
                requests.add(e);
            }
            assertEquals(3, requests.size(), "the backlog of 3");
            assertEquals(List.of(CmId.REJ_CONSUMER_DEFINED, CmId.REJ_CONSUMER_DEFINED), attacker.rejReasons());
            assertEquals(3, p.sch.counters().idsHeld());
            runFor(p, requestLifetime() - 2 * SECOND);
            assertEquals(3, p.sch.counters().idsHeld(), "not before the peer would have given up");
            runFor(p, 2 * SECOND);
            CmCounters c = p.sch.counters();
            assertEquals(0, c.idsHeld());
            assertEquals(3, c.requestsTimedOut());
            assertEquals(List.of(28, 28, CmId.REJ_TIMEOUT, CmId.REJ_TIMEOUT, CmId.REJ_TIMEOUT), attacker.rejReasons());
            CmReply rej = CmReply.decode(attacker.received.get(4));
            assertEquals(0, rej.value(), "the REQ was rejected");
            assertEquals(8, rej.info().length, "the ARI of a timeout is the CA GUID");
            assertEquals(CmAgent.of(p.server).caGuid, ByteBuffer.wrap(rej.info()).getLong());
            assertNull(p.sch.pollEvent(), "no event for a request the application never answered");
            CmId expired = requests.get(0).id();
            assertEquals(CmId.State.ERROR, expired.state());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> expired.accept(null));
            assertTrue(e.getMessage().contains("timed out"), e.getMessage());
            e = assertThrows(IllegalStateException.class, () -> expired.reject(null));
            assertTrue(e.getMessage().contains("timed out"), e.getMessage());
            expired.close();
            // The backlog has room again.
            CmId client = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            client.connect(null);
            p.acceptAndEstablish(next(p.sch));
        }
    }

    /** An rnic active side hears a timeout REJ of its REQ: REJECTED with reason 4, no more repeats. */
    @Test
    void anActiveSideWhoseRequestExpiresIsRejectedWithReason4() throws Exception {
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(33, PortSpace.TCP)) {
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            assertEquals(CmEventType.CONNECT_REQUEST, next(p.sch).type()); // and never answered
            CmEvent e = next(p.cch);
            assertEquals(CmEventType.REJECTED, e.type());
            assertEquals(CmId.REJ_TIMEOUT, e.status());
            assertEquals(CmId.State.ERROR, c.state());
        }
    }

    @Test
    void listenRefusesANegativeOrZeroBacklogNoLongerButTakesTheDefault() throws Exception {
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(34, PortSpace.TCP)) {
            CmId l = p.sch.createId(PortSpace.TCP, null);
            l.bindAddr(new InetSocketAddress("10.0.0.2", PORT + 1));
            l.listen(0);
            assertEquals(CmId.DEFAULT_BACKLOG, l.backlog());
            CmId l2 = p.sch.createId(PortSpace.TCP, null);
            l2.bindAddr(new InetSocketAddress("10.0.0.2", PORT + 2));
            l2.listen(-5);
            assertEquals(CmId.DEFAULT_BACKLOG, l2.backlog());
            assertEquals(3, p.listener.backlog());
        }
    }

    // ---- the address-handle cache is bounded ----

    /** Replies to 400 strangers (REJ 8 each) keep at most a bounded set of address handles. */
    @Test
    void repliesToManyStrangersKeepABoundedCacheOfAddressHandles() throws Exception {
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(35, PortSpace.TCP)) {
            List<MadForger> strangers = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                MadForger s = new MadForger(p.net, "10.1." + (i / 250) + "." + (i % 250 + 1));
                strangers.add(s);
                s.send(p.wb, MadForger.mad(MadForger.req(i + 1, 0x300, s.address(), SERVER, PORT + 9), i));
                if (i % 50 == 49) {
                    runFor(p, 1_000_000);
                }
            }
            runFor(p, SECOND);
            for (MadForger s : strangers) {
                assertEquals(List.of(CmId.REJ_INVALID_SERVICE_ID), s.rejReasons(), "each stranger got its REJ 8");
            }
            long cached = p.sch.counters().addressHandlesCached();
            assertTrue(cached >= 1 && cached <= CmAgent.MAX_ADDRESS_HANDLES, "bounded: " + cached);
            // The manager still connects.
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            p.acceptAndEstablish(next(p.sch));
        }
    }

    // ---- REQ fields are checked on arrival ----

    private record BadReq(String what, int reason, CmReq req) {
    }

    private static CmReq with(CmReq r, int qpn, int transport, int mtu, byte[] localGid, byte[] remoteGid) {
        return new CmReq(r.localCommId(), r.serviceId(), r.localCaGuid(), r.localQkey(), qpn, r.responderResources(),
                r.initiatorDepth(), r.remoteCmResponseTimeout(), transport, r.startingPsn(),
                r.localCmResponseTimeout(), r.retryCount(), r.pkey(), mtu, r.rnrRetryCount(), r.maxCmRetries(), r.srq(),
                localGid, remoteGid, r.flowLabel(), r.trafficClass(), r.hopLimit(), r.localAckTimeout(),
                r.privateData());
    }

    /**
     * A REQ no connection can use never reaches the application: the CM refuses it with the IBA's
     * REJ reason (table 112; the Linux CM's {@code enum ib_cm_rej_reason}) and counts it.
     */
    @Test
    void aReqWithAFieldNoConnectionCanUseIsRejectedByTheCmWithTheIbaReason() throws Exception {
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(36, PortSpace.TCP)) {
            MadForger peer = new MadForger(p.net, "10.0.0.77");
            InetAddress me = peer.address();
            byte[] mine = Gid.of(me).bytes();
            byte[] server = Gid.of(SERVER).bytes();
            byte[] zero = new byte[16];
            List<BadReq> cases = new ArrayList<>();
            int id = 0x7000;
            CmReq good = MadForger.req(id, 0x400, me, SERVER, PORT);
            cases.add(new BadReq("path MTU 0", CmId.REJ_INVALID_MTU, with(good, 0x400, 0, 0, mine, server)));
            cases.add(new BadReq("path MTU 6", CmId.REJ_INVALID_MTU, with(good, 0x400, 0, 6, mine, server)));
            cases.add(new BadReq("path MTU 7", CmId.REJ_INVALID_MTU, with(good, 0x400, 0, 7, mine, server)));
            cases.add(new BadReq("QPN 0", CmId.REJ_INVALID_TRANSPORT_TYPE, with(good, 0, 0, 3, mine, server)));
            cases.add(new BadReq("QPN 1", CmId.REJ_INVALID_TRANSPORT_TYPE, with(good, 1, 0, 3, mine, server)));
            cases.add(new BadReq("transport RD", CmId.REJ_INVALID_TRANSPORT_TYPE, with(good, 0x400, 2, 3, mine, server)));
            cases.add(new BadReq("transport 3", CmId.REJ_INVALID_TRANSPORT_TYPE, with(good, 0x400, 3, 3, mine, server)));
            cases.add(new BadReq("zero local GID", CmId.REJ_INVALID_GID, with(good, 0x400, 0, 3, zero, server)));
            cases.add(new BadReq("local GID not the sender's", CmId.REJ_INVALID_GID,
                    with(good, 0x400, 0, 3, Gid.of(address("10.0.0.99")).bytes(), server)));
            cases.add(new BadReq("zero remote GID", CmId.REJ_INVALID_GID, with(good, 0x400, 0, 3, mine, zero)));
            cases.add(new BadReq("remote GID not ours", CmId.REJ_INVALID_GID,
                    with(good, 0x400, 0, 3, mine, Gid.of(CLIENT).bytes())));
            for (BadReq b : cases) {
                CmReq r = with(b.req(), b.req().localQpn(), b.req().transportType(), b.req().pathMtu(),
                        b.req().localGid(), b.req().remoteGid());
                r = new CmReq(++id, r.serviceId(), r.localCaGuid(), r.localQkey(), r.localQpn(), r.responderResources(),
                        r.initiatorDepth(), r.remoteCmResponseTimeout(), r.transportType(), r.startingPsn(),
                        r.localCmResponseTimeout(), r.retryCount(), r.pkey(), r.pathMtu(), r.rnrRetryCount(),
                        r.maxCmRetries(), r.srq(), r.localGid(), r.remoteGid(), r.flowLabel(), r.trafficClass(),
                        r.hopLimit(), r.localAckTimeout(), r.privateData());
                int before = peer.received.size();
                peer.send(p.wb, MadForger.mad(r, id));
                runFor(p, SECOND);
                assertNull(p.sch.pollEvent(), b.what() + ": never reaches the application");
                assertEquals(before + 1, peer.received.size(), b.what() + ": one answer");
                CmReply rej = CmReply.decode(peer.received.get(before));
                assertEquals(Mad.REJ, rej.attributeId(), b.what());
                assertEquals(b.reason(), rej.value2(), b.what());
                assertEquals(id, rej.remoteCommId(), b.what() + ": the REJ names the request");
                if (b.reason() == CmId.REJ_INVALID_GID) {
                    assertEquals(java.util.Arrays.toString(server), java.util.Arrays.toString(rej.info()),
                            b.what() + ": the ARI suggests the port GID, as the Linux CM's");
                }
            }
            CmCounters c = p.sch.counters();
            assertEquals(cases.size(), c.requestsInvalid());
            assertEquals(0, c.idsHeld());
            // A well-formed REQ from the same peer still reaches the application.
            peer.send(p.wb, MadForger.mad(good, 1));
            runFor(p, SECOND);
            assertEquals(CmEventType.CONNECT_REQUEST, next(p.sch).type());
        }
    }

    // ---- REJ, RTU, DREQ, DREP, MRA are matched on both IDs and the peer's address ----

    /** An established pair, and the server's side of it. */
    private record Connected(CmId client, CmId server) {
    }

    private static Connected connect(ConnectionManagerTest.Pair p) throws InterruptedException {
        CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
        c.connect(null);
        CmEvent req = next(p.sch);
        p.acceptAndEstablish(req);
        return new Connected(c, req.id());
    }

    /** Sends {@code m} to the server from the client's own address (its QP1), as if the client sent it. */
    private static void fromClient(ConnectionManagerTest.Pair p, CmReply m) {
        CmAgent a = CmAgent.of(p.client);
        p.net.scheduler().execute(() -> a.send(SERVER, MadForger.mad(m, 9)));
    }

    /**
     * A stranger who knows an established connection's 32-bit IDs, but sends from elsewhere, or
     * knows only the local one: its DREQ, DREP, RTU, REJ and MRA are dropped unanswered and
     * counted, and the connection stays up (the Linux CM's {@code cm_acquire_id} matches both
     * IDs; rnic also checks the sender is the peer).
     */
    @Test
    void aStrangersDreqRejRtuAndMraForAnEstablishedConnectionAreDroppedUnansweredAndCounted() throws Exception {
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(37, PortSpace.TCP)) {
            Connected k = connect(p);
            MadForger stranger = new MadForger(p.net, "10.0.0.66");
            int s = k.server().localCommId();
            int c = k.client().localCommId();
            int qpn = k.server().qp().qpn();
            List<CmReply> fromElsewhere = List.of(CmReply.dreq(c, s, qpn, null), CmReply.rej(c, s, 2, 28, null),
                    CmReply.drep(c, s, null), CmReply.rtu(c, s, null), CmReply.mra(c, s, 2, 20));
            for (CmReply m : fromElsewhere) {
                stranger.send(p.wb, MadForger.mad(m, 5));
            }
            runFor(p, SECOND);
            // From the client's address, but with another remote ID.
            List<CmReply> wrongId = List.of(CmReply.dreq(c ^ 1, s, qpn, null), CmReply.rej(c ^ 1, s, 2, 28, null),
                    CmReply.rej(0, s, 0, 28, null), CmReply.drep(c + 1, s, null));
            for (CmReply m : wrongId) {
                fromClient(p, m);
            }
            runFor(p, SECOND);
            assertEquals(CmId.State.ESTABLISHED, k.server().state());
            assertEquals(io.rnic.verbs.QpState.RTS, k.server().qp().state());
            assertNull(p.sch.pollEvent(), "the application heard nothing");
            assertEquals(List.of(), stranger.received, "the stranger got no answer");
            assertEquals(fromElsewhere.size() + wrongId.size(), p.sch.counters().strangerMadsDropped());
            // The real peer still disconnects.
            k.client().disconnect();
            assertEquals(CmEventType.DISCONNECTED, next(p.sch).type());
        }
    }

    /**
     * A half-open connection (REP sent, RTU awaited) is neither completed by a forged RTU nor
     * rejected by a forged REJ; an active side waiting for its REP is not rejected by a REJ from
     * another address. The real RTU then completes it.
     */
    @Test
    void aForgedRtuOrRejDoesNotCompleteOrRejectAHalfOpenConnection() throws Exception {
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(38, PortSpace.TCP)) {
            // Hold the client's RTU back: its second MAD.
            p.net.direction(p.wa, p.wb).fault(io.rnic.transport.fault.Faults.dropNth(f -> f.destQp() == 1, 2));
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            CmEvent req = next(p.sch);
            CmId s = req.id();
            s.createQp(p.spd, QpInitAttributes.rc(p.scq, p.scq));
            s.accept(null);
            assertEquals(CmEventType.ESTABLISHED, next(p.cch).type());
            assertEquals(CmId.State.REP_SENT, s.state());
            MadForger stranger = new MadForger(p.net, "10.0.0.66");
            int sid = s.localCommId();
            stranger.send(p.wb, MadForger.mad(CmReply.rtu(c.localCommId(), sid, null), 1)); // right IDs, wrong sender
            stranger.send(p.wb, MadForger.mad(CmReply.rtu(0x1234, sid, null), 2));
            stranger.send(p.wb, MadForger.mad(CmReply.rej(c.localCommId(), sid, 1, 28, null), 3));
            fromClient(p, CmReply.rtu(c.localCommId() + 1, sid, null)); // right sender, wrong ID
            fromClient(p, CmReply.rej(c.localCommId() + 1, sid, 1, 28, null));
            runFor(p, SECOND);
            assertEquals(CmId.State.REP_SENT, s.state(), "still waiting for the real RTU");
            assertNull(p.sch.pollEvent());
            assertEquals(5, p.sch.counters().strangerMadsDropped());
            // The repeated REP draws the real RTU.
            assertEquals(CmEventType.ESTABLISHED, next(p.sch).type());

            // An active side waiting for its REP: a REJ from another address is not the server's.
            CmId c2 = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c2.connect(null);
            CmEvent req2 = next(p.sch);
            stranger.send(p.wa, MadForger.mad(CmReply.rej(0, c2.localCommId(), 0, 28, null), 4));
            stranger.send(p.wa, MadForger.mad(CmReply.mra(0, c2.localCommId(), 0, 31), 5));
            runFor(p, SECOND);
            assertEquals(CmId.State.REQ_SENT, c2.state());
            assertEquals(2, p.cch.counters().strangerMadsDropped());
            p.acceptAndEstablish(req2);
        }
    }

    /**
     * A DREQ for a connection the receiver has forgotten still draws a DREP, with the IDs as the
     * DREQ named them (the Linux CM's {@code cm_issue_drep}): the sender, which now checks both
     * IDs of a DREP, takes it and is disconnected at once instead of repeating its DREQ.
     */
    @Test
    void aDrepForAForgottenConnectionNamesBothIdsSoTheDreqSenderTakesIt() throws Exception {
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(40, PortSpace.TCP)) {
            Connected k = connect(p);
            k.server().close(); // the server forgets the connection without a word
            k.client().disconnect();
            CmEvent e = p.cch.getEvent(2 * SECOND);
            assertEquals(CmEventType.DISCONNECTED, e == null ? null : e.type(), "the DREP came and was taken");
            assertEquals(0, k.client().retransmissions(), "the DREQ was not repeated");
            assertEquals(0, p.cch.counters().strangerMadsDropped());
        }
    }

    // ---- stale connections (IBA 12.9.8.3.1) ----

    /**
     * IBA 12.9.8.3.1, as the Linux CM's {@code cm_match_req}: a REQ from the address of an
     * existing connection naming that connection's QP is a stale connection. It is refused with
     * REJ reason 10 and counted, and the existing connection is disconnected with a DREQ, so both
     * applications hear DISCONNECTED.
     */
    @Test
    void aReqNamingTheQpOfAnExistingConnectionIsRejectedStaleAndTheConnectionIsDisconnected() throws Exception {
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(39, PortSpace.TCP)) {
            Connected k = connect(p);
            List<Integer> serverSent = new ArrayList<>();
            p.wb.addTap((dir, ts, pkt, src, dst) -> {
                if (dir == io.rnic.core.wire.WireTap.Direction.SENT && (pkt.getByte(pkt.readerIndex()) & 0xFF) == 0x64) {
                    byte[] m = new byte[Mad.SIZE];
                    pkt.getBytes(pkt.readerIndex() + 20, m);
                    ByteBuffer b = ByteBuffer.wrap(m);
                    serverSent.add(Mad.attributeId(b) == Mad.REJ ? 0x1200 | CmReply.decode(b).value2()
                            : Mad.attributeId(b));
                }
            });
            CmReq again = MadForger.req(0x4242, k.client().qp().qpn(), CLIENT, SERVER, PORT);
            CmAgent a = CmAgent.of(p.client);
            p.net.scheduler().execute(() -> a.send(SERVER, MadForger.mad(again, 3)));
            runFor(p, SECOND);
            assertEquals(List.of(0x1200 | CmId.REJ_STALE_CONN, Mad.DREQ), serverSent,
                    "REJ stale connection to the REQ, DREQ on the existing connection");
            assertEquals(1, p.sch.counters().requestsStale());
            CmEvent down = next(p.cch);
            assertEquals(CmEventType.DISCONNECTED, down.type());
            assertEquals(k.client(), down.id());
            k.client().disconnect(); // the DREP
            CmEvent serverDown = next(p.sch);
            assertEquals(CmEventType.DISCONNECTED, serverDown.type(), "no CONNECT_REQUEST for the stale REQ");
            assertEquals(k.server(), serverDown.id());
            // A new connection from a new QP is welcome.
            connect(p);
        }
    }
}
