package io.rnic.core.transport;

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
}
