package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufUtil;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.wire.WireTap;
import io.rnic.transport.fault.Faults;
import io.rnic.transport.pcap.PcapCapture;
import io.rnic.transport.pcap.PcapFrame;
import io.rnic.transport.pcap.PcapReader;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * UD through the verbs API on the simulated network (reference §5.9, §8.5, §11.2): a destination
 * per work request, DETH on every packet, Q_Key rules, the GRH area of receive buffers, no PSN
 * check, no ACKs and no retransmission, and C10-93.1.1 for datagrams larger than the port MTU.
 */
class UdTest {
    static final int QKEY = 0x11111111;
    final SimPair p = new SimPair(41);
    final QueuePair qpA = p.pdA.createQp(QpInitAttributes.ud(p.cqA, p.cqA));
    final QueuePair qpB = p.pdB.createQp(QpInitAttributes.ud(p.cqB, p.cqB));
    final AddressHandle toB = p.pdA.createAddressHandle(AddressVector.of(p.wireB.localAddress().getAddress()));

    UdTest() {
        Connections.readyDatagram(qpA, QKEY, 0x100);
        Connections.readyDatagram(qpB, QKEY, 0x200);
    }

    @AfterEach
    void close() {
        p.close();
    }

    private void recvB(long wrId, int offset, int length) {
        qpB.postRecv(p.recvB(wrId, offset, length));
    }

    private SendWorkRequest send(long wrId, int offset, int length) {
        return p.sendA(wrId, offset, length).ud(toB, qpB.qpn(), QKEY);
    }

    @Test
    void aDatagramArrivesAfterTheGrhAreaWithItsSenderAndTheGrhFlag() {
        SimPair.fill(p.bufA, 0, 1000, 7);
        recvB(1, 0, 2048);
        qpA.postSend(send(10, 0, 1000));
        WorkCompletion s = p.await(p.cqA);
        assertEquals(WcStatus.SUCCESS, s.status());
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = p.await(p.cqB);
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(1040, r.byteLen(), "byte_len counts the 40-byte GRH area");
        assertEquals(WorkCompletion.WITH_GRH, r.wcFlags() & WorkCompletion.WITH_GRH);
        assertEquals(qpA.qpn(), r.srcQp(), "src_qp from DETH");
        assertEquals(qpB.qpn(), r.qpNum());
        assertTrue(SimPair.same(p.bufA, 0, p.bufB, 40, 1000), "the payload starts at offset 40");
        assertEquals(0, p.b.counters().get(Counter.ACKS_SENT), "a datagram is never acknowledged");
    }

    @Test
    void theGrhAreaHoldsTheIpv4HeaderOfThePacketExactlyAsTheCaptureShowsIt(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("ud.pcap");
        try (PcapCapture capture = new PcapCapture(pcap)) {
            capture.attach(p.wireA, EnumSet.of(WireTap.Direction.SENT));
            recvB(1, 0, 256);
            qpA.postSend(send(10, 0, 37));
            p.await(p.cqB);
        }
        byte[] grh = new byte[40];
        p.bufB.get(0, grh);
        byte[] frame = PcapReader.readAll(pcap).get(0).data();
        byte[] captured = Arrays.copyOfRange(frame, 14, 34); // after the Ethernet header
        assertArrayEquals(new byte[20], Arrays.copyOfRange(grh, 0, 20), "IPv4: the first 20 bytes are zero");
        assertArrayEquals(captured, Arrays.copyOfRange(grh, 20, 40), "the IPv4 header as captured: "
                + HexFormat.of().formatHex(captured));
        int total = 20 + 8 + 12 + 8 + 40 + 4; // IP, UDP, BTH, DETH, 37 bytes + 3 pad, ICRC
        assertEquals(total, ((grh[22] & 0xFF) << 8) | (grh[23] & 0xFF));
        assertArrayEquals(p.wireA.localAddress().getAddress().getAddress(), Arrays.copyOfRange(grh, 32, 36));
        assertArrayEquals(p.wireB.localAddress().getAddress().getAddress(), Arrays.copyOfRange(grh, 36, 40));
    }

