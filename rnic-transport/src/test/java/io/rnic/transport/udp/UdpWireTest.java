package io.rnic.transport.udp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.epoll.Epoll;
import io.rnic.transport.fault.FaultInjectingWire;
import io.rnic.transport.fault.Faults;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class UdpWireTest {

    @Test
    void usesNativeEpollWhereAvailable() {
        try (UdpWire w = UdpWire.bind("127.0.79.1").open()) {
            assertEquals(Epoll.isAvailable(), w.isNative(), String.valueOf(Epoll.unavailabilityCause()));
        }
    }

    @Test
    void refusesTheWildcardAddress() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> UdpWire.bind("0.0.0.0").open());
        assertTrue(e.getMessage().contains("concrete IP address"), e.getMessage());
    }

    @Test
    void closeFreesThePort() {
        UdpWire.bind("127.0.79.2").open().close();
        UdpWire again = UdpWire.bind("127.0.79.2").open();
        assertEquals(4791, again.localAddress().getPort());
        again.close();
    }

    @Test
    void aTakenPortIsReportedClearly() {
        try (UdpWire w = UdpWire.bind("127.0.79.3").open()) {
            io.rnic.verbs.WireException e = assertThrows(io.rnic.verbs.WireException.class, () -> UdpWire.bind("127.0.79.3").open());
            assertTrue(e.getMessage().contains("127.0.79.3:4791"), e.getMessage());
        }
    }

    @Test
    void eachFlowSendsFromItsOwnSourcePort() {
        try (UdpWire a = UdpWire.bind("127.0.79.4").open(); UdpWire b = UdpWire.bind("127.0.79.5").open()) {
            List<Integer> ports = Collections.synchronizedList(new ArrayList<>());
            b.receiver((p, s, d) -> ports.add(s.getPort()));
            int f1 = a.openFlow(0xC132);
            int f2 = a.openFlow(0xC01A);
            assertEquals(0xC132, f1);
            assertEquals(0xC01A, f2);
            assertEquals(f1, a.openFlow(0xC132), "a flow is opened once");
            a.send(Unpooled.buffer().writeZero(16), f1, b.localAddress());
            a.send(Unpooled.buffer().writeZero(16), f2, b.localAddress());
            assertTrue(Await.until(() -> ports.size() == 2, 10_000_000_000L));
            assertTrue(ports.contains(0xC132) && ports.contains(0xC01A), ports.toString());
        }
    }

    @Test
    void malformedDatagramsAreDroppedAndCounted() throws Exception {
        try (UdpWire b = UdpWire.bind("127.0.79.6").open(); DatagramSocket s = new DatagramSocket(0, InetAddress.getByName("127.0.79.7"))) {
            List<Integer> got = Collections.synchronizedList(new ArrayList<>());
            b.receiver((p, src, d) -> got.add(p.readableBytes()));
            InetSocketAddress to = b.localAddress();
            s.send(new DatagramPacket(new byte[5], 5, to));     // shorter than BTH + ICRC
            s.send(new DatagramPacket(new byte[18], 18, to));   // not a multiple of 4
            s.send(new DatagramPacket(new byte[20], 20, to));   // plausible: handed to the receiver
            assertTrue(Await.until(() -> b.counters().malformedPackets() == 2 && got.size() == 1, 10_000_000_000L));
            assertEquals(List.of(20), got);
        }
    }

    @Test
    void faultsWrapTheUdpWireToo() {
        try (UdpWire a = UdpWire.bind("127.0.79.8").open(); UdpWire b = UdpWire.bind("127.0.79.9").open()) {
            FaultInjectingWire fa = new FaultInjectingWire(a, 11).fault(Faults.drop(0.2)).fault(Faults.duplicate(0.1));
            int[] got = {0};
            b.receiver((p, s, d) -> got[0]++);
            int n = 2000;
            List<ByteBuf> sent = new ArrayList<>();
            a.eventLoop().submit(() -> {
                for (int i = 0; i < n; i++) {
                    ByteBuf p = Unpooled.buffer().writeInt(i).writeZero(12);
                    sent.add(p);
                    fa.send(p, 4791, b.localAddress());
                }
            }).syncUninterruptibly();
            long expected = n - fa.faultStats().dropped() + fa.faultStats().duplicated();
            assertTrue(fa.faultStats().dropped() > 300 && fa.faultStats().dropped() < 500, fa.faultStats().toString());
            assertTrue(Await.until(() -> got[0] >= expected, 10_000_000_000L), got[0] + " of " + expected);
            a.eventLoop().submit(() -> { }).syncUninterruptibly();
            sent.forEach(p -> assertEquals(0, p.refCnt()));
            assertNotEquals(0, fa.faultStats().duplicated());
        }
    }

    @Test
    void aGsoTrainArrivesAsItsPacketsInOrder() {
        try (UdpWire a = UdpWire.bind("127.0.79.10").gso(Gso.ON).open(); UdpWire b = UdpWire.bind("127.0.79.11").open()) {
            org.junit.jupiter.api.Assumptions.assumeTrue(a.gso() == Gso.ON, "this kernel or transport has no UDP GSO");
            List<Integer> got = Collections.synchronizedList(new ArrayList<>());
            b.receiver((p, s, d) -> got.add(p.readableBytes() == 1024 ? p.getInt(p.readerIndex()) : -p.readableBytes()));
            a.eventLoop().submit(() -> {
                for (int i = 0; i < 40; i++) {
                    a.send(Unpooled.directBuffer().writeInt(i).writeZero(1020), 4791, b.localAddress());
                }
                a.send(Unpooled.directBuffer().writeZero(512), 4791, b.localAddress()); // a shorter last segment
            }).syncUninterruptibly();
            assertTrue(Await.until(() -> got.size() == 41, 10_000_000_000L), got.toString());
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                expected.add(i);
            }
            expected.add(-512);
            assertEquals(expected, got);
            assertEquals(1, a.counters().gsoSends(), "41 packets of one flow fit one super-datagram");
            assertEquals(41, a.counters().gsoPackets());
            assertEquals(41, a.counters().sentPackets(), "counted (and tapped) packet by packet");
        }
    }

    @Test
    void withGsoOffEveryPacketIsADatagram() {
        try (UdpWire a = UdpWire.bind("127.0.79.12").gso(Gso.OFF).open(); UdpWire b = UdpWire.bind("127.0.79.13").open()) {
            int[] got = {0};
            b.receiver((p, s, d) -> got[0]++);
            a.eventLoop().submit(() -> {
                for (int i = 0; i < 10; i++) {
                    a.send(Unpooled.directBuffer().writeZero(1024), 4791, b.localAddress());
                }
            }).syncUninterruptibly();
            assertTrue(Await.until(() -> got[0] == 10, 10_000_000_000L));
            assertEquals(0, a.counters().gsoSends());
        }
    }

    @Test
    void thousandsOfFlowsShareABoundedPoolOfSourcePorts() {
        try (UdpWire a = UdpWire.bind("127.0.79.14").open()) {
            java.util.Set<Integer> ports = new java.util.HashSet<>();
            for (int flow = 0; flow < 10_000; flow++) {
                ports.add(a.openFlow(0xC000 | (flow * 7919 & 0x3FFF)));
            }
            assertTrue(ports.size() > 1, "flows still spread over several source ports (ECMP entropy): " + ports);
            assertTrue(ports.size() <= UdpWire.SOURCE_PORT_POOL, ports.size() + " sockets for 10,000 flows");
        }
    }

    /**
     * A pooled source-port socket is connected to the first peer it sends to (the kernel keeps
     * the route with it); flows sharing it still reach other peers, from the same source port.
     */
    @Test
    void aPooledSocketConnectsToItsFirstPeerAndStillReachesOthers() {
        try (UdpWire a = UdpWire.bind("127.0.79.24").open();
             UdpWire b = UdpWire.bind("127.0.79.25").open();
             UdpWire c = UdpWire.bind("127.0.79.26").open()) {
            org.junit.jupiter.api.Assumptions.assumeTrue(a.isNative(), "only native epoll sends directly");
            List<String> got = Collections.synchronizedList(new ArrayList<>());
            b.receiver((p, s, d) -> got.add("b:" + s.getPort() + ":" + p.readableBytes()));
            c.receiver((p, s, d) -> got.add("c:" + s.getPort() + ":" + p.readableBytes()));
            int port = a.openFlow(0xC123);
            assertEquals(0xC123, port);
            assertEquals(null, a.connectedPeer(port), "connected at its first send, not before");
            a.send(Unpooled.directBuffer().writeZero(16), port, b.localAddress());
            assertTrue(Await.until(() -> got.size() == 1, 10_000_000_000L));
            assertEquals(b.localAddress(), a.connectedPeer(port));
            a.send(Unpooled.directBuffer().writeZero(20), port, c.localAddress());
            assertTrue(Await.until(() -> got.size() == 2, 10_000_000_000L));
            a.send(Unpooled.directBuffer().writeZero(24), port, b.localAddress());
            assertTrue(Await.until(() -> got.size() == 3, 10_000_000_000L));
            assertEquals(List.of("b:" + port + ":16", "c:" + port + ":20", "b:" + port + ":24"), got);
            assertEquals(b.localAddress(), a.connectedPeer(port), "the first peer keeps the connection");
            assertEquals(0, a.counters().sendErrors());
        }
    }

    /**
     * A connected socket hears its peer's port-unreachable errors, which an unconnected one
     * ignores: they are counted, and neither close the socket nor stop its later sends.
     */
    @Test
    void aPooledSocketOutlivesItsPeerGoingAwayAndComingBack() {
        try (UdpWire a = UdpWire.bind("127.0.79.27").open()) {
            org.junit.jupiter.api.Assumptions.assumeTrue(a.isNative(), "only native epoll sends directly");
            InetSocketAddress peer = new InetSocketAddress("127.0.79.28", 4791);
            List<Integer> got = Collections.synchronizedList(new ArrayList<>());
            int port = a.openFlow(0xC124);
            try (UdpWire b = UdpWire.bind("127.0.79.28").open()) {
                b.receiver((p, s, d) -> got.add(p.readableBytes()));
                a.send(Unpooled.directBuffer().writeZero(16), port, peer);
                assertTrue(Await.until(() -> got.size() == 1, 10_000_000_000L));
            }
            assertEquals(peer, a.connectedPeer(port));
            // Nobody on the port: the kernel answers with ICMP port unreachable, which the
            // connected socket reports on its next send or read.
            assertTrue(Await.until(everyMillisecond(() -> a.send(Unpooled.directBuffer().writeZero(16), port, peer),
                    () -> a.counters().sendErrors() > 0), 10_000_000_000L), "no port-unreachable error reported");
            try (UdpWire b = UdpWire.bind("127.0.79.28").open()) {
                b.receiver((p, s, d) -> got.add(p.readableBytes()));
                assertTrue(Await.until(everyMillisecond(() -> a.send(Unpooled.directBuffer().writeZero(20), port, peer),
                        () -> got.contains(20)), 10_000_000_000L), "the socket sends again once its peer is back");
            }
            assertEquals(peer, a.connectedPeer(port));
        }
    }

    /** A condition that runs {@code action} first, at most once a millisecond, while it is false. */
    private static java.util.function.BooleanSupplier everyMillisecond(Runnable action, java.util.function.BooleanSupplier done) {
        long[] next = {System.nanoTime()};
        return () -> {
            if (done.getAsBoolean()) {
                return true;
            }
            long now = System.nanoTime();
            if (now - next[0] >= 0) {
                next[0] = now + 1_000_000;
                action.run();
            }
            return false;
        };
    }

    /**
     * A GSO train's segment size stays set on the socket it left from (a socket option, set for
     * the direct send); a later single datagram longer than that segment must still leave whole,
     * and a train of another size with its own segments.
     */
    @Test
    void aTrainsSegmentSizeNeverSplitsALaterDatagramOrTrain() throws Exception {
        try (UdpWire a = UdpWire.bind("127.0.79.15").gso(Gso.ON).open();
             DatagramSocket raw = new DatagramSocket(new InetSocketAddress("127.0.79.16", 4791))) {
            org.junit.jupiter.api.Assumptions.assumeTrue(a.gso() == Gso.ON, "this kernel or transport has no UDP GSO");
            InetSocketAddress to = (InetSocketAddress) raw.getLocalSocketAddress();
            // {1300, 30, 30} and {300, 1200}: two runs on one socket, which go through Netty (one
            // sendmmsg), with the option the last direct train set cleared first.
            int[][] cycles = {{80, 80, 20}, {1100}, {200, 200}, {64}, {80, 80}, {1300, 30, 30}, {200, 200}, {300, 1200}};
            for (int[] cycle : cycles) {
                a.eventLoop().submit(() -> {
                    for (int len : cycle) {
                        a.send(Unpooled.directBuffer().writeZero(len), 4791, to);
                    }
                }).syncUninterruptibly();
            }
            raw.setSoTimeout(10_000);
            List<Integer> got = new ArrayList<>();
            DatagramPacket d = new DatagramPacket(new byte[2048], 2048);
            for (int i = 0; i < 16; i++) {
                raw.receive(d);
                got.add(d.getLength());
            }
            // The kernel splits a train for a receiver without GRO: one datagram per packet.
            assertEquals(List.of(80, 80, 20, 1100, 200, 200, 64, 80, 80, 1300, 30, 30, 200, 200, 300, 1200), got);
            assertEquals(5, a.counters().gsoSends(), "five trains; the single packets went alone");
        }
    }

    /**
     * A full GSO train leaves at once, and so does what is pending when the protocol asks
     * ({@code flushNow}: an application waits on the last packet); the rest waits for the end
     * of the cycle.
     */
    @Test
    void aFullTrainAndAFlushNowLeaveBeforeTheEndOfTheCycle() throws Exception {
        try (UdpWire a = UdpWire.bind("127.0.79.19").gso(Gso.ON).open();
             DatagramSocket raw = new DatagramSocket(new InetSocketAddress("127.0.79.20", 4791))) {
            org.junit.jupiter.api.Assumptions.assumeTrue(a.gso() == Gso.ON, "this kernel or transport has no UDP GSO");
            InetSocketAddress to = (InetSocketAddress) raw.getLocalSocketAddress();
            long[] trains = new long[4];
            a.eventLoop().submit(() -> {
                for (int i = 0; i < UdpWire.MAX_SEGMENTS - 1; i++) {
                    a.send(Unpooled.directBuffer().writeZero(80), 4791, to);
                }
                trains[0] = a.counters().gsoSends();
                a.send(Unpooled.directBuffer().writeZero(80), 4791, to);
                trains[1] = a.counters().gsoSends();
                a.send(Unpooled.directBuffer().writeZero(80), 4791, to);
                a.send(Unpooled.directBuffer().writeZero(80), 4791, to);
                trains[2] = a.counters().gsoSends();
                a.flushNow();
                trains[3] = a.counters().gsoSends();
            }).syncUninterruptibly();
            assertEquals(List.of(0L, 1L, 1L, 2L), java.util.Arrays.stream(trains).boxed().toList(),
                    "the 64th packet sent the train; flushNow sent the next two");
            raw.setSoTimeout(10_000);
            DatagramPacket d = new DatagramPacket(new byte[2048], 2048);
            for (int i = 0; i < UdpWire.MAX_SEGMENTS + 2; i++) {
                raw.receive(d);
                assertEquals(80, d.getLength());
            }
        }
    }

    /**
     * A spinning invoker reads its receive socket directly each cycle and asks epoll only now and
     * then; datagrams still arrive, and timers and tasks still run, with nothing but
     * non-waiting duty cycles.
     */
    @Test
    void aSpinningInvokerReadsItsSocketDirectlyAndStillRunsTimersAndTasks() throws Exception {
        HcaAgent invoker = HcaAgent.invoker(HcaAgent.Idle.SPIN);
        try (UdpWire w = UdpWire.bind("127.0.79.17").agent(invoker).open();
             DatagramSocket raw = new DatagramSocket(0, InetAddress.getByName("127.0.79.18"))) {
            List<Integer> got = new ArrayList<>();
            w.receiver((p, s, d) -> got.add(p.getInt(p.readerIndex())));
            boolean[] fired = {false, false};
            w.scheduler().schedule(2_000_000, () -> fired[0] = true);
            w.scheduler().execute(() -> fired[1] = true);
            for (int i = 0; i < 20; i++) {
                byte[] b = new byte[16];
                java.nio.ByteBuffer.wrap(b).putInt(i);
                raw.send(new DatagramPacket(b, b.length, w.localAddress()));
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while ((got.size() < 20 || !fired[0] || !fired[1]) && System.nanoTime() < deadline) {
                w.progress(-1);
            }
            assertEquals(20, got.size(), got.toString());
            for (int i = 0; i < 20; i++) {
                assertEquals(i, got.get(i), "in the order sent");
            }
            assertTrue(fired[0], "a 2 ms timer fired during non-waiting cycles");
            assertTrue(fired[1], "a task ran during non-waiting cycles");
        } finally {
            invoker.close();
        }
    }

    /**
     * A spinning invoker holds a cycle's ACKs for its next cycle only after a ping-pong's read
     * (the answer is about to follow and takes the ACK along); after a stream's batch the ACK
     * leaves at once, since its sender waits for it while the application works through the batch.
     */
    @Test
    void aSpinningInvokerHoldsAPingPongsAckButNotAStreamsAck() {
        HcaAgent invoker = HcaAgent.invoker(HcaAgent.Idle.SPIN);
        try (UdpWire w = UdpWire.bind("127.0.79.19").agent(invoker).gso(Gso.ON).open();
             UdpWire a = UdpWire.bind("127.0.79.20").gso(Gso.ON).open()) {
            org.junit.jupiter.api.Assumptions.assumeTrue(a.gso() == Gso.ON, "this kernel or transport has no UDP GSO");
            int[] got = {0};
            java.util.concurrent.atomic.AtomicInteger acks = new java.util.concurrent.atomic.AtomicInteger();
            a.receiver((p, s, d) -> acks.incrementAndGet());
            w.receiver(new io.rnic.core.wire.WireReceiver() {
                @Override
                public void onPacket(ByteBuf p, InetSocketAddress s, InetSocketAddress d) {
                    got[0]++;
                }

                @Override
                public void onBatchEnd() {
                    // The ACK a batch leaves owed: BTH opcode 0x11 (RC ACKNOWLEDGE).
                    w.send(Unpooled.directBuffer().writeByte(0x11).writeZero(19), 4791, a.localAddress());
                }
            });
            for (int train : new int[] {2, 16}) {
                got[0] = 0;
                acks.set(0);
                a.eventLoop().submit(() -> {
                    for (int i = 0; i < train; i++) {
                        a.send(Unpooled.directBuffer().writeZero(80), 4791, w.localAddress());
                    }
                }).syncUninterruptibly();
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (got[0] < train && System.nanoTime() < deadline) {
                    w.progress(-1); // a cycle: the train arrives whole, in one read
                }
                assertEquals(train, got[0]);
                if (train == 2) {
                    assertEquals(1, w.heldPackets(), "a ping-pong's ACK waits for the answer");
                    w.progress(-1); // the next cycle sends it
                } else {
                    assertEquals(0, w.heldPackets(), "a stream's ACK is not held");
                }
                assertTrue(Await.until(() -> acks.get() == 1, 10_000_000_000L), acks + " ACKs");
            }
        } finally {
            invoker.close();
        }
    }
}
