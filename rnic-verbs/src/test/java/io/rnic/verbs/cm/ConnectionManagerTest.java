package io.rnic.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.fault.Faults;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.DeviceConfig;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The connection manager end to end on the simulated network, in virtual time: the active and
 * passive sides of rdma_cm's REQ/REP/RTU, DREQ/DREP and SIDR exchanges (IBA chapter 12), each
 * rule named.
 */
class ConnectionManagerTest {
    static final long SECOND = 1_000_000_000L;
    static final int PORT = 7174;

    /** Two devices on a simulated network, a channel on each, and the server listening. */
    static final class Pair implements AutoCloseable {
        final SimNetwork net;
        final SimWire wa;
        final SimWire wb;
        final RdmaDevice client;
        final RdmaDevice server;
        final CmEventChannel cch;
        final CmEventChannel sch;
        final CmId listener;
        final ProtectionDomain cpd;
        final ProtectionDomain spd;
        final CompletionQueue ccq;
        final CompletionQueue scq;

        Pair(long seed, PortSpace ps) {
            net = new SimNetwork(seed);
            wa = net.attach("10.0.0.1");
            wb = net.attach("10.0.0.2");
            client = RdmaDevice.open(wa, DeviceConfig.defaults().withKeySeed(1));
            server = RdmaDevice.open(wb, DeviceConfig.defaults().withKeySeed(2));
            cch = CmEventChannel.create(client);
            sch = CmEventChannel.create(server);
            listener = sch.createId(ps, "listener");
            listener.bindAddr(new InetSocketAddress("10.0.0.2", PORT));
            listener.listen(3);
            cpd = client.allocPd();
            spd = server.allocPd();
            ccq = client.createCq(64);
            scq = server.createCq(64);
        }

        /** The client's ID, resolved and with its QP, ready to connect. */
        CmId resolvedClient(PortSpace ps, QpInitAttributes init) throws InterruptedException {
            CmId id = resolved(ps, PORT);
            id.createQp(cpd, init);
            return id;
        }

        /** The server accepts {@code req} on a new RC QP; both sides see ESTABLISHED. */
        void acceptAndEstablish(CmEvent req) throws InterruptedException {
            req.id().createQp(spd, QpInitAttributes.rc(scq, scq));
            req.id().accept(null);
            assertEquals(CmEventType.ESTABLISHED, next(cch).type());
            assertEquals(CmEventType.ESTABLISHED, next(sch).type());
        }

        /** A client ID with its address and route resolved toward the server's {@code port}, no QP yet. */
        CmId resolved(PortSpace ps, int port) throws InterruptedException {
            CmId id = cch.createId(ps, "client");
            id.resolveAddr(null, new InetSocketAddress("10.0.0.2", port), 2000);
            assertEquals(CmEventType.ADDR_RESOLVED, next(cch).type());
            id.resolveRoute(2000);
            assertEquals(CmEventType.ROUTE_RESOLVED, next(cch).type());
            return id;
        }

        @Override
        public void close() {
            client.close();
            server.close();
            net.close();
        }
    }

    static CmEvent next(CmEventChannel ch) throws InterruptedException {
        CmEvent e = ch.getEvent(600 * SECOND);
        assertNotNull(e, "no event in 600 virtual seconds");
        return e;
    }

    static WorkCompletion completion(RdmaDevice d, CompletionQueue cq) {
        WorkCompletion wc = new WorkCompletion();
        assertTrue(d.wire().runUntil(() -> cq.poll(wc), 10 * SECOND), "no completion");
        return wc;
    }

