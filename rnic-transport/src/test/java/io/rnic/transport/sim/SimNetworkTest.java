package io.rnic.transport.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.packet.DecodeResult;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketDecoder;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.transport.fault.FaultStats;
import io.rnic.transport.fault.Faults;
import io.rnic.transport.fault.PacketMatch;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimNetworkTest {
    private final PacketEncoder encoder = new PacketEncoder();
    private final RocePacket view = new RocePacket();

    /** An RC SEND Only (or ACK when {@code ack}) from a to b with a valid ICRC. */
    private ByteBuf roce(SimWire from, SimWire to, int psn, boolean ack, int payload) {
        PacketFields f = new PacketFields().opcode(OpcodeTable.byName(ack ? "RC_ACKNOWLEDGE" : "RC_SEND_ONLY"))
                .payload(new byte[ack ? 0 : payload]);
        f.destQp = 0x11;
        f.psn = psn;
        PseudoHeader ph = new PseudoHeader().addresses(from.localAddress().getAddress(), to.localAddress().getAddress())
                .ports(4791, 4791);
        ByteBuf buf = Unpooled.buffer();
        encoder.encode(f, ph, buf, view);
        return buf;
    }

    private static int psnOf(ByteBuf p) {
        return p.getUnsignedMedium(p.readerIndex() + 9);
    }

    @Test
    void arrivalTimeIsSerializationPlusLatencyAndPacketsQueueBehindEachOther() {
        SimNetwork net = new SimNetwork(1).defaults(new LinkConfig(1_000, 1_000_000_000L, 0));
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        List<Long> arrivals = new ArrayList<>();
        b.receiver((p, s, d) -> arrivals.add(net.scheduler().nanoTime()));
        a.send(Unpooled.buffer().writeZero(1000), 4791, b.localAddress());
        a.send(Unpooled.buffer().writeZero(1000), 4791, b.localAddress());
        net.scheduler().runUntilIdle();
        // 1000 bytes at 1 Gb/s = 8 µs on the wire, then 1 µs of propagation.
        assertEquals(List.of(9_000L, 17_000L), arrivals);
    }

    @Test
    void aFullQueueDropsAtTheTail() {
        SimNetwork net = new SimNetwork(1).defaults(new LinkConfig(0, 1_000_000_000L, 3000));
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        int[] got = {0};
        b.receiver((p, s, d) -> got[0]++);
        List<ByteBuf> sent = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ByteBuf p = Unpooled.buffer().writeZero(1000);
            sent.add(p);
            a.send(p, 4791, b.localAddress());
        }
        net.scheduler().runUntilIdle();
        LinkDirection ab = net.direction(a, b);
        assertEquals(10, got[0] + ab.queueDrops());
        assertTrue(ab.queueDrops() >= 6, "only about 3 KB fit behind the packet on the wire: " + ab.queueDrops());
        sent.forEach(p -> assertEquals(0, p.refCnt()));
    }

    @Test
    void aPacketThatExactlyFillsTheQueueIsKeptAndTheBacklogCountsWholeBytes() {
        // At 3 Gb/s a 1000-byte packet takes 2666 ns; sent together, the third waits behind a
        // backlog of 5332 ns = 1999.5 bytes, counted as 1999: with it the queue holds 2999 bytes.
        assertEquals(3, deliveredAtOnce(2999));
        assertEquals(2, deliveredAtOnce(2998));
        // Behind one packet the backlog is 2666 ns = 999.75 bytes, counted as 999: 1999 fit.
        assertEquals(2, deliveredAtOnce(1999));
        assertEquals(1, deliveredAtOnce(1000));
        assertEquals(0, deliveredAtOnce(999)); // larger than the queue: dropped even on an idle link
    }

    /** Ten 1000-byte packets sent at once over 3 Gb/s with a queue of {@code limit} bytes: how many arrive. */
    private static int deliveredAtOnce(long limit) {
        SimNetwork net = new SimNetwork(1).defaults(new LinkConfig(0, 3_000_000_000L, limit));
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        int[] got = {0};
        b.receiver((p, s, d) -> got[0]++);
        for (int i = 0; i < 10; i++) {
            a.send(Unpooled.buffer().writeZero(1000), 4791, b.localAddress());
        }
        net.scheduler().runUntilIdle();
        assertEquals(10 - got[0], net.direction(a, b).queueDrops());
        return got[0];
    }

    @Test
    void aTenSecondTimerRunsInVirtualTime() {
        SimNetwork net = new SimNetwork(1);
        boolean[] fired = {false};
        net.scheduler().schedule(10_000_000_000L, () -> fired[0] = true);
        long wall = System.nanoTime();
        net.scheduler().runUntilIdle();
        assertTrue(fired[0]);
        assertEquals(10_000_000_000L, net.scheduler().nanoTime());
        assertTrue(System.nanoTime() - wall < 5_000_000_000L);
    }

    @Test
    void aFailingTaskIsCountedAndTheRunGoesOn() {
        SimNetwork net = new SimNetwork(1);
        boolean[] later = {false};
        net.scheduler().schedule(1, () -> {
            throw new IllegalStateException("task failure");
        });
        net.scheduler().schedule(2, () -> later[0] = true);
        net.scheduler().runUntilIdle();
        assertTrue(later[0]);
        assertEquals(1, net.scheduler().errors());
    }

    /** The whole delivered trace (time, direction, bytes) of a faulty two-way run. */
    private byte[] traceDigest(long seed) throws Exception {
        SimNetwork net = new SimNetwork(seed).defaults(new LinkConfig(2_000, 10_000_000_000L, 256 * 1024));
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        for (LinkDirection d : new LinkDirection[] {net.direction(a, b), net.direction(b, a)}) {
            d.fault(Faults.drop(0.05)).fault(Faults.reorder(0.05, 20_000)).fault(Faults.duplicate(0.01))
                    .fault(Faults.corrupt(0.01)).fault(Faults.truncate(0.005));
        }
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        for (SimWire w : new SimWire[] {a, b}) {
            w.receiver((p, s, d) -> {
                md.update(Long.toString(net.scheduler().nanoTime()).getBytes());
                md.update(d.toString().getBytes());
                byte[] bytes = new byte[p.readableBytes()];
                p.getBytes(p.readerIndex(), bytes);
                md.update(bytes);
            });
        }
        for (int i = 0; i < 5000; i++) {
            a.send(roce(a, b, i, false, i % 300), 4791, b.localAddress());
            b.send(roce(b, a, i, true, 0), 4791, a.localAddress());
            if (i % 16 == 0) {
                net.scheduler().runFor(3_000);
            }
        }
        net.scheduler().runUntilIdle();
        return md.digest();
    }

    @Test
    void theSameSeedGivesTheSameDeliveredBytesBitForBit() throws Exception {
        byte[] first = traceDigest(42);
        assertArrayEquals(first, traceDigest(42));
        assertFalse(java.util.Arrays.equals(first, traceDigest(43)), "another seed, another run");
    }

    @Test
    void randomFaultRatesStayWithinBoundsForASeed() {
        SimNetwork net = new SimNetwork(7).defaults(new LinkConfig(1_000, 0, 0));
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        net.direction(a, b).fault(Faults.drop(0.05)).fault(Faults.duplicate(0.01)).fault(Faults.reorder(0.05, 5_000))
                .fault(Faults.corrupt(0.001));
        int[] got = {0};
        b.receiver((p, s, d) -> got[0]++);
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            a.send(Unpooled.buffer(16).writeInt(i).writeZero(12), 4791, b.localAddress());
        }
        net.scheduler().runUntilIdle();
        FaultStats st = net.direction(a, b).faultStats();
        assertEquals(n, st.offered());
        assertBetween(st.dropped(), 0.045 * n, 0.055 * n, "dropped");
        assertBetween(st.duplicated(), 0.008 * n, 0.012 * n, "duplicated");
        assertBetween(st.delayed(), 0.045 * n, 0.055 * n, "delayed");
        assertBetween(st.corrupted(), 0.0005 * n, 0.0015 * n, "corrupted");
        assertEquals(n - st.dropped() + st.duplicated(), got[0]);
    }

    private static void assertBetween(long v, double lo, double hi, String what) {
        assertTrue(v >= lo && v <= hi, what + " = " + v + " not in [" + lo + ", " + hi + "]");
    }

    @Test
    void reorderingLetsLaterPacketsOvertake() {
        SimNetwork net = new SimNetwork(3).defaults(new LinkConfig(1_000, 0, 0));
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        net.direction(a, b).fault(Faults.reorder(0.2, 50_000));
        List<Integer> order = new ArrayList<>();
        b.receiver((p, s, d) -> order.add(p.getInt(p.readerIndex())));
        for (int i = 0; i < 1000; i++) {
            a.send(Unpooled.buffer(16).writeInt(i).writeZero(12), 4791, b.localAddress());
            net.scheduler().runFor(500);
        }
        net.scheduler().runUntilIdle();
        assertEquals(1000, order.size());
        int inversions = 0;
        for (int i = 1; i < order.size(); i++) {
            if (order.get(i) < order.get(i - 1)) {
                inversions++;
            }
        }
        assertTrue(inversions > 50, "inversions: " + inversions);
    }

    @Test
    void corruptionIsCaughtByTheIcrc() {
        SimNetwork net = new SimNetwork(5);
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        net.direction(a, b).fault(Faults.corrupt(1.0));
        PacketDecoder decoder = new PacketDecoder();
        RocePacket v = new RocePacket();
        List<DecodeResult> results = new ArrayList<>();
        b.receiver((p, s, d) -> {
            PseudoHeader ph = new PseudoHeader().addresses(s.getAddress(), d.getAddress()).ports(s.getPort(), d.getPort());
            results.add(decoder.decode(p, p.readerIndex(), p.readableBytes(), ph, v));
        });
        for (int i = 0; i < 200; i++) {
            a.send(roce(a, b, i, false, 64), 4791, b.localAddress());
        }
        net.scheduler().runUntilIdle();
        assertEquals(200, results.size());
        long caught = results.stream().filter(r -> !r.ok()).count();
        // A flip in BTH byte 4 (FECN/BECN/reserved) is masked out of the ICRC by design.
        assertTrue(caught >= 195, "corrupted packets rejected: " + caught + " " + results);
    }

    @Test
    void truncationShortensPackets() {
        SimNetwork net = new SimNetwork(5);
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        net.direction(a, b).fault(Faults.truncate(1.0));
        List<Integer> lengths = new ArrayList<>();
        b.receiver((p, s, d) -> lengths.add(p.readableBytes()));
        a.send(Unpooled.buffer().writeZero(100), 4791, b.localAddress());
        net.scheduler().runUntilIdle();
        assertEquals(1, lengths.size());
        assertTrue(lengths.get(0) < 100);
    }

    @Test
    void scriptedDropOfOnePsnHappensOnce() {
        SimNetwork net = new SimNetwork(1);
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        net.direction(a, b).fault(Faults.dropPsnOnce(0x11, 3));
        List<Integer> psns = new ArrayList<>();
        b.receiver((p, s, d) -> psns.add(psnOf(p)));
        for (int psn : new int[] {1, 2, 3, 4, 3}) {
            a.send(roce(a, b, psn, false, 8), 4791, b.localAddress());
        }
        net.scheduler().runUntilIdle();
        assertEquals(List.of(1, 2, 4, 3), psns, "the first PSN 3 is lost, its retransmission arrives");
    }

    @Test
    void scriptedDropOfTheKthAck() {
        SimNetwork net = new SimNetwork(1);
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        net.direction(b, a).fault(Faults.dropNthAck(2));
        List<Integer> psns = new ArrayList<>();
        a.receiver((p, s, d) -> psns.add(psnOf(p)));
        for (int psn = 10; psn < 14; psn++) {
            b.send(roce(b, a, psn, true, 0), 4791, a.localAddress());
        }
        net.scheduler().runUntilIdle();
        assertEquals(List.of(10, 12, 13), psns);
    }

    @Test
    void scriptedDelayPastTheNextPacket() {
        SimNetwork net = new SimNetwork(1);
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        net.direction(a, b).fault(Faults.delayPastNext(PacketMatch.psn(-1, 5)));
        List<Integer> psns = new ArrayList<>();
        b.receiver((p, s, d) -> psns.add(psnOf(p)));
        for (int psn = 4; psn < 8; psn++) {
            a.send(roce(a, b, psn, false, 8), 4791, b.localAddress());
        }
        net.scheduler().runUntilIdle();
        assertEquals(List.of(4, 6, 5, 7), psns);
    }

    @Test
    void aHeldPacketIsReleasedEvenIfNoNextPacketComes() {
        SimNetwork net = new SimNetwork(1);
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        net.direction(a, b).fault(Faults.delayPastNext(PacketMatch.any()));
        List<Long> at = new ArrayList<>();
        b.receiver((p, s, d) -> at.add(net.scheduler().nanoTime()));
        a.send(roce(a, b, 1, false, 8), 4791, b.localAddress());
        net.scheduler().runUntilIdle();
        assertEquals(1, at.size());
        assertTrue(at.get(0) >= LinkDirection.HOLD_LIMIT_NANOS);
    }

    @Test
    void closingTheNetworkReleasesPacketsInFlight() {
        SimNetwork net = new SimNetwork(1).defaults(new LinkConfig(1_000_000, 0, 0));
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        ByteBuf p = Unpooled.buffer().writeZero(64);
        a.send(p, 4791, b.localAddress());
        assertEquals(1, p.refCnt());
        net.close();
        assertEquals(0, p.refCnt());
        assertEquals(1, net.direction(a, b).lostInFlight());
    }

    @Test
    void badArgumentsAreRefusedWithAReason() {
        SimNetwork net = new SimNetwork(1);
        SimWire a = net.attach("10.0.0.1");
        IllegalArgumentException dup = assertThrows(IllegalArgumentException.class, () -> net.attach("10.0.0.1"));
        assertTrue(dup.getMessage().contains("already attached"));
        assertThrows(IllegalArgumentException.class, () -> net.attach(new InetSocketAddress("0.0.0.0", 4791)));
        assertThrows(IllegalArgumentException.class, () -> net.link(a, a));
        assertThrows(IllegalArgumentException.class, () -> Faults.drop(1.5));
        assertThrows(IllegalArgumentException.class, () -> new LinkConfig(-1, 0, 0));
        assertNotEquals(null, a.toString());
    }

    @Test
    void closingTheNetworkReleasesAHeldPacketAndPacketsDelayedByAFaultyWire() {
        SimNetwork net = new SimNetwork(1);
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        net.direction(a, b).fault(Faults.delayPastNext(PacketMatch.any()));
        io.rnic.transport.fault.FaultInjectingWire fb = new io.rnic.transport.fault.FaultInjectingWire(b, 3)
                .fault(Faults.reorder(1.0, 10_000_000));
        ByteBuf held = Unpooled.buffer().writeZero(16);
        ByteBuf delayed = Unpooled.buffer().writeZero(16);
        a.send(held, 4791, b.localAddress());
        fb.send(delayed, 4791, a.localAddress());
        net.scheduler().runFor(1_000); // the held packet waits for a next one; the other for its delay
        fb.close();
        net.close();
        assertEquals(0, held.refCnt(), "held by the link's hold-for-next fault");
        assertEquals(0, delayed.refCnt(), "delayed by the fault-injecting wire");
    }

    /** A network with two wires, for the ICRC offload's tests. */
    private record Two(SimNetwork net, SimWire a, SimWire b) {
        /** Sends a copy of {@code sealed} from a to b unsealed, and runs the network until idle. */
        void sendUnsealed(ByteBuf sealed) {
            a.sendUnsealed(unsealed(sealed), 4791, b.localAddress());
            net.scheduler().runUntilIdle();
        }
    }

    private static Two two() {
        SimNetwork net = new SimNetwork(1);
        return new Two(net, net.attach("10.0.0.1"), net.attach("10.0.0.2"));
    }

    /** The ICRC field (the last four bytes) of a packet, and an unsealed copy with it zeroed. */
    private static int icrcField(ByteBuf p) {
        return p.getIntLE(p.writerIndex() - 4);
    }

    private static ByteBuf unsealed(ByteBuf sealed) {
        ByteBuf u = sealed.copy();
        u.setIntLE(u.writerIndex() - 4, 0);
        return u;
    }

    /** What a receiver was handed: the ICRC field it saw, and whether the wire vouched for it. */
    private record Handed(int icrc, boolean intact) {
    }

    private static List<Handed> handedTo(SimWire w) {
        List<Handed> got = new ArrayList<>();
        w.receiver(new io.rnic.core.wire.WireReceiver() {
            @Override
            public void onPacket(ByteBuf p, java.net.InetSocketAddress s, java.net.InetSocketAddress d) {
                got.add(new Handed(icrcField(p), false));
            }

            @Override
            public void onIntactPacket(ByteBuf p, java.net.InetSocketAddress s, java.net.InetSocketAddress d) {
                got.add(new Handed(icrcField(p), true));
            }

            @Override
            public boolean takesIntactPackets() {
                return true;
            }
        });
        return got;
    }

    @Test
    void icrcOffloadLeavesAnUntappedFaultFreePacketUnsealedAndVouchesForIt() {
        Two t = two();
        SimWire a = t.a();
        SimWire b = t.b();
        List<Handed> got = handedTo(b);
        ByteBuf sealed = roce(a, b, 5, false, 16);
        assertTrue(a.offloadsIcrc(), "the simulated network offloads the ICRC by default");
        a.sendUnsealed(unsealed(sealed), 4791, b.localAddress());
        a.send(sealed.copy(), 4791, b.localAddress());
        t.net().scheduler().runUntilIdle();
        // No one saw the first packet's bytes: no CRC was spent on them. A packet sent sealed is
        // never vouched for: its ICRC may be wrong on purpose (a test's crafted packet).
        assertEquals(List.of(new Handed(0, true), new Handed(icrcField(sealed), false)), got);
    }

    @Test
    void icrcOffloadSealsAPacketWhereATapSeesItWithTheBytesTheSenderWouldHaveWritten() {
        Two t = two();
        SimWire a = t.a();
        SimWire b = t.b();
        List<Handed> got = handedTo(b);
        List<Integer> tapped = new ArrayList<>();
        b.addTap((dir, ts, p, s, d) -> tapped.add(icrcField(p)));
        ByteBuf sealed = roce(a, b, 5, false, 16);
        t.sendUnsealed(sealed);
        assertEquals(List.of(icrcField(sealed)), tapped, "the receiving wire's tap sees the sealed packet");
        assertEquals(List.of(new Handed(icrcField(sealed), true)), got, "and the receiver may still skip the check");

        List<Integer> sentTap = new ArrayList<>();
        a.addTap((dir, ts, p, s, d) -> sentTap.add(icrcField(p)));
        t.sendUnsealed(sealed);
        assertEquals(List.of(icrcField(sealed)), sentTap, "the sending wire's tap sees it sealed too");
    }

    @Test
    void icrcOffloadSealsEveryPacketOnALinkWithFaultsAndVouchesForNone() {
        Two t = two();
        SimWire a = t.a();
        SimWire b = t.b();
        List<Handed> got = handedTo(b);
        // A fault model may read the packet, rewrite it and re-seal it, or damage it: it must see
        // the real ICRC, and the receiver must check what arrives.
        List<Integer> seenByFault = new ArrayList<>();
        t.net().direction(a, b).fault(f -> seenByFault.add(icrcField(f.packet())));
        ByteBuf sealed = roce(a, b, 5, false, 16);
        t.sendUnsealed(sealed);
        assertEquals(List.of(icrcField(sealed)), seenByFault);
        assertEquals(List.of(new Handed(icrcField(sealed), false)), got);
    }

    @Test
    void icrcOffloadSealsAnIntactPacketForAReceiverThatDoesNotTakeThem() {
        Two t = two();
        SimWire a = t.a();
        SimWire b = t.b();
        // A receiver that forwards packets (a decorator's batching, a test's recorder) sees the
        // bytes a sealing HCA would have sent.
        List<Integer> got = new ArrayList<>();
        b.receiver((p, s, d) -> got.add(icrcField(p)));
        ByteBuf sealed = roce(a, b, 5, false, 16);
        t.sendUnsealed(sealed);
        assertEquals(List.of(icrcField(sealed)), got);
    }

    @Test
    void withIcrcOffloadOffSendUnsealedIsRefusedAndReleasesThePacket() {
        SimNetwork net = new SimNetwork(1).icrcOffload(false);
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        assertFalse(a.offloadsIcrc());
        ByteBuf p = unsealed(roce(a, b, 5, false, 16));
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> a.sendUnsealed(p, 4791, b.localAddress()));
        assertTrue(e.getMessage().contains("offload is off"), e.getMessage());
        assertEquals(0, p.refCnt());
    }
}
