package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.wire.WireTap;
import io.rnic.transport.AbstractWire;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import io.rnic.transport.udp.HcaAgent;
import io.rnic.transport.udp.UdpWire;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The protection matrix (issue 12, "Attack at scale"): every way a request can fail its
 * protection checks, on both wires (the simulated network in virtual time, and two
 * {@link UdpWire}s on loopback). Each case names the rule of reference §8.3–8.5 / §3.3 / §7.1 it
 * checks, and asserts three things: the requester's completion status (or, for a crafted packet
 * or a silent drop, the responder's answer), that the responder's whole buffer, a canary region
 * and every other region the request could reach are byte-identical before and after, and the
 * counter that recorded the failure.
 */
class ProtectionMatrixTest {
    private static final int BUF = 64 << 10;
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;
    private static final int QKEY = 0x11111111;
    private static final int PSN_A = 0x100;
    private static final int PSN_B = 0x200;
    private static final long UDP_TIMEOUT_NANOS = 10_000_000_000L;
    private static final AtomicInteger NEXT_UDP = new AtomicInteger(1);

    enum WireKind { SIM, UDP }

    /** One row of the matrix: the rule it checks, and the case itself. */
    enum Case {
        BAD_RKEY("§8.3 R_Key index/key byte unknown → NAK Remote Access Error, REM_ACCESS_ERR"),
        STALE_RKEY("§8.3 R_Key of a deregistered region → NAK Remote Access Error, REM_ACCESS_ERR"),
        RKEY_OF_ANOTHER_PD("§8.3 MR PD must equal the QP's PD → NAK Remote Access Error, REM_ACCESS_ERR"),
        PAST_THE_END("§8.3 bounds: VA + len ≤ MR end → NAK Remote Access Error, REM_ACCESS_ERR"),
        BEFORE_THE_START("§8.3 bounds: VA ≥ MR start → NAK Remote Access Error, REM_ACCESS_ERR"),
        WRAPS_PAST_2_64("§8.3 bounds, unsigned: VA 0xFFFF_FFFF_FFFF_FFF0 + 64 wraps → NAK Remote Access Error"),
        READ_WRAPS_PAST_2_64("§8.3 bounds, unsigned, for a READ → NAK Remote Access Error, REM_ACCESS_ERR"),
        HUGE_DMA_LENGTH_CRAFTED("§5.6 RETH DMA length ≤ 2^31, checked before the R_Key: 0xFFFFFFF0 → NAK Invalid Request"),
        WRITE_WITHOUT_MR_REMOTE_WRITE("§8.3 MR access must hold REMOTE_WRITE → NAK Remote Access Error"),
        READ_WITHOUT_MR_REMOTE_READ("§8.3 MR access must hold REMOTE_READ → NAK Remote Access Error"),
        ATOMIC_WITHOUT_MR_REMOTE_ATOMIC("§8.3 MR access must hold REMOTE_ATOMIC → NAK Remote Access Error"),
        WRITE_ON_QP_WITHOUT_REMOTE_WRITE("§8.3 QP access flags gate WRITE → NAK Invalid Request, REM_INV_REQ_ERR"),
        READ_ON_QP_WITHOUT_REMOTE_READ("§8.3 QP access flags gate READ → NAK Invalid Request, REM_INV_REQ_ERR"),
        ATOMIC_ON_QP_WITHOUT_REMOTE_ATOMIC("§8.3 QP access flags gate atomics → NAK Invalid Request, REM_INV_REQ_ERR"),
        MISALIGNED_ATOMIC_POST("§8.3 requester: atomic address must be 8-byte aligned → refused at post"),
        MISALIGNED_ATOMIC_CRAFTED("§8.3 responder: misaligned atomic target → NAK Invalid Request (rxe)"),
        BAD_LKEY("§7.1 local key invalid → LOC_PROT_ERR, nothing reaches the wire"),
        WRONG_PKEY_CRAFTED("§8.4 P_Key mismatch → silent drop, bad_pkey_cntr"),
        WRONG_QKEY("§8.5 UD Q_Key mismatch → silent drop, qkey_viol_cntr");

        final String rule;

        Case(String rule) {
            this.rule = rule;
        }
    }

