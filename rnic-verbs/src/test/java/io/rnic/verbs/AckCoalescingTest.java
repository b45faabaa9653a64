package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.rnic.core.wire.WireReceiver;
import io.rnic.transport.ForwardingWire;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ACK coalescing (reference §5.1: an ACK acknowledges its PSN and every PSN before it): a
 * responder acknowledges each receive batch once, with the newest PSN it owes an ACK for, and
 * the requester completes every message the ACK covers.
 */
class AckCoalescingTest {

    /** A simulated wire that hands arriving packets over in batches, as one read of a socket would. */
    static final class BatchingWire extends ForwardingWire {
        private final long windowNanos;
        private final List<ByteBuf> packets = new ArrayList<>();
        private final List<InetSocketAddress> sources = new ArrayList<>();
        private WireReceiver receiver;
        int batches;

        BatchingWire(SimWire inner, long windowNanos) {
            super(inner);
            this.windowNanos = windowNanos;
        }

        @Override
        public void receiver(WireReceiver r) {
            this.receiver = r;
            inner.receiver((p, s, d) -> {
                if (packets.isEmpty()) {
                    inner.scheduler().schedule(windowNanos, this::deliver);
                }
                packets.add(p.retain());
                sources.add(s);
            });
        }

        private void deliver() {
            batches++;
            for (int i = 0; i < packets.size(); i++) {
                ByteBuf p = packets.get(i);
                try {
                    receiver.onPacket(p, sources.get(i), inner.localAddress());
                } finally {
                    p.release();
                }
            }
            packets.clear();
            sources.clear();
            receiver.onBatchEnd();
        }
    }

    @Test
    void oneAckPerReceiveBatchCoversEveryPsnBeforeIt() {
        try (SimNetwork net = new SimNetwork(5)) {
            BatchingWire wb = new BatchingWire(net.attach("10.0.5.3"), 5_000);
            try (RdmaDevice a = RdmaDevice.open(net.attach("10.0.5.2")); RdmaDevice b = RdmaDevice.open(wb)) {
                ProtectionDomain pa = a.allocPd();
                ProtectionDomain pb = b.allocPd();
                CompletionQueue ca = a.createCq(64);
                CompletionQueue cb = b.createCq(64);
                MemoryRegion ma = pa.registerMemory(ByteBuffer.allocateDirect(4096), SimPair.ALL_ACCESS);
                MemoryRegion mb = pb.registerMemory(ByteBuffer.allocateDirect(4096), SimPair.ALL_ACCESS);
                QueuePair qa = pa.createQp(QpInitAttributes.rc(ca, ca));
                QueuePair qb = pb.createQp(QpInitAttributes.rc(cb, cb));
                Connections.connectPair(qa, ma, 100, qb, mb, 200, RcOptions.defaults());
                for (int i = 0; i < 32; i++) {
                    qa.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                            .sge(ma.address() + 64L * i, 64, ma.lkey()).rdma(mb.address() + 64L * i, mb.rkey()));
                }
                net.scheduler().runUntil(() -> ca.size() == 32, 1_000_000_000L);
                WorkCompletion wc = new WorkCompletion();
                for (int i = 0; i < 32; i++) {
                    assertTrue(ca.poll(wc));
                    assertEquals(i, wc.wrId());
                    assertEquals(WcStatus.SUCCESS, wc.status());
                }
                assertEquals(1, wb.batches, "the 32 WRITEs arrived in one batch");
                assertEquals(1, b.counters().get(Counter.ACKS_SENT), "and were acknowledged once, at the last PSN");
                assertEquals(32, b.counters().get(Counter.RCVD_PKTS));
                assertEquals(0, a.counters().get(Counter.RETRANSMITTED_PKTS));
            }
        }
    }

    @Test
    void withoutBatchesEveryAckRequestIsAnsweredAtOnce() {
        try (SimPair p = new SimPair(6)) {
            QueuePair qa = p.pdA.createQp(QpInitAttributes.rc(p.cqA, p.cqA));
            QueuePair qb = p.pdB.createQp(QpInitAttributes.rc(p.cqB, p.cqB));
            Connections.connectPair(qa, p.mrA, 100, qb, p.mrB, 200, RcOptions.defaults());
            for (int i = 0; i < 32; i++) {
                qa.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                        .sge(p.mrA.address() + 64L * i, 64, p.mrA.lkey()).rdma(p.mrB.address() + 64L * i, p.mrB.rkey()));
            }
            p.net.scheduler().runUntil(() -> p.cqA.size() == 32, 1_000_000_000L);
            assertEquals(32, p.cqA.size());
            assertEquals(32, p.b.counters().get(Counter.ACKS_SENT), "the simulated network delivers one packet per batch");
        }
    }
}
