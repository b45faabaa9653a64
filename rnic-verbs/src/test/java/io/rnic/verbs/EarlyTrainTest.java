package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.rnic.transport.ForwardingWire;
import io.rnic.transport.sim.LinkConfig;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The requester's early train: a run that starts with little in flight asks its wire to send the
 * first 32 packets at once, so that the responder, which has less than that to work on, starts
 * while the rest of the burst is built. A hint to the wire ({@code flushNow}); the packets and
 * their order are the same either way.
 */
class EarlyTrainTest {

    /** Counts the packets a device sends, and notes that count at every flush hint. */
    static final class FlushRecordingWire extends ForwardingWire {
        int sent;
        final List<Integer> flushesAfter = new ArrayList<>();

        FlushRecordingWire(SimWire inner) {
            super(inner);
        }

        @Override
        public void send(ByteBuf packet, int sourcePort, InetSocketAddress destination, int tos) {
            sent++;
            super.send(packet, sourcePort, destination, tos);
        }

        @Override
        public void flushNow() {
            flushesAfter.add(sent);
            super.flushNow();
        }
    }

    private static void postWrites(QueuePair qp, MemoryRegion local, MemoryRegion remote, int first, int count) {
        for (int i = first; i < first + count; i++) {
            qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE)
                    .sge(local.address() + 64L * i, 64, local.lkey()).rdma(remote.address() + 64L * i, remote.rkey()));
        }
    }

    /** A connected pair over 100 µs links (ACKs are still on their way when a second run starts), A's wire recorded. */
    private static final class Pair implements AutoCloseable {
        final SimNetwork net = new SimNetwork(41).defaults(new LinkConfig(100_000, 100_000_000_000L, 1 << 20));
        final FlushRecordingWire wa = new FlushRecordingWire(net.attach("10.0.41.2"));
        final RdmaDevice a = RdmaDevice.open(wa);
        final RdmaDevice b = RdmaDevice.open(net.attach("10.0.41.3"));
        final CompletionQueue ca = a.createCq(256);
        final MemoryRegion ma;
        final MemoryRegion mb;
        final QueuePair qa;

        Pair(boolean reliable) {
            ProtectionDomain pa = a.allocPd();
            ProtectionDomain pb = b.allocPd();
            CompletionQueue cb = b.createCq(256);
            ma = pa.registerMemory(ByteBuffer.allocateDirect(1 << 16), SimPair.ALL_ACCESS);
            mb = pb.registerMemory(ByteBuffer.allocateDirect(1 << 16), SimPair.ALL_ACCESS);
            qa = pa.createQp(reliable ? QpInitAttributes.rc(ca, ca) : QpInitAttributes.uc(ca, ca));
            QueuePair qb = pb.createQp(reliable ? QpInitAttributes.rc(cb, cb) : QpInitAttributes.uc(cb, cb));
            Connections.connectPair(qa, ma, 100, qb, mb, 200, RcOptions.defaults());
        }

        /** Posts {@code count} unsignaled 64-byte WRITEs as one run, and sends them. */
        void run(int first, int count) {
            postWrites(qa, ma, mb, first, count);
            net.scheduler().runFor(1_000);
        }

        @Override
        public void close() {
            b.close();
            a.close();
            net.close();
        }
    }

    @Test
    void aRunStartingWithLittleInFlightSendsItsFirst32PacketsAtOnce() {
        try (Pair p = new Pair(true)) {
            p.run(0, 40); // nothing in flight before it
            assertEquals(40, p.wa.sent);
            assertEquals(List.of(32), p.wa.flushesAfter, "the run's first 32 packets were sent at once");

            p.run(40, 40); // the first 40 still unacknowledged
            assertEquals(80, p.wa.sent);
            assertEquals(List.of(32), p.wa.flushesAfter, "with 40 packets in flight the run holds its packets");

            p.qa.postSend(new SendWorkRequest().wrId(80).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(p.ma.address(), 64, p.ma.lkey()).rdma(p.mb.address(), p.mb.rkey()));
            p.net.scheduler().runUntil(() -> p.ca.size() == 1, 1_000_000_000L);
            WorkCompletion wc = new WorkCompletion();
            assertTrue(p.ca.poll(wc));
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(81, p.b.counters().get(Counter.RCVD_PKTS), "every packet arrived, once");
            assertEquals(0, p.a.counters().get(Counter.RETRANSMITTED_PKTS));
        }
    }

    @Test
    void anUnacknowledgedTransportNeverSendsAnEarlyTrain() {
        // UC keeps nothing in flight: its requester never waits for the responder.
        try (Pair p = new Pair(false)) {
            p.run(0, 40);
            p.run(40, 40);
            assertEquals(80, p.wa.sent);
            assertEquals(List.of(), p.wa.flushesAfter);
            p.net.scheduler().runFor(1_000_000);
            assertEquals(80, p.b.counters().get(Counter.RCVD_PKTS));
        }
    }
}