    static Stream<Arguments> matrix() {
        List<Arguments> l = new ArrayList<>();
        for (WireKind w : WireKind.values()) {
            for (Case c : Case.values()) {
                l.add(Arguments.of(w, c));
            }
        }
        return l.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("matrix")
    void aRequestThatFailsItsProtectionChecksFailsAsTheSpecSaysTouchesNothingAndIsCounted(WireKind wire, Case c)
            throws Exception {
        try (Rig r = wire == WireKind.SIM ? new SimRig(c.ordinal() + 100) : new UdpRig()) {
            run(r, c);
        }
    }

    private static void run(Rig r, Case c) throws Exception {
        switch (c) {
            case BAD_RKEY -> {
                r.connect(RcOptions.defaults());
                r.expectNak(r.write(r.mrB.address(), r.mrB.rkey() ^ 0x01, 64),
                        WcStatus.REM_ACCESS_ERR, AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
            }
            case STALE_RKEY -> {
                r.connect(RcOptions.defaults());
                ByteBuffer gone = r.watch(ByteBuffer.allocateDirect(4096), 7);
                MemoryRegion stale = r.pdB.registerMemory(gone, ALL);
                long va = stale.address();
                int rkey = stale.rkey();
                stale.close();
                r.expectNak(r.write(va, rkey, 64), WcStatus.REM_ACCESS_ERR, AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
            }
            case RKEY_OF_ANOTHER_PD -> {
                r.connect(RcOptions.defaults());
                ProtectionDomain other = r.b.allocPd();
                MemoryRegion foreign = other.registerMemory(r.watch(ByteBuffer.allocateDirect(4096), 9), ALL);
                r.expectNak(r.write(foreign.address(), foreign.rkey(), 64),
                        WcStatus.REM_ACCESS_ERR, AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
            }
            case PAST_THE_END -> {
                r.connect(RcOptions.defaults());
                r.expectNak(r.write(r.mrB.address() + BUF - 10, r.mrB.rkey(), 64),
                        WcStatus.REM_ACCESS_ERR, AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
            }
            case BEFORE_THE_START -> {
                r.connect(RcOptions.defaults());
                r.expectNak(r.write(r.mrB.address() - 16, r.mrB.rkey(), 64),
                        WcStatus.REM_ACCESS_ERR, AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
            }
            case WRAPS_PAST_2_64 -> {
                r.connect(RcOptions.defaults());
                r.expectNak(r.write(0xFFFF_FFFF_FFFF_FFF0L, r.mrB.rkey(), 64),
                        WcStatus.REM_ACCESS_ERR, AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
            }
            case READ_WRAPS_PAST_2_64 -> {
                r.connect(RcOptions.defaults());
                r.expectNak(r.read(0xFFFF_FFFF_FFFF_FFF0L, r.mrB.rkey(), 64),
                        WcStatus.REM_ACCESS_ERR, AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
            }
            case HUGE_DMA_LENGTH_CRAFTED -> {
                r.connect(RcOptions.defaults());
                PacketFields f = r.request("RC_RDMA_WRITE_FIRST");
                f.rethVa = r.mrB.address() + 16;
                f.rethRkey = r.mrB.rkey();
                f.rethLength = 0xFFFF_FFF0;
                f.payload(pattern(1024, 3));
                r.expectCraftedNak(f, AethSyndrome.NAK_INVALID_REQUEST);
            }
            case WRITE_WITHOUT_MR_REMOTE_WRITE -> {
                r.connect(RcOptions.defaults());
                MemoryRegion ro = r.pdB.registerMemory(r.watch(ByteBuffer.allocateDirect(4096), 11),
                        AccessFlags.REMOTE_READ);
                r.expectNak(r.write(ro.address(), ro.rkey(), 64), WcStatus.REM_ACCESS_ERR,
                        AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
            }
            case READ_WITHOUT_MR_REMOTE_READ -> {
                r.connect(RcOptions.defaults());
                MemoryRegion wo = r.pdB.registerMemory(r.watch(ByteBuffer.allocateDirect(4096), 13),
                        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC);
                r.expectNak(r.read(wo.address(), wo.rkey(), 64), WcStatus.REM_ACCESS_ERR,
                        AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
            }
            case ATOMIC_WITHOUT_MR_REMOTE_ATOMIC -> {
                r.connect(RcOptions.defaults());
                MemoryRegion na = r.pdB.registerMemory(r.watch(ByteBuffer.allocateDirect(4096), 15),
                        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
                r.expectNak(r.fetchAdd(na.address(), na.rkey()), WcStatus.REM_ACCESS_ERR,
                        AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
            }
            case WRITE_ON_QP_WITHOUT_REMOTE_WRITE -> {
                r.connect(RcOptions.defaults().withAccess(AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC));
                r.expectNak(r.write(r.mrB.address(), r.mrB.rkey(), 64), WcStatus.REM_INV_REQ_ERR,
                        AethSyndrome.NAK_INVALID_REQUEST);
            }
            case READ_ON_QP_WITHOUT_REMOTE_READ -> {
                r.connect(RcOptions.defaults().withAccess(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC));
                r.expectNak(r.read(r.mrB.address(), r.mrB.rkey(), 64), WcStatus.REM_INV_REQ_ERR,
                        AethSyndrome.NAK_INVALID_REQUEST);
            }
            case ATOMIC_ON_QP_WITHOUT_REMOTE_ATOMIC -> {
                r.connect(RcOptions.defaults().withAccess(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ));
                r.expectNak(r.fetchAdd(r.mrB.address(), r.mrB.rkey()), WcStatus.REM_INV_REQ_ERR,
                        AethSyndrome.NAK_INVALID_REQUEST);
            }
            case MISALIGNED_ATOMIC_POST -> {
                r.connect(RcOptions.defaults());
                Map<String, byte[]> before = r.snapshot();
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> r.qpA.postSend(r.fetchAdd(r.mrB.address() + 4, r.mrB.rkey())));
                assertTrue(e.getMessage().contains("8-byte aligned"), e.getMessage());
                r.assertUnchanged(before);
                // The refused post sent nothing: a good atomic right after is the only packet B sees.
                r.qpA.postSend(r.fetchAdd(r.mrB.address() + 8, r.mrB.rkey()));
                WorkCompletion wc = r.awaitA();
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                r.waitFor(() -> r.b.counters().get(Counter.ATOMICS_EXECUTED) == 1, "the good atomic ran");
                assertEquals(1, r.b.counters().get(Counter.RCVD_PKTS), "only the good atomic reached B");
                assertEquals(1, r.a.counters().get(Counter.SENT_PKTS), "the refused post sent nothing");
            }
            case MISALIGNED_ATOMIC_CRAFTED -> {
                r.connect(RcOptions.defaults());
                PacketFields f = r.request("RC_FETCH_ADD");
                f.atomicVa = r.mrB.address() + 4;
                f.atomicRkey = r.mrB.rkey();
                f.atomicSwapAdd = 1;
                r.expectCraftedNak(f, AethSyndrome.NAK_INVALID_REQUEST);
                assertEquals(0, r.b.counters().get(Counter.ATOMICS_EXECUTED));
            }
            case BAD_LKEY -> {
                r.connect(RcOptions.defaults());
                Map<String, byte[]> before = r.snapshot();
                r.qpA.postSend(new SendWorkRequest().wrId(5).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                        .sge(r.mrA.address(), 64, r.mrA.lkey() + 0x100).rdma(r.mrB.address(), r.mrB.rkey()));
                WorkCompletion wc = r.awaitA();
                assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), wc.toString());
                assertEquals(QpState.ERR, r.qpA.state());
                assertEquals(0, r.a.counters().get(Counter.SENT_PKTS), "nothing reached the wire");
                assertEquals(0, r.b.counters().get(Counter.RCVD_PKTS));
                assertEquals(QpState.RTS, r.qpB.state());
                r.assertUnchanged(before);
            }
            case WRONG_PKEY_CRAFTED -> {
                r.connect(RcOptions.defaults());
                PacketFields f = r.request("RC_RDMA_WRITE_ONLY");
                f.pkey = 0x1234; // not in B's table {0xFFFF}; the full-membership bit does not help
                f.rethVa = r.mrB.address();
                f.rethRkey = r.mrB.rkey();
                f.rethLength = 64;
                f.payload(pattern(64, 5));
                Map<String, byte[]> before = r.snapshot();
                r.inject(f);
                r.waitFor(() -> r.b.counters().get(Counter.BAD_PKEY_CNTR) == 1, "bad_pkey_cntr counts the drop");
                assertEquals(0, r.sentB.size(), "no answer to a P_Key mismatch: " + r.sentB);
                r.assertUnchanged(before);
                // The dropped packet did not take the expected PSN: the real first WRITE still lands.
                r.bufA.put(0, pattern(64, 6));
                r.qpA.postSend(r.write(r.mrB.address(), r.mrB.rkey(), 64));
                assertEquals(WcStatus.SUCCESS, r.awaitA().status());
                byte[] landed = new byte[64];
                r.bufB.get(0, landed);
                assertArrayEquals(pattern(64, 6), landed);
            }
            case WRONG_QKEY -> {
                QueuePair udA = r.pdA.createQp(QpInitAttributes.ud(r.cqA, r.cqA));
                QueuePair udB = r.pdB.createQp(QpInitAttributes.ud(r.cqB, r.cqB));
                Connections.readyDatagram(udA, QKEY, 1);
                Connections.readyDatagram(udB, QKEY, 2);
                udB.postRecv(new RecvWorkRequest().wrId(1).sge(r.mrB.address(), 1024, r.mrB.lkey()));
                AddressHandle toB = r.pdA.createAddressHandle(
                        AddressVector.of(r.b.wire().localAddress().getAddress()));
                Map<String, byte[]> before = r.snapshot();
                udA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                        .sge(r.mrA.address(), 64, r.mrA.lkey()).ud(toB, udB.qpn(), 0x22222222));
                assertEquals(WcStatus.SUCCESS, r.awaitA().status(), "a datagram completes once it is on the wire");
                r.waitFor(() -> r.b.counters().get(Counter.QKEY_VIOL_CNTR) == 1, "qkey_viol_cntr counts the drop");
                assertEquals(0, r.cqB.size(), "no receive completed");
                assertEquals(0, r.sentB.size(), "nothing answered");
                r.assertUnchanged(before);
            }
        }
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 17 + i * 31 + 1);
        }
        return b;
    }

    /** Two devices, a PD, CQ, a data region and a canary region on each; RC QPs when asked. */
    abstract static class Rig implements AutoCloseable {
        RdmaDevice a;
        RdmaDevice b;
        ProtectionDomain pdA;
        ProtectionDomain pdB;
        CompletionQueue cqA;
        CompletionQueue cqB;
        final ByteBuffer bufA = ByteBuffer.allocateDirect(BUF);
        final ByteBuffer bufB = ByteBuffer.allocateDirect(BUF);
        final ByteBuffer canaryB = ByteBuffer.allocateDirect(4096);
        MemoryRegion mrA;
        MemoryRegion mrB;
        QueuePair qpA;
        QueuePair qpB;
        /** What B's wire sent, on the protocol thread (synchronised for UDP readers). */
        final List<Wiretap.Seen> sentB = Collections.synchronizedList(new ArrayList<>());
        private final Map<String, ByteBuffer> watched = new LinkedHashMap<>();

        void init(RdmaDevice a, RdmaDevice b) {
            this.a = a;
            this.b = b;
            pdA = a.allocPd();
            pdB = b.allocPd();
            cqA = a.createCq(64);
            cqB = b.createCq(64);
            mrA = pdA.registerMemory(watch("A", bufA, 1), ALL);
            mrB = pdB.registerMemory(watch("B", bufB, 2), ALL);
            pdB.registerMemory(watch("canary", canaryB, 3), ALL);
            ((AbstractWire) b.wire()).addTap((dir, ts, p, s, d) -> {
                if (dir == WireTap.Direction.SENT) {
                    int i = p.readerIndex();
                    Opcode op = OpcodeTable.lookup(p.getUnsignedByte(i));
                    boolean aeth = op != null && op.has(Header.AETH);
                    int at = aeth ? i + op.offsetOf(Header.AETH) : 0;
                    sentB.add(new Wiretap.Seen(op == null ? "?" : op.name(), p.getUnsignedMedium(i + 9),
                            aeth ? p.getUnsignedByte(at) : -1, ts, aeth ? p.getUnsignedMedium(at + 1) : -1, false));
                }
            });
        }

        private ByteBuffer watch(String name, ByteBuffer buf, int seed) {
            for (int i = 0; i < buf.capacity(); i++) {
                buf.put(i, (byte) (seed * 13 + i * 7));
            }
            watched.put(name, buf);
            return buf;
        }

        /** Fills {@code buf} with a pattern and watches it from now on. */
        ByteBuffer watch(ByteBuffer buf, int seed) {
            return watch("extra" + watched.size(), buf, seed);
        }

        Map<String, byte[]> snapshot() {
            Map<String, byte[]> m = new LinkedHashMap<>();
            watched.forEach((k, v) -> {
                byte[] copy = new byte[v.capacity()];
                v.get(0, copy);
                m.put(k, copy);
            });
            return m;
        }

        void assertUnchanged(Map<String, byte[]> before) {
            Map<String, byte[]> after = snapshot();
            for (var e : before.entrySet()) {
                assertArrayEquals(e.getValue(), after.get(e.getKey()), "region " + e.getKey() + " is byte-identical");
            }
        }

        void connect(RcOptions o) {
            qpA = pdA.createQp(QpInitAttributes.rc(cqA, cqA));
            qpB = pdB.createQp(QpInitAttributes.rc(cqB, cqB));
            Connections.connectPair(qpA, mrA, PSN_A, qpB, mrB, PSN_B, o);
        }

        SendWorkRequest write(long va, int rkey, int len) {
            return new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(mrA.address(), len, mrA.lkey()).rdma(va, rkey);
        }

        SendWorkRequest read(long va, int rkey, int len) {
            return new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(mrA.address() + 4096, len, mrA.lkey()).rdma(va, rkey);
        }

        SendWorkRequest fetchAdd(long va, int rkey) {
            return new SendWorkRequest().wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(mrA.address() + 8192, 8, mrA.lkey()).atomic(va, rkey, 1, 0);
        }

        /** A request to qpB at the PSN it expects, AckReq set, P_Key 0xFFFF. */
        PacketFields request(String opcode) {
            PacketFields f = new PacketFields().opcode(OpcodeTable.byName(opcode));
            f.destQp = qpB.qpn();
            f.psn = PSN_A;
            f.ackReq = true;
            return f;
        }

        /**
         * Posts {@code wr} on qpA and checks the NAK rule: the requester's completion has
         * {@code status}, B sent exactly one NAK with {@code nakCode} and counted it, both QPs
         * are in ERR (a class C error, reference §8.3), no atomic ran, and no watched byte moved.
         */
        void expectNak(SendWorkRequest wr, WcStatus status, int nakCode) throws Exception {
            Map<String, byte[]> before = snapshot();
            qpA.postSend(wr);
            WorkCompletion wc = awaitA();
            assertEquals(status, wc.status(), wc.toString());
            assertEquals(wr.wrId(), wc.wrId());
            assertEquals(QpState.ERR, qpA.state());
            waitFor(() -> qpB.state() == QpState.ERR, "the responder's QP is in ERR");
            assertEquals(1, b.counters().get(Counter.NAKS_SENT), "B counted its NAK: " + b.counters());
            assertEquals(1, a.counters().get(Counter.RCVD_NAKS), "A counted the NAK: " + a.counters());
            assertEquals(0, b.counters().get(Counter.ATOMICS_EXECUTED));
            assertEquals(List.of(AethSyndrome.nak(nakCode)), sentB.stream().map(Wiretap.Seen::syndrome).toList(),
                    "B's only packet is the NAK: " + sentB);
            assertUnchanged(before);
        }

        /** Injects {@code f} as if from qpA and checks B answers with one NAK {@code nakCode}, touching nothing. */
        void expectCraftedNak(PacketFields f, int nakCode) throws Exception {
            Map<String, byte[]> before = snapshot();
            inject(f);
            waitFor(() -> b.counters().get(Counter.NAKS_SENT) == 1, "B NAKs the crafted request");
            waitFor(() -> qpB.state() == QpState.ERR, "the responder's QP is in ERR");
            assertEquals(List.of(AethSyndrome.nak(nakCode)), sentB.stream().map(Wiretap.Seen::syndrome).toList(),
                    "B's only packet is the NAK: " + sentB);
            assertEquals(f.psn, sentB.get(0).psn(), "the NAK names the offending PSN");
            assertEquals(0, b.counters().get(Counter.ATOMICS_EXECUTED));
            assertUnchanged(before);
        }

        abstract WorkCompletion awaitA() throws Exception;

        /** Lets the protocol run until {@code cond} holds (fails after a bound). */
        abstract void waitFor(BooleanSupplier cond, String what) throws Exception;

        /** Sends a crafted packet to B from A's address, with a valid ICRC. */
        abstract void inject(PacketFields f) throws Exception;

        @Override
        public void close() throws Exception {
            b.close();
            a.close();
        }
    }

    static final class SimRig extends Rig {
        final SimNetwork net;
        final SimWire wireA;
        final SimWire wireB;

        SimRig(long seed) {
            net = new SimNetwork(seed);
            wireA = net.attach("10.0.0.2");
            wireB = net.attach("10.0.0.3");
            init(RdmaDevice.open(wireA, DeviceConfig.defaults().withKeySeed(seed)),
                    RdmaDevice.open(wireB, DeviceConfig.defaults().withKeySeed(seed + 1)));
        }

        @Override
        WorkCompletion awaitA() {
            net.scheduler().runUntil(() -> cqA.size() > 0, 60_000_000_000L);
            WorkCompletion wc = new WorkCompletion();
            assertTrue(cqA.poll(wc), "a completion on A; A: " + a.counters() + " B: " + b.counters());
            net.scheduler().runUntil(() -> false, 1_000_000_000L); // let the rest of the exchange finish
            return wc;
        }

        @Override
        void waitFor(BooleanSupplier cond, String what) {
            net.scheduler().runUntil(cond, 60_000_000_000L);
            assertTrue(cond.getAsBoolean(), what + "; A: " + a.counters() + " B: " + b.counters());
            net.scheduler().runUntil(() -> false, 1_000_000_000L);
        }

        @Override
        void inject(PacketFields f) {
            int port = qpA == null ? 0xC000 : qpA.sourcePort();
            Wiretap.inject(wireA, port, wireB, f);
        }

        @Override
        public void close() throws Exception {
            super.close();
            net.close();
        }
    }

    static final class UdpRig extends Rig {
        final UdpWire wireA;
        final UdpWire wireB;

        UdpRig() {
            int n = NEXT_UDP.getAndIncrement();
            wireA = UdpWire.bind("127.0.131." + n).idle(HcaAgent.Idle.BLOCK).open();
            wireB = UdpWire.bind("127.0.132." + n).idle(HcaAgent.Idle.BLOCK).open();
            init(RdmaDevice.open(wireA), RdmaDevice.open(wireB));
        }

        @Override
        WorkCompletion awaitA() throws InterruptedException {
            WorkCompletion wc = new WorkCompletion();
            long deadline = System.nanoTime() + UDP_TIMEOUT_NANOS;
            while (!cqA.poll(wc)) {
                long left = deadline - System.nanoTime();
                assertTrue(left > 0, "a completion on A; A: " + a.counters() + " B: " + b.counters());
                cqA.await(left);
            }
            return wc;
        }

        @Override
        void waitFor(BooleanSupplier cond, String what) {
            long deadline = System.nanoTime() + UDP_TIMEOUT_NANOS;
            while (!cond.getAsBoolean()) {
                assertTrue(System.nanoTime() < deadline, what + "; A: " + a.counters() + " B: " + b.counters());
                Thread.yield();
            }
        }

        @Override
        void inject(PacketFields f) throws Exception {
            InetSocketAddress to = wireB.localAddress();
            try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(wireA.localAddress().getAddress(), 0))) {
                PseudoHeader ph = new PseudoHeader().addresses(wireA.localAddress().getAddress(), to.getAddress())
                        .ports(s.getLocalPort(), to.getPort());
                ByteBuf buf = Unpooled.buffer();
                new PacketEncoder().encode(f, ph, buf, new RocePacket());
                byte[] bytes = new byte[buf.readableBytes()];
                buf.readBytes(bytes);
                s.send(new DatagramPacket(bytes, bytes.length, to));
            }
        }
    }
}
