package io.rnic.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.WorkCompletion;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The completion queue's lock-free ring: one producer (the protocol thread), any number of
 * pollers, each completion polled exactly once, overflow reported once, and a waiter that
 * announced itself always woken.
 */
class CompletionQueueTest {

    private static void complete(CompletionQueue cq, long wrId) {
        WorkCompletion wc = cq.begin();
        if (wc != null) {
            wc.fill(wrId, io.rnic.verbs.WcStatus.SUCCESS, io.rnic.verbs.WcOpcode.SEND, 0);
            cq.commit(false);
        }
    }

    @Test
    void everyCompletionIsPolledExactlyOnceByConcurrentPollers() throws Exception {
        CompletionQueue cq = new CompletionQueue(1, 64);
        int n = 200_000;
        ConcurrentHashMap<Long, Boolean> seen = new ConcurrentHashMap<>();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger polled = new AtomicInteger();
        Runnable poller = () -> {
            WorkCompletion out = new WorkCompletion();
            while (polled.get() < n) {
                if (cq.poll(out)) {
                    if (seen.put(out.wrId(), Boolean.TRUE) != null) {
                        duplicates.incrementAndGet();
                    }
                    polled.incrementAndGet();
                }
            }
        };
        Thread p1 = new Thread(poller);
        Thread p2 = new Thread(poller);
        p1.start();
        p2.start();
        for (long i = 0; i < n; ) {
            if (cq.size() < cq.capacity()) { // the producer never overflows the ring here
                complete(cq, i++);
            } else {
                Thread.onSpinWait();
            }
        }
        p1.join(60_000);
        p2.join(60_000);
        assertEquals(0, duplicates.get());
        assertEquals(n, seen.size());
        assertFalse(cq.hasOverflowed());
    }

    @Test
    void aFullQueueReportsOverflowOnceAndLosesTheCompletion() {
        CompletionQueue cq = new CompletionQueue(1, 3);
        AtomicInteger reports = new AtomicInteger();
        cq.overflowHandler(q -> reports.incrementAndGet());
        for (int i = 0; i < 3; i++) {
            complete(cq, i);
        }
        assertNull(cq.begin(), "the fourth completion has no room");
        assertNull(cq.begin());
        assertEquals(1, reports.get());
        assertTrue(cq.hasOverflowed());
        WorkCompletion[] out = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        assertEquals(3, cq.poll(out, 4));
        assertEquals(0, out[0].wrId());
        assertEquals(2, out[2].wrId());
    }

    @Test
    void aWaiterThatAnnouncedItselfIsWokenByTheNextCompletion() throws Exception {
        CompletionQueue cq = new CompletionQueue(1, 8);
        for (int round = 0; round < 200; round++) {
            CountDownLatch waiting = new CountDownLatch(1);
            boolean[] got = new boolean[1];
            Thread w = new Thread(() -> {
                waiting.countDown();
                try {
                    got[0] = cq.await(30_000_000_000L);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            w.start();
            waiting.await();
            complete(cq, round); // may land before or after the waiter announces itself
            w.join(30_000);
            assertTrue(got[0], "round " + round + ": the waiter saw the completion");
            assertTrue(cq.poll(new WorkCompletion()));
        }
    }

    @Test
    void anArmedNotificationFiresOnceForTheNextCompletionOrTheNextSolicitedOne() {
        CompletionQueue cq = new CompletionQueue(1, 8);
        AtomicInteger fired = new AtomicInteger();
        cq.notifier(q -> fired.incrementAndGet());
        complete(cq, 1);
        assertEquals(0, fired.get(), "not armed");
        cq.requestNotify(false);
        complete(cq, 2);
        complete(cq, 3);
        assertEquals(1, fired.get(), "one-shot");
        cq.requestNotify(true);
        complete(cq, 4);
        assertEquals(1, fired.get(), "an unsolicited completion does not fire a solicited-only arm");
        WorkCompletion wc = cq.begin();
        wc.fill(5, io.rnic.verbs.WcStatus.SUCCESS, io.rnic.verbs.WcOpcode.SEND, 0);
        cq.commit(true);
        assertEquals(2, fired.get());
    }
}
