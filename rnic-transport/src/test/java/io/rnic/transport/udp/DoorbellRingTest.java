package io.rnic.transport.udp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** The agent's doorbell ring: bounded, many producers, one consumer, every task run once, in order per producer. */
class DoorbellRingTest {

    @Test
    void everyOfferedTaskRunsExactlyOnceAndEachProducersTasksInOrder() throws Exception {
        DoorbellRing ring = new DoorbellRing(64);
        int producers = 4;
        int perProducer = 50_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(producers * perProducer);
        int[] lastSeen = new int[producers];
        java.util.Arrays.fill(lastSeen, -1);
        AtomicInteger outOfOrder = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int id = p;
            Thread t = new Thread(() -> {
                for (int i = 0; i < perProducer; i++) {
                    int seq = i;
                    Runnable task = () -> {
                        runs.incrementAndGet(id * perProducer + seq);
                        if (lastSeen[id] != seq - 1) {
                            outOfOrder.incrementAndGet();
                        }
                        lastSeen[id] = seq;
                    };
                    while (!ring.offer(task)) {
                        Thread.onSpinWait(); // full: the consumer is behind
                    }
                }
            });
            threads.add(t);
            t.start();
        }
        long ran = 0;
        while (ran < (long) producers * perProducer) {
            ran += ring.drain(e -> { throw e; });
        }
        for (Thread t : threads) {
            t.join(30_000);
        }
        for (int i = 0; i < runs.length(); i++) {
            assertEquals(1, runs.get(i), "task " + i);
        }
        assertEquals(0, outOfOrder.get());
        assertTrue(ring.isEmpty());
    }

    @Test
    void aFullRingRefusesAndATaskThatThrowsDoesNotStopTheRest() {
        DoorbellRing ring = new DoorbellRing(4);
        AtomicInteger ran = new AtomicInteger();
        assertTrue(ring.offer(() -> { throw new IllegalStateException("boom"); }));
        for (int i = 0; i < 3; i++) {
            assertTrue(ring.offer(ran::incrementAndGet));
        }
        assertFalse(ring.offer(ran::incrementAndGet), "four slots, four tasks");
        List<RuntimeException> errors = new ArrayList<>();
        assertEquals(4, ring.drain(errors::add));
        assertEquals(3, ran.get());
        assertEquals(1, errors.size());
        assertTrue(ring.offer(ran::incrementAndGet), "room again");
        assertThrows(IllegalArgumentException.class, () -> new DoorbellRing(6));
    }
}
