package io.rnic.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The send queue ring: max_send_wr entries in a ring a power of two long, indexed by masking. */
class SendQueueTest {
    @Test
    void theRingIsThePowerOfTwoAtLeastTheCapacity() {
        assertEquals(0, SendQueue.ringSize(0), "a QP without a send queue");
        assertEquals(1, SendQueue.ringSize(1));
        assertEquals(2, SendQueue.ringSize(2));
        assertEquals(4, SendQueue.ringSize(3));
        assertEquals(8, SendQueue.ringSize(5));
        assertEquals(128, SendQueue.ringSize(128));
        assertEquals(256, SendQueue.ringSize(129));
        assertThrows(IllegalArgumentException.class, () -> SendQueue.ringSize(-1));
        assertThrows(IllegalArgumentException.class, () -> SendQueue.ringSize((1 << 30) + 1));
    }

    @Test
    void aQueueOfFiveHoldsFiveWqesAndFindsEachByItsIndexRoundAfterRound() {
        SendQueue q = new SendQueue(5, 1, 0);
        assertEquals(5, q.capacity());
        for (int round = 0; round < 7; round++) { // past the ring's end several times
            while (true) {
                SendWqe w = q.claim();
                if (w == null) {
                    break;
                }
                w.wrId = q.posted();
                q.publish();
            }
            assertEquals(5, q.posted() - q.completed(), "round " + round + ": exactly max_send_wr outstanding");
            for (long i = q.completed(); i < q.posted(); i++) {
                assertEquals(i, q.at(i).wrId, "entry " + i + " is where it was claimed");
            }
            for (int i = 0; i < 3; i++) {
                q.retire();
            }
        }
    }

    @Test
    void aQueueWithoutRoomClaimsNothing() {
        SendQueue q = new SendQueue(0, 1, 0);
        assertNull(q.claim());
        SendQueue one = new SendQueue(1, 1, 0);
        SendWqe w = one.claim();
        assertNotNull(w);
        one.publish();
        assertNull(one.claim());
        one.retire();
        assertSame(w, one.claim(), "the one slot, reused");
    }
}
