package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The FIFO ring of one egress priority queue. */
class PacketQueueTest {

    @Test
    void packetsLeaveInTheOrderTheyCameAndTheByteCountFollows() {
        PacketQueue<String> q = new PacketQueue<>(2);
        assertNull(q.peek());
        assertNull(q.poll());
        assertEquals(-1, q.peekSize());
        // Wrap the ring, then grow it while wrapped.
        q.offer("a", 100);
        q.offer("b", 200);
        assertEquals("a", q.poll());
        q.offer("c", 300);
        q.offer("d", 400);
        q.offer("e", 500);
        assertEquals(4, q.size());
        assertEquals(200 + 300 + 400 + 500, q.bytes());
        assertEquals("b", q.peek());
        assertEquals(200, q.peekSize());
        for (String s : new String[] {"b", "c", "d", "e"}) {
            assertEquals(s, q.poll());
        }
        assertTrue(q.isEmpty());
        assertEquals(0, q.bytes());
    }

    @Test
    void theRingDoublesAndThenStaysAllocationFree() {
        PacketQueue<Object> q = new PacketQueue<>();
        Object packet = new Object();
        for (int i = 0; i < 100; i++) {
            q.offer(packet, 1_000);
        }
        assertEquals(128, q.capacity(), "16 doubled three times");
        Allocations.assertNonePerCall(200_000, () -> {
            q.offer(packet, 1_000);
            q.poll();
        });
        assertEquals(100, q.size());
        assertEquals(100_000, q.bytes());
    }

    @Test
    void badArgumentsAreRejected() {
        PacketQueue<Object> q = new PacketQueue<>();
        assertThrows(NullPointerException.class, () -> q.offer(null, 1));
        assertThrows(IllegalArgumentException.class, () -> q.offer(new Object(), -1));
        assertThrows(IllegalArgumentException.class, () -> new PacketQueue<>(0));
        assertEquals(4, new PacketQueue<>(3).capacity(), "rounded up to a power of two");
    }
}