    @Test
    void sendWithImmediateDeliversTheImmediateWithTheGrhFlag() {
        recvB(1, 0, 256);
        qpA.postSend(send(10, 0, 16).opcode(WrOpcode.SEND_WITH_IMM).imm(0xCAFEF00D));
        WorkCompletion r = p.await(p.cqB);
        assertEquals(0xCAFEF00D, r.immData());
        assertEquals(WorkCompletion.WITH_GRH | WorkCompletion.WITH_IMM, r.wcFlags());
        assertEquals(56, r.byteLen());
    }

    @Test
    void oneQpSendsToTwoDestinationsEachNamedByItsWorkRequest() {
        SimWire wireC = p.net.attach("10.0.0.4");
        RdmaDevice c = RdmaDevice.open(wireC);
        ProtectionDomain pdC = c.allocPd();
        CompletionQueue cqC = c.createCq(16);
        QueuePair qpC = pdC.createQp(QpInitAttributes.ud(cqC, cqC));
        Connections.readyDatagram(qpC, QKEY, 7);
        ByteBuffer bufC = ByteBuffer.allocateDirect(4096);
        MemoryRegion mrC = pdC.registerMemory(bufC, AccessFlags.LOCAL_WRITE);
        qpC.postRecv(new RecvWorkRequest().wrId(3).sge(mrC.address(), 4096, mrC.lkey()));
        recvB(2, 0, 4096);
        AddressHandle toC = p.pdA.createAddressHandle(AddressVector.of(wireC.localAddress().getAddress()));
        SimPair.fill(p.bufA, 0, 200, 1);
        qpA.postSend(send(20, 0, 100));
        qpA.postSend(send(30, 100, 100).ud(toC, qpC.qpn(), QKEY));
        assertEquals(2, p.await(p.cqA, 2).size());
        assertEquals(2, p.await(p.cqB).wrId());
        assertEquals(3, p.await(cqC).wrId());
        assertTrue(SimPair.same(p.bufA, 0, p.bufB, 40, 100));
        for (int i = 0; i < 100; i++) {
            assertEquals(p.bufA.get(100 + i), bufC.get(40 + i));
        }
        c.close();
    }

    @Test
    void aDatagramWithAnotherQkeyIsDroppedAndCountedAsAQkeyViolation() {
        recvB(1, 0, 256);
        qpA.postSend(send(10, 0, 8).ud(toB, qpB.qpn(), 0x22222222));
        assertEquals(WcStatus.SUCCESS, p.await(p.cqA).status(), "the sender does not know");
        p.settle();
        assertEquals(0, p.cqB.size());
        assertEquals(1, p.b.counters().get(Counter.QKEY_VIOL_CNTR));
        qpA.postSend(send(11, 0, 8));
        assertEquals(1, p.await(p.cqB).wrId(), "the WQE was not consumed");
    }

    @Test
    void aQkeyWithItsHighOrderBitSetInTheWorkRequestSendsTheQpsOwnQkey() {
        // Controlled Q_Keys (reference §8.5; IBA C10-15): the QP context's Q_Key goes in DETH.
        recvB(1, 0, 256);
        qpA.postSend(send(10, 0, 8).ud(toB, qpB.qpn(), 0x80000000));
        assertEquals(1, p.await(p.cqB).wrId());
        assertEquals(0, p.b.counters().get(Counter.QKEY_VIOL_CNTR));
    }

    @Test
    void theReceiverDoesNotCheckThePsn() {
        recvB(1, 0, 256);
        recvB(2, 256, 256);
        qpA.postSend(send(10, 0, 8));
        p.await(p.cqB);
        // The sender starts over at another PSN (modify RTS -> RESET -> ... -> RTS).
        qpA.modify(new QpAttributes().state(QpState.RESET));
        Connections.readyDatagram(qpA, QKEY, 0xABCDEF);
        qpA.postSend(send(11, 0, 8));
        assertEquals(2, p.await(p.cqB).wrId());
        assertEquals(0, p.b.counters().get(Counter.OUT_OF_SEQ_REQUEST) + p.b.counters().get(Counter.DUPLICATE_REQUEST));
    }

