package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * Congestion control adds no allocation per packet: a DCQCN QP streaming RDMA WRITEs, paced
 * (every packet waits on the congestion gate and the pacing alarm runs the requester again),
 * allocates no more per packet than the same stream without congestion control, within half the
 * smallest object (the stream itself allocates a few bytes per packet, per message and ACK, and
 * the figure varies by a byte or so from run to run). Measured as heap bytes this thread
 * allocates per packet sent, after a warm-up round.
 */
class CongestionControlAllocationTest {
    private static final com.sun.management.ThreadMXBean BEAN =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int MESSAGES = 400;
    private static final int SIZE = 16 * 1024;

    /**
     * Heap bytes per packet A sends, over the second of two rounds of {@link #MESSAGES} WRITEs;
     * {@code elapsed[0]} gets that round's virtual time.
     */
    private static double bytesPerPacket(DeviceConfig config, long[] elapsed) {
        try (RcFixture f = new RcFixture(1, config, RcOptions.defaults().withMtu(PathMtu.MTU_1024), 0x100, 0x200,
                QpCaps.defaults(), false)) {
            SendWorkRequest wr = new SendWorkRequest().opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(f.mrA.address(), SIZE, f.mrA.lkey()).rdma(f.mrB.address(), f.mrB.rkey());
            WorkCompletion wc = new WorkCompletion();
            long[] bytes = new long[2];
            long[] packets = new long[2];
            for (int round = 0; round < 2; round++) {
                long tid = Thread.currentThread().getId();
                long sentBefore = f.a.counters().get(Counter.SENT_PKTS);
                long start = f.net.scheduler().nanoTime();
                if (round == 1) {
                    // A CNP halves a DCQCN QP's rate (a QP without congestion control ignores it):
                    // the round then runs paced below the link's rate.
                    io.rnic.core.packet.PacketFields cnp = new io.rnic.core.packet.PacketFields()
                            .opcode(io.rnic.core.packet.OpcodeTable.of(0x81));
                    cnp.destQp = f.qpA.qpn();
                    cnp.pkey = 0xFFFF;
                    Wiretap.inject(f.wireB, f.qpB.sourcePort(), f.wireA, cnp);
                }
                long before = BEAN.getThreadAllocatedBytes(tid);
                int done = 0;
                int posted = 0;
                while (done < MESSAGES) {
                    while (posted < MESSAGES && posted - done < 8) {
                        f.qpA.postSend(wr.wrId(posted));
                        posted++;
                    }
                    f.net.scheduler().runUntil(() -> f.cqA.size() > 0, 1_000_000_000L);
                    while (f.cqA.poll(wc)) {
                        assertEquals(WcStatus.SUCCESS, wc.status());
                        done++;
                    }
                }
                bytes[round] = BEAN.getThreadAllocatedBytes(tid) - before;
                elapsed[0] = f.net.scheduler().nanoTime() - start;
                packets[round] = f.a.counters().get(Counter.SENT_PKTS) - sentBefore;
            }
            return (double) bytes[1] / packets[1];
        }
    }

    @Test
    void aPacedDcqcnQpAllocatesNoMorePerPacketThanOneWithout() {
        long[] tNone = new long[1];
        long[] tDcqcn = new long[1];
        double none = bytesPerPacket(DeviceConfig.defaults(), tNone);
        double dcqcn = bytesPerPacket(DeviceConfig.defaults().withCongestionControl(CongestionControlScheme.DCQCN), tDcqcn);
        assertTrue(tDcqcn[0] > tNone[0] + 20_000, "the DCQCN round is paced after its CNP: " + tDcqcn[0] + " ns against "
                + tNone[0] + " ns");
        // An object is at least 16 bytes: half of that per packet more would mean one every other packet.
        assertTrue(dcqcn < none + 8, "DCQCN " + dcqcn + " B/packet against " + none + " B/packet without congestion control");
        System.out.printf("allocation per packet: %.2f B without congestion control (round of %d ns), %.2f B with DCQCN "
                + "(%d ns)%n", none, tNone[0], dcqcn, tDcqcn[0]);
    }
}
