package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The requester's AckReq policy (docs/conformance.md): a packet asks for an ACK where the
 * application waits for it (the last packet of a signaled WQE), on every 64th packet at least,
 * and on the last packet of each run of sends, because the requester stops only where it then
 * needs an ACK (its queue or its window is empty of what it may send). The responder ACKs only
 * what asks (reference §5.2: rxe's responder answers AckReq packets only, and any later
 * response acknowledges every earlier PSN, §5.3).
 */
class AckRequestPolicyTest {
    /** A pair whose send queue holds more WQEs than the 128 PSNs the window lets fly. */
    private static RcFixture deep(long seed) {
        QpCaps d = QpCaps.defaults();
        return new RcFixture(seed, RcOptions.defaults(), 0x100, 0x200,
                new QpCaps(1024, d.maxRecvWr(), d.maxSendSge(), d.maxRecvSge(), d.maxInlineData()));
    }
    private static SendWorkRequest write(RcFixture f, long id, int i, boolean signaled) {
        return new SendWorkRequest().wrId(id).opcode(WrOpcode.RDMA_WRITE).signaled(signaled)
                .sge(f.mrA.address() + 64L * i, 64, f.mrA.lkey()).rdma(f.mrB.address() + 64L * i, f.mrB.rkey());
    }

    private static List<Integer> withAckReq(List<Wiretap.Seen> sent) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++) {
            if (sent.get(i).ackReq()) {
                out.add(i);
            }
        }
        return out;
    }

    @Test
    void aRunAsksForAnAckOnItsSignaledMessagesAndOnItsLastPacketOnly() {
        try (RcFixture f = new RcFixture(71)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            for (int i = 0; i < 10; i++) {
                f.qpA.postSend(write(f, i, i, i == 4)); // one batch: one run of ten WRITEs
            }
            assertEquals(4, f.await(f.cqA).wrId());
            f.settle();
            assertEquals(10, sentA.size());
            assertEquals(List.of(4, 9), withAckReq(sentA), "the signaled WRITE and the run's last packet");
            assertEquals(2, sentB.size(), "one ACK for each packet that asked: " + sentB);
            assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
        }
    }

    @Test
    void aRunCutShortByThePsnWindowAsksForTheAckThatReopensIt() {
        try (RcFixture f = deep(72)) {
            var sentA = Wiretap.sent(f.wireA);
            int n = 300; // more than the 128 PSNs the window lets fly
            for (int i = 0; i < n; i++) {
                // WRITE 10 signaled: the every-64th rule then falls on packets 74 and 138, not 127.
                f.qpA.postSend(write(f, i, i % 1000, i == 10 || i == n - 1));
            }
            assertEquals(List.of(10L, (long) n - 1), f.await(f.cqA, 2).stream().map(WorkCompletion::wrId).toList());
            assertEquals(n, sentA.size());
            assertTrue(sentA.get(127).ackReq(), "the packet that filled the window asks for an ACK");
            assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS), "no run waited for the ACK timer");
            assertEquals(0, f.a.counters().get(Counter.RETRANSMITTED_PKTS));
        }
    }

    @Test
    void aNarrowWindowWaitsForMoreAcksInsteadOfSendingASliver() {
        try (RcFixture f = deep(73)) {
            // Every fourth WRITE is signaled, so ACKs come back four packets apart: without
            // silly-window avoidance each would start a run of four.
            Map<Long, Integer> runs = new LinkedHashMap<>();
            f.wireA.addTap((dir, ts, p, s, d) -> {
                if (dir == io.rnic.core.wire.WireTap.Direction.SENT) {
                    runs.merge(ts, 1, Integer::sum); // a run sends its packets in one instant
                }
            });
            int n = 1000;
            for (int i = 0; i < n; i++) {
                f.qpA.postSend(write(f, i, i % 1000, i % 4 == 3 || i == n - 1));
            }
            f.await(f.cqA, n / 4);
            List<Integer> sizes = new ArrayList<>(runs.values());
            assertEquals(n, sizes.stream().mapToInt(Integer::intValue).sum());
            for (int r = 0; r < sizes.size() - 1; r++) {
                assertTrue(sizes.get(r) >= 32, "run " + r + " of " + sizes);
            }
            assertEquals(0, f.a.counters().get(Counter.LOCAL_ACK_TIMEOUTS));
        }
    }
}