    @Test
    void reqRepRtuReadiesBothQpsAndDataFlowsThenDreqDrepDisconnectsBoth() throws Exception {
        try (Pair p = new Pair(1, PortSpace.TCP)) {
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            assertEquals(QpState.INIT, c.qp().state(), "rdma_create_qp leaves a connected QP in INIT");
            byte[] hello = "hello from the active side".getBytes(StandardCharsets.US_ASCII);
            c.connect(ConnParam.defaults().withPrivateData(hello));

            CmEvent req = next(p.sch);
            assertEquals(CmEventType.CONNECT_REQUEST, req.type());
            assertEquals(p.listener, req.listenId());
            // A REQ's private data field has a fixed size: the passive side sees all 56 bytes after
            // rdma_cm's IP header, the active side's first, zeros after (librdmacm's private_data_len).
            assertEquals(56, req.privateData().length);
            assertArrayEquals(hello, java.util.Arrays.copyOf(req.privateData(), hello.length),
                    "the user's private data after rdma_cm's IP header");
            assertEquals(1, req.param().responderResources());
            assertEquals(new InetSocketAddress("10.0.0.1", c.localAddress().getPort()), req.id().remoteAddress(),
                    "the passive side learns the active side's address from the IP header");
            CmId s = req.id();
            s.createQp(p.spd, QpInitAttributes.rc(p.scq, p.scq));
            MemoryRegion smr = p.spd.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            s.qp().postRecv(new RecvWorkRequest().wrId(1).sge(smr.address(), 4096, smr.lkey()));
            s.accept(ConnParam.defaults().withPrivateData(new byte[] {42}));
            assertEquals(QpState.RTS, s.qp().state(), "the passive side readies its QP before the REP");

            CmEvent est = next(p.cch);
            assertEquals(CmEventType.ESTABLISHED, est.type());
            assertEquals(42, est.privateData()[0], "the REP's private data reaches the active side");
            assertEquals(QpState.RTS, c.qp().state());
            assertEquals(CmEventType.ESTABLISHED, next(p.sch).type(), "the RTU establishes the passive side");
            assertEquals(s.qp().qpn(), c.qp().query().destQpn());
            assertEquals(c.qp().qpn(), s.qp().query().destQpn());
            // As Linux's rdma_cm: each side receives at the PSN it advertised and sends from the peer's.
            assertEquals(c.qp().query().rqPsn(), s.qp().query().sqPsn());
            assertEquals(s.qp().query().rqPsn(), c.qp().query().sqPsn());

            MemoryRegion cmr = p.cpd.registerMemory(ByteBuffer.allocateDirect(4096),
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
            cmr.pd();
            c.qp().postSend(new SendWorkRequest().wrId(7).opcode(WrOpcode.SEND).signaled(true)
                    .sge(cmr.address(), 64, cmr.lkey()));
            WorkCompletion got = completion(p.server, p.scq);
            assertTrue(got.isSuccess(), got.toString());
            assertEquals(WcOpcode.RECV, got.opcode());
            assertEquals(64, got.byteLen());
            // A READ from passive to active: responder resources 1 gave the active QP REMOTE_READ.
            s.qp().postSend(new SendWorkRequest().wrId(8).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(smr.address(), 64, smr.lkey()).rdma(cmr.address(), cmr.rkey()));
            got = completion(p.server, p.scq);
            assertTrue(got.isSuccess(), got.toString());

            c.disconnect();
            assertEquals(QpState.ERR, c.qp().state(), "rdma_disconnect moves the QP to ERR before the DREQ");
            CmEvent sd = next(p.sch);
            assertEquals(CmEventType.DISCONNECTED, sd.type());
            assertEquals(CmId.State.DREQ_RCVD, s.state());
            s.disconnect(); // the DREP goes out now, as librdmacm's rdma_disconnect sends it
            assertEquals(CmEventType.DISCONNECTED, next(p.cch).type(), "the DREP completes the active side");
            assertEquals(QpState.ERR, s.qp().state());
            assertEquals(CmId.State.DISCONNECTED, c.state());
            assertEquals(0, c.retransmissions() + s.retransmissions(), "nothing was lost, nothing repeated");
        }
    }

    @Test
    void aReqToAServiceNobodyListensOnIsRejectedWithInvalidServiceId() throws Exception {
        try (Pair p = new Pair(2, PortSpace.TCP)) {
            CmId c = p.resolved(PortSpace.TCP, PORT + 1);
            c.createQp(p.cpd, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            CmEvent e = next(p.cch);
            assertEquals(CmEventType.REJECTED, e.type());
            assertEquals(CmId.REJ_INVALID_SERVICE_ID, e.status(), "IBA 12.6.7: REJ reason 8");
        }
    }

    @Test
    void aConsumerRejectReachesTheActiveSideWithReason28AndItsPrivateData() throws Exception {
        try (Pair p = new Pair(3, PortSpace.TCP)) {
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            CmEvent req = next(p.sch);
            req.id().reject("busy".getBytes(StandardCharsets.US_ASCII));
            CmEvent e = next(p.cch);
            assertEquals(CmEventType.REJECTED, e.type());
            assertEquals(CmId.REJ_CONSUMER_DEFINED, e.status());
            assertEquals("busy", new String(e.privateData(), 0, 4, StandardCharsets.US_ASCII));
            assertEquals(CmId.State.ERROR, c.state());
        }
    }

    @Test
    void aLostReqIsRepeatedAfterTheCmResponseTimeoutAndTheConnectionStillForms() throws Exception {
        try (Pair p = new Pair(4, PortSpace.TCP)) {
            p.net.direction(p.wa, p.wb).fault(Faults.dropFirst(f -> f.destQp() == 1, 1));
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            long t0 = p.net.scheduler().nanoTime();
            c.connect(null);
            CmEvent req = next(p.sch);
            long waited = p.net.scheduler().nanoTime() - t0;
            assertTrue(waited >= CmId.timeoutNanos(CmId.CM_RESPONSE_TIMEOUT),
                    "the repeat waits 2 × packet life time + the CM response time: " + waited);
            assertEquals(1, c.retransmissions());
            p.acceptAndEstablish(req);
        }
    }

    @Test
    void aLostRtuIsRecoveredByTheRepeatedRepAndTheActiveSideAnswersItAgain() throws Exception {
        try (Pair p = new Pair(5, PortSpace.TCP)) {
            // The client's second MAD is its RTU.
            p.net.direction(p.wa, p.wb).fault(Faults.dropNth(f -> f.destQp() == 1, 2));
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            CmEvent req = next(p.sch);
            req.id().createQp(p.spd, QpInitAttributes.rc(p.scq, p.scq));
            req.id().accept(null);
            assertEquals(CmEventType.ESTABLISHED, next(p.cch).type());
            assertEquals(CmEventType.ESTABLISHED, next(p.sch).type(), "the repeated REP drew a second RTU");
            assertEquals(1, req.id().retransmissions());
        }
    }

    @Test
    void aPeerThatNeverAnswersIsUnreachableAfterFifteenRepeats() throws Exception {
        try (Pair p = new Pair(6, PortSpace.TCP)) {
            p.net.direction(p.wa, p.wb).fault(Faults.drop(1.0));
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            CmEvent e = p.cch.getEvent(3600 * SECOND);
            assertEquals(CmEventType.UNREACHABLE, e.type());
            assertEquals(CmEvent.ETIMEDOUT, e.status());
            assertEquals(CmId.MAX_CM_RETRIES, c.retransmissions(), "Max CM Retries repeats, then give up");
            assertEquals(QpState.ERR, c.qp().state());
        }
    }

    @Test
    void sidrResolvesTheServersUdQpAndQkeyAndADatagramReachesIt() throws Exception {
        try (Pair p = new Pair(7, PortSpace.UDP)) {
            CmId c = p.resolvedClient(PortSpace.UDP, QpInitAttributes.ud(p.ccq, p.ccq));
            assertEquals(QpState.RTS, c.qp().state(), "rdma_create_qp readies a UD QP at once");
            c.connect(ConnParam.defaults().withPrivateData(new byte[] {5}));
            CmEvent req = next(p.sch);
            assertEquals(CmEventType.CONNECT_REQUEST, req.type());
            assertEquals(5, req.privateData()[0]);
            QueuePair sqp = req.id().createQp(p.spd, QpInitAttributes.ud(p.scq, p.scq));
            MemoryRegion smr = p.spd.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            sqp.postRecv(new RecvWorkRequest().wrId(1).sge(smr.address(), 4096, smr.lkey()));
            req.id().accept(null);
            CmEvent est = next(p.cch);
            assertEquals(CmEventType.ESTABLISHED, est.type());
            assertEquals(sqp.qpn(), est.ud().qpNum(), "the SIDR_REP names the server's QP");
            assertEquals(CmId.UDP_QKEY, est.ud().qkey());
            MemoryRegion cmr = p.cpd.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            c.qp().postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                    .sge(cmr.address(), 100, cmr.lkey()).ud(est.ud().ah(), est.ud().qpNum(), est.ud().qkey()));
            WorkCompletion wc = completion(p.server, p.scq);
            assertTrue(wc.isSuccess(), wc.toString());
            assertEquals(c.qp().qpn(), wc.srcQp());
        }
    }

    @Test
    void aSidrReqToAServiceNobodyListensOnIsAnsweredUnsupported() throws Exception {
        try (Pair p = new Pair(8, PortSpace.UDP)) {
            CmId c = p.resolved(PortSpace.UDP, PORT + 1);
            c.createQp(p.cpd, QpInitAttributes.ud(p.ccq, p.ccq));
            c.connect(null);
            CmEvent e = next(p.cch);
            assertEquals(CmEventType.UNREACHABLE, e.type(), "SIDR_REP status 1: service ID not supported");
        }
    }

    @Test
    void theApiRefusesCallsOutOfOrderWithAClearMessage() throws Exception {
        try (Pair p = new Pair(9, PortSpace.TCP)) {
            CmId id = p.cch.createId(PortSpace.TCP, null);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> id.connect(null));
            assertTrue(e.getMessage().contains("ROUTE_RESOLVED"), e.getMessage());
            assertThrows(IllegalStateException.class,
                    () -> id.createQp(p.cpd, QpInitAttributes.rc(p.ccq, p.ccq)));
            IllegalArgumentException wrongType = assertThrows(IllegalArgumentException.class, () -> {
                CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.ud(p.ccq, p.ccq));
                c.close();
            });
            assertTrue(wrongType.getMessage().contains("port space"), wrongType.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> p.cch.createId(PortSpace.TCP, null).bindAddr(new InetSocketAddress("10.9.9.9", 1)));
            CmId second = p.sch.createId(PortSpace.TCP, null);
            second.bindAddr(new InetSocketAddress(InetAddress.getByName("10.0.0.2"), PORT));
            assertThrows(IllegalStateException.class, () -> second.listen(1), "one listener per service ID");
            assertNull(p.cch.pollEvent());
        }
    }

    @Test
    void theGsiIsQpNumberOneAndADeviceHasOnlyOne() throws Exception {
        try (Pair p = new Pair(10, PortSpace.TCP)) { // the listener's agent created the server's GSI
            CompletionQueue cq = p.server.createCq(4);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> p.spd.createQp(QpInitAttributes.gsi(cq, cq)));
            assertTrue(e.getMessage().contains("QP1"), e.getMessage());
            QueuePair gsi = p.cpd.createQp(QpInitAttributes.gsi(p.ccq, p.ccq)); // the client has none yet
            assertEquals(1, gsi.qpn());
            gsi.close();
            QueuePair again = p.cpd.createQp(QpInitAttributes.gsi(p.ccq, p.ccq));
            assertEquals(1, again.qpn(), "a destroyed GSI's number is free again");
        }
    }

    @Test
    void aRepeatedReqWhileTheApplicationHasNotAnsweredDrawsAnMraAndTheActiveSideWaitsLonger() throws Exception {
        try (Pair p = new Pair(11, PortSpace.TCP)) {
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            CmEvent req = next(p.sch);
            // The server's application sits on the request past the REQ's timeout: the REQ is repeated.
            long t0 = p.net.scheduler().nanoTime();
            p.net.scheduler().runUntil(t0 + CmId.timeoutNanos(CmId.CM_RESPONSE_TIMEOUT) + SECOND);
            assertEquals(1, c.retransmissions(), "one repeat, answered by an MRA");
            // The MRA's 69 s service timeout keeps the active side from repeating again for a while.
            p.net.scheduler().runUntil(p.net.scheduler().nanoTime() + 30 * SECOND);
            assertEquals(1, c.retransmissions(), "no repeat while the MRA's service timeout runs");
            p.acceptAndEstablish(req);
        }
    }

    @Test
    void aDreqNamingAnotherQpIsIgnored() throws Exception {
        try (Pair p = new Pair(12, PortSpace.TCP)) {
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            CmEvent req = next(p.sch);
            req.id().createQp(p.spd, QpInitAttributes.rc(p.scq, p.scq));
            req.id().accept(null);
            next(p.cch);
            next(p.sch);
            CmReply bogus = CmReply.dreq(0, 0, c.qp().qpn() + 1, null); // wrong QPN, delivered straight to the ID
            p.net.scheduler().execute(() -> c.onReply(bogus, 0, InetAddress.getLoopbackAddress()));
            p.net.scheduler().runUntil(p.net.scheduler().nanoTime() + SECOND);
            assertEquals(CmId.State.ESTABLISHED, c.state());
            assertNull(p.cch.pollEvent());
        }
    }

    @Test
    void aDreqForAConnectionTheReceiverDoesNotKnowStillGetsADrep() throws Exception {
        try (Pair p = new Pair(13, PortSpace.TCP)) {
            CmAgent clientAgent = CmAgent.of(p.client);
            long before = p.net.direction(p.wb, p.wa).delivered();
            p.net.scheduler().execute(() -> {
                java.nio.ByteBuffer mad = java.nio.ByteBuffer.allocate(Mad.SIZE);
                CmReply.dreq(0x1234, 0x5678, 0x99, null).encode(mad, 7);
                clientAgent.send(p.server.gid().toInetAddress(), mad);
            });
            p.net.scheduler().runUntil(p.net.scheduler().nanoTime() + SECOND);
            // The Linux CM's cm_issue_drep: the peer learns the connection is gone, and stops repeating.
            assertEquals(before + 1, p.net.direction(p.wb, p.wa).delivered(), "one DREP came back");
        }
    }

    @Test
    void aQpTheApplicationMadeIsAttachedOnlyFromResetAndThenConnectsLikeAnyOther() throws Exception {
        try (Pair p = new Pair(14, PortSpace.TCP)) {
            CmId c = p.resolved(PortSpace.TCP, PORT);
            QueuePair mine = p.cpd.createQp(QpInitAttributes.rc(p.ccq, p.ccq));
            mine.modify(new io.rnic.verbs.QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.attachQp(mine));
            assertTrue(e.getMessage().contains("RESET"), e.getMessage());
            mine.modify(new io.rnic.verbs.QpAttributes().state(QpState.RESET));
            c.attachQp(mine);
            assertEquals(mine, c.qp());
            assertEquals(QpState.INIT, mine.state());
            c.connect(null);
            CmEvent req = next(p.sch);
            req.id().createQp(p.spd, QpInitAttributes.rc(p.scq, p.scq));
            req.id().accept(null);
            assertEquals(CmEventType.ESTABLISHED, next(p.cch).type());
            assertEquals(QpState.RTS, mine.state());
            assertEquals(p.client.queryPort().activeMtu(), mine.query().pathMtu(),
                    "no interface has a simulated address: the route MTU is the port's");
        }
    }

    /** Garbage on QP1 (random MADs, and CM MADs of every kind with random fields) is dropped and counted. */
    @Test
    void garbageOnQp1IsDroppedAndCountedAndTheManagerStillConnects() throws Exception {
        try (Pair p = new Pair(15, PortSpace.TCP)) {
            CmAgent clientAgent = CmAgent.of(p.client);
            java.util.SplittableRandom rnd = new java.util.SplittableRandom(15);
            int[] attrs = {Mad.REP, Mad.RTU, Mad.DREQ, Mad.DREP, Mad.REJ, Mad.MRA, Mad.SIDR_REP, 0x0019, 0x0001};
            for (int i = 0; i < 2000; i++) {
                java.nio.ByteBuffer mad = java.nio.ByteBuffer.allocate(Mad.SIZE);
                for (int b = 0; b < Mad.SIZE; b += 8) {
                    mad.putLong(b, rnd.nextLong());
                }
                if (i % 2 == 0) { // a well-formed CM header around random fields
                    mad.put(0, (byte) 1).put(1, (byte) 7).put(2, (byte) 2).put(3, (byte) 3);
                    mad.putShort(16, (short) attrs[rnd.nextInt(attrs.length)]);
                }
                p.net.scheduler().execute(() -> clientAgent.send(p.server.gid().toInetAddress(), mad));
                p.net.scheduler().runUntil(p.net.scheduler().nanoTime() + 1_000_000);
            }
            CmAgent serverAgent = CmAgent.of(p.server);
            long[] counts = serverAgent.madCounts();
            assertEquals(2000, counts[0], "every MAD arrived");
            assertTrue(counts[1] >= 1000, "those for no one were dropped and counted: " + counts[1]);
            assertNull(p.sch.pollEvent(), "no garbage reached the application");
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            CmEvent req = next(p.sch);
            req.id().createQp(p.spd, QpInitAttributes.rc(p.scq, p.scq));
            req.id().accept(null);
            assertEquals(CmEventType.ESTABLISHED, next(p.cch).type());
        }
    }

    /** As Linux's MAD layer: every GSI datagram a UD SEND ONLY to QP 1 from QP 1, Q_Key 0x80010000, AckReq set. */
    @Test
    void everyCmDatagramIsAUdSendOnlyFromQp1ToQp1WithTheGsiQkeyAndAckReq() throws Exception {
        try (Pair p = new Pair(16, PortSpace.TCP)) {
            java.util.List<byte[]> sent = new java.util.ArrayList<>();
            p.wa.addTap((dir, t, pkt, src, dst) -> {
                if (dir == io.rnic.core.wire.WireTap.Direction.SENT) {
                    byte[] b = new byte[pkt.readableBytes()];
                    pkt.getBytes(pkt.readerIndex(), b);
                    sent.add(b);
                }
            });
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            CmEvent req = next(p.sch);
            req.id().createQp(p.spd, QpInitAttributes.rc(p.scq, p.scq));
            req.id().accept(null);
            next(p.cch);
            p.net.scheduler().runUntil(p.net.scheduler().nanoTime() + 1_000_000); // the RTU leaves
            assertEquals(2, sent.size(), "the REQ and the RTU");
            for (byte[] b : sent) {
                java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(b);
                assertEquals(0x64, b[0] & 0xFF, "UD SEND ONLY");
                assertEquals(1, bb.getInt(4) & 0xFFFFFF, "to QP 1");
                assertTrue((b[8] & 0x80) != 0, "AckReq, as the Linux MAD layer sets it");
                assertEquals(0x80010000, bb.getInt(12), "the GSI Q_Key");
                assertEquals(1, bb.getInt(16) & 0xFFFFFF, "from QP 1");
                assertEquals(12 + 8 + Mad.SIZE + 4, b.length);
            }
        }
    }

    /**
     * Fifty connections set up and torn down one after another through 10 % loss in both
     * directions: every lost REQ, REP, RTU, DREQ or DREP is repeated until it gets through, and
     * every connection forms and ends on both sides (virtual time: minutes of timeouts in a blink).
     */
    @Test
    void fiftyConnectionsFormAndEndThroughTenPercentLossEachWay() throws Exception {
        try (Pair p = new Pair(17, PortSpace.TCP)) {
            p.net.direction(p.wa, p.wb).fault(Faults.drop(0.1));
            p.net.direction(p.wb, p.wa).fault(Faults.drop(0.1));
            long repeats = 0;
            for (int i = 0; i < 50; i++) {
                CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
                c.connect(null);
                CmEvent req = next(p.sch);
                assertEquals(CmEventType.CONNECT_REQUEST, req.type(), "connection " + i);
                CmId s = req.id();
                s.createQp(p.spd, QpInitAttributes.rc(p.scq, p.scq));
                s.accept(null);
                assertEquals(CmEventType.ESTABLISHED, next(p.cch).type(), "connection " + i);
                assertEquals(CmEventType.ESTABLISHED, next(p.sch).type(), "connection " + i);
                c.disconnect();
                assertEquals(CmEventType.DISCONNECTED, next(p.sch).type(), "connection " + i);
                s.disconnect();
                assertEquals(CmEventType.DISCONNECTED, next(p.cch).type(), "connection " + i);
                repeats += c.retransmissions() + s.retransmissions();
                c.close();
                s.close();
                c.qp().close();
                s.qp().close();
            }
            assertTrue(repeats > 0, "the loss did hit the CM's messages");
        }
    }

    /** Several event channels (applications) on one device share its QP1: each ID reports to its own channel. */
    @Test
    void twoEventChannelsOnOneDeviceShareItsQp1AndEachHearsOnlyItsOwnIds() throws Exception {
        try (Pair p = new Pair(18, PortSpace.TCP)) {
            CmEventChannel other = CmEventChannel.create(p.server);
            CmId second = other.createId(PortSpace.TCP, "second");
            second.bindAddr(new InetSocketAddress("10.0.0.2", PORT + 7));
            second.listen(1);
            CmId c1 = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c1.connect(null);
            CmId c2 = p.resolved(PortSpace.TCP, PORT + 7);
            c2.createQp(p.cpd, QpInitAttributes.rc(p.ccq, p.ccq));
            c2.connect(null);
            CmEvent toFirst = next(p.sch);
            CmEvent toSecond = next(other);
            assertEquals(p.listener, toFirst.listenId());
            assertEquals(second, toSecond.listenId());
            assertNull(p.sch.pollEvent(), "the second application's request did not reach the first");
            p.acceptAndEstablish(toFirst);
            toSecond.id().createQp(p.spd, QpInitAttributes.rc(p.scq, p.scq));
            toSecond.id().accept(null);
            assertEquals(CmEventType.ESTABLISHED, next(p.cch).type());
            assertEquals(CmEventType.ESTABLISHED, next(other).type());
        }
    }

    /** A listener bound to the wildcard address hears requests to every device of its channel, as librdmacm's. */
    @Test
    void aWildcardListenerHearsEveryDeviceOfItsChannelAndEachConnectionUsesItsOwn() throws Exception {
        SimNetwork net = new SimNetwork(19);
        try (net; RdmaDevice client = RdmaDevice.open(net.attach("10.0.0.1"));
             RdmaDevice s1 = RdmaDevice.open(net.attach("10.0.0.2")); RdmaDevice s2 = RdmaDevice.open(net.attach("10.0.0.3"))) {
            CmEventChannel sch = CmEventChannel.create(s1, s2);
            CmId any = sch.createId(PortSpace.TCP, null);
            any.bindAddr(new InetSocketAddress("0.0.0.0", PORT));
            any.listen(4);
            CmEventChannel cch = CmEventChannel.create(client);
            ProtectionDomain cpd = client.allocPd();
            CompletionQueue ccq = client.createCq(16);
            for (String server : new String[] {"10.0.0.2", "10.0.0.3"}) {
                CmId c = cch.createId(PortSpace.TCP, null);
                c.resolveAddr(null, new InetSocketAddress(server, PORT), 2000);
                next(cch);
                c.resolveRoute(2000);
                next(cch);
                c.createQp(cpd, QpInitAttributes.rc(ccq, ccq));
                c.connect(null);
                CmEvent req = next(sch);
                assertEquals(any, req.listenId());
                RdmaDevice at = req.id().device();
                assertEquals(server, at.gid().toInetAddress().getHostAddress(), "the request's own device");
                assertEquals(server, req.id().localAddress().getAddress().getHostAddress());
                CompletionQueue cq = at.createCq(16);
                req.id().createQp(at.allocPd(), QpInitAttributes.rc(cq, cq));
                req.id().accept(null);
                assertEquals(CmEventType.ESTABLISHED, next(cch).type());
                assertEquals(CmEventType.ESTABLISHED, next(sch).type());
            }
            any.close();
            CmId again = sch.createId(PortSpace.TCP, null);
            again.bindAddr(new InetSocketAddress("10.0.0.3", PORT));
            again.listen(1); // closing the wildcard listener freed the port on every device
        }
    }
}
