package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        public void send(ByteBuf packet, int sourcePort, InetSocketAddress destination) {
            sent++;
            super.send(packet, sourcePort, destination);
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

    @Test
    void aRunStartingWithLittleInFlightSendsItsFirst32PacketsAtOnce() {
        // 100 µs each way: the ACKs of the first run are still on their way when the second starts.
        try (SimNetwork net = new SimNetwork(41).defaults(new LinkConfig(100_000, 100_000_000_000L, 1 << 20))) {
            FlushRecordingWire wa = new FlushRecordingWire(net.attach("10.0.41.2"));
            try (RdmaDevice a = RdmaDevice.open(wa); RdmaDevice b = RdmaDevice.open(net.attach("10.0.41.3"))) {
                ProtectionDomain pa = a.allocPd();
                ProtectionDomain pb = b.allocPd();
                CompletionQueue ca = a.createCq(256);
                CompletionQueue cb = b.createCq(256);
                MemoryRegion ma = pa.registerMemory(ByteBuffer.allocateDirect(1 << 16), SimPair.ALL_ACCESS);
                MemoryRegion mb = pb.registerMemory(ByteBuffer.allocateDirect(1 << 16), SimPair.ALL_ACCESS);
                QueuePair qa = pa.createQp(QpInitAttributes.rc(ca, ca));
                QueuePair qb = pb.createQp(QpInitAttributes.rc(cb, cb));
                Connections.connectPair(qa, ma, 100, qb, mb, 200, RcOptions.defaults());

                postWrites(qa, ma, mb, 0, 40); // one run, nothing in flight before it
                net.scheduler().runFor(1_000);
                assertEquals(40, wa.sent);
                assertEquals(List.of(32), wa.flushesAfter, "the run's first 32 packets were sent at once");

                postWrites(qa, ma, mb, 40, 40); // a second run, with the first 40 still unacknowledged
                net.scheduler().runFor(1_000);
                assertEquals(80, wa.sent);
                assertEquals(List.of(32), wa.flushesAfter, "with 40 packets in flight the run holds its packets");

                qa.postSend(new SendWorkRequest().wrId(80).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                        .sge(ma.address(), 64, ma.lkey()).rdma(mb.address(), mb.rkey()));
                net.scheduler().runUntil(() -> ca.size() == 1, 1_000_000_000L);
                WorkCompletion wc = new WorkCompletion();
                ca.poll(wc);
                assertEquals(WcStatus.SUCCESS, wc.status());
                assertEquals(81, b.counters().get(Counter.RCVD_PKTS), "every packet arrived, once");
                assertEquals(0, a.counters().get(Counter.RETRANSMITTED_PKTS));
            }
        }
    }
}
