package io.rnic.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The contract on the QP's own receive queue. */
class OwnReceiveQueueContractTest extends ReceiveQueueContractTest {
    @Override
    ReceiveQueue newQueue() {
        return new OwnReceiveQueue(CAPACITY, MAX_SGE, pd, () -> false, () -> { });
    }

    @Test
    void advertisesItsFreeWqesAsCredits() {
        ReceiveQueue q = newQueue();
        assertEquals(io.rnic.core.packet.AethSyndrome.creditCodeFor(0), q.creditCode());
        q.post(wr(1));
        q.post(wr(2));
        assertEquals(io.rnic.core.packet.AethSyndrome.creditCodeFor(2), q.creditCode());
    }

    /** The ring is a power of two long; the queue still holds max_recv_wr WQEs, no more. */
    @Test
    void aQueueOfFiveHoldsFiveWqesRoundAfterRoundInOrder() {
        ReceiveQueue q = new OwnReceiveQueue(5, MAX_SGE, pd, () -> false, () -> { });
        long next = 1;
        long expected = 1;
        for (int round = 0; round < 7; round++) { // past the ring's end several times
            while (true) {
                long id = next;
                try {
                    q.post(wr(id));
                } catch (IllegalStateException full) {
                    break;
                }
                next++;
            }
            assertEquals(5, q.available(), "round " + round + ": exactly max_recv_wr posted");
            for (int i = 0; i < 3; i++) {
                RecvWqe w = q.take();
                assertEquals(expected++, w.wrId());
                q.retire(w);
            }
        }
    }
}
