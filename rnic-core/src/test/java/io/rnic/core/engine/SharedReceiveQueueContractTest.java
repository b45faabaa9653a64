package io.rnic.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The contract on the shared receive queue. */
class SharedReceiveQueueContractTest extends ReceiveQueueContractTest {
    @Override
    ReceiveQueue newQueue() {
        return new SrqContext(TestHca.create(), pd, CAPACITY, MAX_SGE, 0);
    }

    @Test
    void wqesHeldByMessagesOnSeveralQpsRetireInAnyOrder() {
        ReceiveQueue q = newQueue();
        for (long id = 1; id <= CAPACITY; id++) {
            q.post(wr(id));
        }
        RecvWqe a = q.take();
        RecvWqe b = q.take();
        RecvWqe c = q.take();
        q.retire(b); // the second message completed first
        q.post(wr(10));
        q.retire(c);
        q.post(wr(11));
        assertThrows(IllegalStateException.class, () -> q.post(wr(12)), "a is still held");
        q.retire(a);
        q.post(wr(12));
        List<Long> order = new ArrayList<>();
        RecvWqe t;
        while ((t = q.take()) != null) {
            order.add(t.wrId());
        }
        assertEquals(List.of(4L, 10L, 11L, 12L), order, "posted order, whatever the retire order");
    }

    @Test
    void advertisesTheInvalidCreditCodeBecauseManyQpsShareIt() {
        ReceiveQueue q = newQueue();
        q.post(wr(1));
        assertEquals(io.rnic.core.packet.AethSyndrome.CREDITS_INVALID, q.creditCode());
    }
}
