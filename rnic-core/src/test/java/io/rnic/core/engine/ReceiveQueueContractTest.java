package io.rnic.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.memory.ProtectionDomain;
import io.rnic.verbs.RecvWorkRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every receive source must do, run against the QP's own receive queue and the shared
 * receive queue: post from any thread, take oldest first, refuse what does not fit, and free a
 * WQE's room once it is retired.
 */
abstract class ReceiveQueueContractTest {
    static final int CAPACITY = 4;
    static final int MAX_SGE = 2;
    final ProtectionDomain pd = new ProtectionDomain(1);

    /** A new, empty queue of {@link #CAPACITY} WQEs of {@link #MAX_SGE} entries. */
    abstract ReceiveQueue newQueue();

    static RecvWorkRequest wr(long id) {
        return new RecvWorkRequest().wrId(id).sge(0x1000 * id, 64, 7);
    }

    @Test
    void takesWqesOldestFirstWithTheirWorkRequestIds() {
        ReceiveQueue q = newQueue();
        for (long id = 1; id <= 3; id++) {
            q.post(wr(id));
        }
        assertEquals(3, q.available());
        assertEquals(1, q.take().wrId());
        assertEquals(2, q.take().wrId());
        assertEquals(1, q.available());
        RecvWqe third = q.take();
        assertEquals(3, third.wrId());
        assertEquals(1, third.sgl.count);
        assertEquals(64, third.sgl.totalLength());
        assertNull(q.take(), "an empty queue has nothing to take (the receiver is not ready)");
    }

    @Test
    void aFullQueueRefusesAPostAndRoomReturnsWhenAWqeIsRetired() {
        ReceiveQueue q = newQueue();
        for (long id = 1; id <= CAPACITY; id++) {
            q.post(wr(id));
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> q.post(wr(99)));
        assertTrue(e.getMessage().contains("full"), e.getMessage());
        RecvWqe w = q.take();
        assertThrows(IllegalStateException.class, () -> q.post(wr(99)), "taken is not yet free: the message holds it");
        q.retire(w);
        q.post(wr(5));
        List<Long> order = new ArrayList<>();
        RecvWqe t;
        while ((t = q.take()) != null) {
            order.add(t.wrId());
        }
        assertEquals(List.of(2L, 3L, 4L, 5L), order);
    }

    /**
     * o9-112 (RD) and shared queues: WQEs are taken oldest first but may be retired in any
     * order; a WQE still held by a message in progress is never handed out or overwritten.
     */
    @Test
    void wqesRetiredOutOfOrderNeverFreeOneStillHeld() {
        ReceiveQueue q = newQueue();
        for (long id = 1; id <= CAPACITY; id++) {
            q.post(wr(id));
        }
        RecvWqe first = q.take();
        RecvWqe second = q.take();
        q.retire(second); // the second message completed first
        boolean roomAtOnce;
        try {
            q.post(wr(5)); // a shared queue reuses the freed entry; a ring waits for the older one
            roomAtOnce = true;
        } catch (IllegalStateException full) {
            roomAtOnce = false;
        }
        assertEquals(1, first.wrId(), "the WQE the first message holds is intact");
        q.retire(first);
        if (!roomAtOnce) {
            q.post(wr(5));
        }
        q.post(wr(6));
        assertEquals(List.of(3L, 4L, 5L, 6L), takeAll(q), "a retired WQE is not handed out again");
    }

    private static List<Long> takeAll(ReceiveQueue q) {
        List<Long> order = new ArrayList<>();
        RecvWqe t;
        while ((t = q.take()) != null) {
            order.add(t.wrId());
        }
        return order;
    }

    @Test
    void aWorkRequestWithMoreEntriesThanTheQueueAllowsIsRefusedAndPostsNothing() {
        ReceiveQueue q = newQueue();
        RecvWorkRequest big = new RecvWorkRequest().wrId(1).sge(0, 1, 1).sge(0, 1, 1).sge(0, 1, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> q.post(big));
        assertTrue(e.getMessage().contains("3 SGEs"), e.getMessage());
        assertEquals(0, q.available());
        assertEquals(MAX_SGE, q.maxSge());
    }

    @Test
    void aWqeIsReusedForLaterPostsOnceRetired() {
        ReceiveQueue q = newQueue();
        for (int round = 0; round < 3 * CAPACITY; round++) {
            q.post(wr(round + 1));
            RecvWqe w = q.take();
            assertEquals(round + 1, w.wrId());
            q.retire(w);
        }
        assertEquals(0, q.available());
    }

    @Test
    void wqeBuffersAreCheckedAgainstTheQueuesProtectionDomain() {
        assertSame(pd, newQueue().pd());
    }
}
