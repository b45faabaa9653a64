package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.wire.WireTap;
import io.rnic.transport.sim.LinkConfig;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import io.rnic.transport.udp.UdpWire;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Completion timestamps ({@code ibv_create_cq_ex} with {@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}):
 * a CQ created with {@link CqInitAttributes#withCompletionTimestamps} stamps each completion with
 * the wire's clock. On the simulated network that is virtual time, so the stamps follow exactly
 * from the links' rate and delay.
 */
class CompletionTimestampTest {
    private static final long LATENCY = 2_500;
    private static final long BPS = 10_000_000_000L;
    private static final int MSG = 1000;

    /** One packet a wire sent: when, and how many bytes went on the link. */
    record Sent(long at, int size) {
    }

    /** Two devices on a simulated network with known links, CQs that stamp, an RC pair. */
    static final class World implements AutoCloseable {
        final SimNetwork net;
        final SimWire wa;
        final SimWire wb;
        final RdmaDevice a;
        final RdmaDevice b;
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final QueuePair qpA;
        final QueuePair qpB;
        final MemoryRegion mrA;
        final MemoryRegion mrB;
        final List<Sent> sentA = new ArrayList<>();
        final List<Sent> sentB = new ArrayList<>();

        World(long seed, boolean stamps) {
            net = new SimNetwork(seed).defaults(new LinkConfig(LATENCY, BPS, 1 << 20));
            wa = net.attach("10.0.0.2");
            wb = net.attach("10.0.0.3");
            a = RdmaDevice.open(wa);
            b = RdmaDevice.open(wb);
            CqInitAttributes attrs = stamps ? CqInitAttributes.of(256).withCompletionTimestamps() : CqInitAttributes.of(256);
            cqA = a.createCq(attrs);
            cqB = b.createCq(attrs);
            ProtectionDomain pdA = a.allocPd();
            ProtectionDomain pdB = b.allocPd();
            mrA = pdA.registerMemory(ByteBuffer.allocateDirect(1 << 16), SimPair.ALL_ACCESS);
            mrB = pdB.registerMemory(ByteBuffer.allocateDirect(1 << 16), SimPair.ALL_ACCESS);
            qpA = pdA.createQp(QpInitAttributes.rc(cqA, cqA));
            qpB = pdB.createQp(QpInitAttributes.rc(cqB, cqB));
            Connections.connectPair(qpA, mrA, 100, qpB, mrB, 200, RcOptions.defaults());
            wa.addTap((dir, ts, p, s, d) -> {
                if (dir == WireTap.Direction.SENT) {
                    sentA.add(new Sent(ts, p.readableBytes()));
                }
            });
            wb.addTap((dir, ts, p, s, d) -> {
                if (dir == WireTap.Direction.SENT) {
                    sentB.add(new Sent(ts, p.readableBytes()));
                }
            });
        }

        void send(long wrId) {
            qpB.postRecv(new RecvWorkRequest().wrId(wrId).sge(mrB.address(), MSG, mrB.lkey()));
            qpA.postSend(new SendWorkRequest().wrId(wrId).opcode(WrOpcode.SEND).signaled(true)
                    .sge(mrA.address(), MSG, mrA.lkey()));
        }

        List<WorkCompletion> drain(CompletionQueue cq) {
            net.scheduler().runUntil(() -> false, 1_000_000_000L);
            List<WorkCompletion> out = new ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            while (cq.poll(wc)) {
                out.add(new WorkCompletion().set(wc));
            }
            return out;
        }

        @Override
        public void close() {
            net.close();
        }
    }

    /** The virtual time a packet sent at {@code s.at} on an idle link arrives: serialization, then the delay. */
    private static long arrival(Sent s) {
        return s.at() + s.size() * 8L * 1_000_000_000L / BPS + LATENCY;
    }

    @Test
    void onTheSimulatedNetworkAReceiveIsStampedWhenItsPacketArrivesAndASendWhenItsAckDoes() {
        try (World w = new World(4510, true)) {
            assertTrue(w.cqA.hasCompletionTimestamps());
            w.net.scheduler().runFor(10_000); // start from a known, non-zero time
            w.send(1);
            List<WorkCompletion> recv = w.drain(w.cqB);
            List<WorkCompletion> send = w.drain(w.cqA);
            assertEquals(1, recv.size());
            assertEquals(1, send.size());
            assertEquals(1, w.sentA.size(), "one SEND_ONLY packet: " + w.sentA);
            assertEquals(1, w.sentB.size(), "one ACK: " + w.sentB);
            Sent request = w.sentA.get(0);
            Sent ack = w.sentB.get(0);
            assertTrue(request.size() > MSG, "the packet carries the message and its headers: " + request);
            assertEquals(arrival(request), recv.get(0).completionTimestampNanos(),
                    "receive completion = send time + serialization + link delay");
            assertEquals(arrival(ack), send.get(0).completionTimestampNanos(),
                    "send completion = ACK's send time + its serialization + link delay");
        }
    }

    @Test
    void stampsAreNonDecreasingPerCqAndTheSameForTheSameSeed() {
        List<Long> first = run(4511);
        List<Long> second = run(4511);
        assertEquals(first, second, "a seeded simulated network gives the same stamps");
        for (int i = 1; i < first.size(); i++) {
            assertTrue(first.get(i) >= first.get(i - 1), "monotonic per CQ at " + i + ": " + first);
        }
        assertTrue(first.get(first.size() - 1) > first.get(0), "time passes across the messages");
    }

    /** 50 messages, the receive side's stamps in polling order. */
    private static List<Long> run(long seed) {
        try (World w = new World(seed, true)) {
            for (int i = 0; i < 50; i++) {
                w.send(i);
            }
            List<Long> stamps = new ArrayList<>();
            for (WorkCompletion wc : w.drain(w.cqB)) {
                stamps.add(wc.completionTimestampNanos());
            }
            assertEquals(50, stamps.size());
            return stamps;
        }
    }

    @Test
    void aCqWithoutTheOptionLeavesNoStamp() {
        try (World w = new World(4512, false)) {
            assertFalse(w.cqA.hasCompletionTimestamps());
            w.send(1);
            assertEquals(WorkCompletion.NO_TIMESTAMP, w.drain(w.cqB).get(0).completionTimestampNanos());
            assertEquals(WorkCompletion.NO_TIMESTAMP, w.drain(w.cqA).get(0).completionTimestampNanos());
        }
    }

    @Test
    void onTheUdpWireTheStampIsTheWiresMonotonicClock() throws Exception {
        try (RdmaDevice a = RdmaDevice.open(UdpWire.bind("127.0.146.1").open());
             RdmaDevice b = RdmaDevice.open(UdpWire.bind("127.0.146.2").open())) {
            CompletionQueue cqA = a.createCq(CqInitAttributes.of(16).withCompletionTimestamps());
            CompletionQueue cqB = b.createCq(CqInitAttributes.of(16).withCompletionTimestamps());
            ProtectionDomain pdA = a.allocPd();
            ProtectionDomain pdB = b.allocPd();
            MemoryRegion mrA = pdA.registerMemory(ByteBuffer.allocateDirect(4096), SimPair.ALL_ACCESS);
            MemoryRegion mrB = pdB.registerMemory(ByteBuffer.allocateDirect(4096), SimPair.ALL_ACCESS);
            QueuePair qpA = pdA.createQp(QpInitAttributes.rc(cqA, cqA));
            QueuePair qpB = pdB.createQp(QpInitAttributes.rc(cqB, cqB));
            Connections.connectPair(qpA, mrA, 1, qpB, mrB, 2, RcOptions.defaults());
            qpB.postRecv(new RecvWorkRequest().wrId(7).sge(mrB.address(), 64, mrB.lkey()));
            long before = System.nanoTime();
            qpA.postSend(new SendWorkRequest().wrId(7).opcode(WrOpcode.SEND).signaled(true)
                    .sge(mrA.address(), 64, mrA.lkey()));
            WorkCompletion recv = new WorkCompletion();
            WorkCompletion send = new WorkCompletion();
            long limit = 30_000_000_000L;
            assertTrue(cqB.await(limit) && cqB.poll(recv));
            assertTrue(cqA.await(limit) && cqA.poll(send));
            long after = System.nanoTime();
            assertTrue(recv.completionTimestampNanos() >= before && recv.completionTimestampNanos() <= after,
                    before + " <= " + recv.completionTimestampNanos() + " <= " + after);
            assertTrue(send.completionTimestampNanos() >= before && send.completionTimestampNanos() <= after,
                    before + " <= " + send.completionTimestampNanos() + " <= " + after);
        }
    }
}