    @Test
    void aDatagramLargerThanThePortMtuIsNotSentAndCompletesSuccessfully() {
        // C10-93.1.1: no packet, no error; its PSN is used up as if it had been sent (rxe).
        var seen = Wiretap.sent(p.wireA);
        int mtu = p.a.queryPort().activeMtu().bytes();
        recvB(1, 0, 8192);
        qpA.postSend(send(10, 0, mtu + 1));
        qpA.postSend(send(11, 0, mtu));
        List<WorkCompletion> s = p.await(p.cqA, 2);
        assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS), s.stream().map(WorkCompletion::status).toList());
        assertEquals(mtu + 1, s.get(0).byteLen());
        p.await(p.cqB);
        assertEquals(1, seen.size(), "only the datagram that fits went out: " + seen);
        assertEquals(0x101, seen.get(0).psn(), "the oversized one took PSN 0x100");
        assertEquals(1, p.a.counters().get(Counter.OVERSIZED_DATAGRAMS));
    }

    @Test
    void aReceiveBufferSmallerThanPayloadPlusGrhCompletesWithALengthErrorAndTheQpCarriesOn() {
        recvB(1, 0, 40 + 99);
        recvB(2, 256, 40 + 100);
        qpA.postSend(send(10, 0, 100));
        qpA.postSend(send(11, 0, 100));
        List<WorkCompletion> r = p.await(p.cqB, 2);
        assertEquals(WcStatus.LOC_LEN_ERR, r.get(0).status());
        assertEquals(1, r.get(0).wrId());
        assertEquals(WcStatus.SUCCESS, r.get(1).status());
        assertEquals(QpState.RTS, qpB.state());
    }

    @Test
    void aDatagramWithNoReceivePostedIsDroppedWithoutAnRnrNak() {
        var seenB = Wiretap.sent(p.wireB);
        qpA.postSend(send(10, 0, 8));
        assertEquals(WcStatus.SUCCESS, p.await(p.cqA).status());
        p.settle();
        assertEquals(List.of(), seenB, "nothing goes back");
        assertEquals(1, p.b.counters().get(Counter.RCVD_DROPPED));
        recvB(1, 0, 64);
        qpA.postSend(send(11, 0, 8));
        assertEquals(1, p.await(p.cqB).wrId());
    }

    @Test
    void aLostDatagramIsLostNoRetransmissionAndTheCountsAreExact() {
        var dir = p.net.direction(p.wireA, p.wireB).fault(Faults.drop(0.2));
        int n = 500;
        QueuePair deep = p.pdB.createQp(QpInitAttributes.ud(p.cqB, p.cqB).withCaps(new QpCaps(16, n, 1, 1, 0)));
        Connections.readyDatagram(deep, QKEY, 0);
        for (int i = 0; i < n; i++) {
            deep.postRecv(new RecvWorkRequest().wrId(i).sge(p.mrB.address(), 64, p.mrB.lkey()));
        }
        for (int i = 0; i < n; i++) {
            qpA.postSend(send(i, 0, 8).ud(toB, deep.qpn(), QKEY));
            if (i % 64 == 63) {
                p.await(p.cqA, 64);
            }
        }
        p.await(p.cqA, n % 64);
        List<WorkCompletion> r = p.drain(p.cqB);
        long dropped = dir.faultStats().dropped();
        assertTrue(dropped > 50 && dropped < 150, "seeded loss near 20%: " + dropped);
        assertEquals(n - dropped, r.size());
        assertEquals(n, p.a.counters().get(Counter.SENT_PKTS));
        assertEquals(0, p.a.counters().get(Counter.RETRANSMITTED_PKTS));
        assertEquals(0, p.b.counters().get(Counter.ACKS_SENT) + p.b.counters().get(Counter.NAKS_SENT));
    }

    @Test
    void aSendCompletesOnceItIsOnTheWireEvenToAQpThatDoesNotExist() {
        qpA.postSend(send(10, 0, 8).ud(toB, 0xABCD, QKEY));
        assertEquals(WcStatus.SUCCESS, p.await(p.cqA).status());
        p.settle();
        assertEquals(1, p.b.counters().get(Counter.RCVD_UNKNOWN_QP));
    }

    @Test
    void postingWhatADatagramCannotCarryIsRefusedAndPostsNothing() {
        IllegalArgumentException rdma = assertThrows(IllegalArgumentException.class,
                () -> qpA.postSend(send(1, 0, 8).opcode(WrOpcode.RDMA_WRITE).rdma(0, 0)));
        assertTrue(rdma.getMessage().contains("cannot be posted on a UD QP"), rdma.getMessage());
        assertThrows(IllegalArgumentException.class, () -> qpA.postSend(send(1, 0, 8).opcode(WrOpcode.RDMA_READ)));
        IllegalArgumentException noAh = assertThrows(IllegalArgumentException.class,
                () -> qpA.postSend(send(1, 0, 8).ud(null, 1, QKEY)));
        assertTrue(noAh.getMessage().contains("address handle"), noAh.getMessage());
        AddressHandle otherPd = p.pdB.createAddressHandle(AddressVector.of(p.wireB.localAddress().getAddress()));
        IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
                () -> qpA.postSend(send(1, 0, 8).ud(otherPd, 1, QKEY)));
        assertTrue(foreign.getMessage().contains("belongs to another protection domain"), foreign.getMessage());
        AddressHandle gone = p.pdA.createAddressHandle(AddressVector.of(p.wireB.localAddress().getAddress()));
        gone.close();
        assertThrows(IllegalArgumentException.class, () -> qpA.postSend(send(1, 0, 8).ud(gone, 1, QKEY)));
        assertThrows(IllegalArgumentException.class, () -> qpA.postSend(send(1, 0, 8).ud(toB, 1 << 24, QKEY)));
        p.settle();
        assertEquals(0, p.a.counters().get(Counter.SENT_PKTS));
    }

    @Test
    void anAddressHandleHoldsItsProtectionDomainUntilClosed() {
        IllegalStateException e = assertThrows(IllegalStateException.class, p.pdA::close);
        assertTrue(e.getMessage().contains("address handle"), e.getMessage());
    }

    @Test
    void udPacketsAreByteForByteWhatLinuxSoftRoceSends() throws Exception {
        // shared/golden/ud_pingpong_64.pcap, first datagram: ibv_ud_pingpong -s 64 client QPN 0x14,
        // PSN 0xf3e9e4, to QPN 0x14, Q_Key 0x11111111, 64 bytes of '{', UDP source port 0xe8ea.
        String golden = "6400ffff0000001400f3e9e4" + "1111111100000014" + "7b".repeat(64);
        try (SimNetwork net = new SimNetwork(1)) {
            SimWire client = net.attach(new InetSocketAddress(InetAddress.getByName("169.254.77.12"), 4791));
            SimWire server = net.attach(new InetSocketAddress(InetAddress.getByName("169.254.77.11"), 4791));
            RdmaDevice dev = RdmaDevice.open(client);
            RdmaDevice.open(server);
            ProtectionDomain pd = dev.allocPd();
            CompletionQueue cq = dev.createCq(4);
            List<QueuePair> earlier = new ArrayList<>();
            for (int i = 0x11; i < 0x14; i++) {
                earlier.add(pd.createQp(QpInitAttributes.ud(cq, cq)));
            }
            QueuePair qp = pd.createQp(QpInitAttributes.ud(cq, cq).withCaps(new QpCaps(1, 500, 1, 1, 0)));
            assertEquals(0x14, qp.qpn());
            Connections.readyDatagram(qp, QKEY, 0xf3e9e4);
            ByteBuffer buf = ByteBuffer.allocateDirect(64 + 40);
            for (int i = 0; i < buf.capacity(); i++) {
                buf.put(i, (byte) 0x7b);
            }
            MemoryRegion mr = pd.registerMemory(buf, AccessFlags.LOCAL_WRITE);
            AddressHandle ah = pd.createAddressHandle(AddressVector.of(server.localAddress().getAddress()));
            List<String> sent = new ArrayList<>();
            int[] sourcePort = {0};
            client.addTap((d, ts, pkt, src, dst) -> {
                if (d == WireTap.Direction.SENT) {
                    sent.add(ByteBufUtil.hexDump(pkt, pkt.readerIndex(), pkt.readableBytes() - 4));
                    sourcePort[0] = src.getPort();
                }
            });
            qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                    .sge(mr.address() + 40, 64, mr.lkey()).ud(ah, 0x14, QKEY));
            net.scheduler().runUntil(() -> cq.size() > 0, 1_000_000_000L);
            assertEquals(List.of(golden), sent, "BTH, DETH and payload (the ICRC covers rxe's IP identification)");
            assertEquals(0xe8ea, sourcePort[0], "rxe's UD source port: 0xC000 + hash_32(qpn, 14)");
            assertEquals(PseudoHeader.ROCE_PORT, server.localAddress().getPort());
        }
    }
}
