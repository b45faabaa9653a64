package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reliable datagram service (seed 001 §9.7.8) between two nodes on the simulated network. */
class RdTest {
    @Test
    void twoQpsSendThroughOneEeContextToTwoQpsOfAnotherNode() {
        try (RdFixture f = new RdFixture(1)) {
            SimPair.fill(f.bufA, 0, 8192, 7);
            f.b1.postRecv(f.recvB(11, 0, 4096));
            f.b2.postRecv(f.recvB(12, 4096, 4096));
            f.a1.postSend(f.sendTo(f.b1, 1, 0, 3000));
            f.a2.postSend(f.sendTo(f.b2, 2, 4096, 3000));
            List<WorkCompletion> sent = f.await(f.cqA, 2);
            List<WorkCompletion> got = f.await(f.cqB, 2);
            for (WorkCompletion wc : sent) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            }
            for (WorkCompletion wc : got) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                assertEquals(3000, wc.byteLen());
            }
            assertTrue(SimPair.same(f.bufA, 0, f.bufB, 0, 3000));
            assertTrue(SimPair.same(f.bufA, 4096, f.bufB, 4096, 3000));
        }
    }
}
