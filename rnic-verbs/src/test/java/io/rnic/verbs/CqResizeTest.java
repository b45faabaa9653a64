package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.testing.RcPair;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ibv_resize_cq}: {@link CompletionQueue#resize} keeps the unpolled completions in their
 * order, refuses a size below what is queued or above {@code max_cqe}, and is safe while QPs
 * complete into the CQ (it runs on the protocol thread, between two completions).
 */
class CqResizeTest {
    private static final int MSG = 64;

    /** Posts {@code n} receives on B and {@code n} signaled SENDs on A, wr_ids from {@code first}. */
    private static void sendBatch(RcFixture f, long first, int n) {
        for (int i = 0; i < n; i++) {
            f.postRecvB(f.recvB(first + i, (int) ((first + i) % 1000) * MSG, MSG));
        }
        for (int i = 0; i < n; i++) {
            f.postA(f.sendA(first + i, (int) ((first + i) % 1000) * MSG, MSG));
        }
    }

    private static List<Long> pollAll(CompletionQueue cq) {
        List<Long> ids = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        while (cq.poll(wc)) {
            assertTrue(wc.isSuccess(), wc.toString());
            ids.add(wc.wrId());
        }
        return ids;
    }

    private static List<Long> range(long first, int n) {
        List<Long> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(first + i);
        }
        return l;
    }

    @Test
    void resizingUpAndDownKeepsThePendingCompletionsInOrder() {
        try (RcFixture f = new RcFixture(4501)) {
            CompletionQueue rcq = f.b.createCq(32);
            QueuePair qpB = f.pdB.createQp(QpInitAttributes.rc(f.cqB, rcq));
            QueuePair qpA = f.pdA.createQp(QpInitAttributes.rc(f.cqA, f.cqA));
            Connections.connectPair(qpA, f.mrA, 11, qpB, f.mrB, 12, RcOptions.defaults());
            for (int i = 0; i < 20; i++) {
                qpB.postRecv(f.recvB(i, i * MSG, MSG));
                qpA.postSend(f.sendA(i, i * MSG, MSG));
            }
            f.settle();
            assertEquals(20, rcq.size());
            rcq.resize(1000);
            assertEquals(1000, rcq.capacity());
            assertEquals(20, rcq.size());
            rcq.resize(20); // exactly what is queued: allowed, as libibverbs allows it
            assertEquals(20, rcq.capacity());
            WorkCompletion wc = new WorkCompletion();
            for (int i = 0; i < 5; i++) {
                assertTrue(rcq.poll(wc));
                assertEquals(i, wc.wrId());
            }
            rcq.resize(15);
            rcq.resize(17);
            assertEquals(range(5, 15), pollAll(rcq), "the unpolled completions, once each, in their order");
        }
    }

    @Test
    void aSizeBelowTheQueuedCompletionsIsRefusedNamingBothNumbers() {
        try (RcFixture f = new RcFixture(4502)) {
            sendBatch(f, 0, 9);
            f.settle();
            assertEquals(9, f.cqB.size());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.cqB.resize(8));
            assertTrue(e.getMessage().contains(" 8 ") && e.getMessage().contains("9 completions"), e.getMessage());
            assertEquals(4096, f.cqB.capacity(), "a refused resize changes nothing");
            assertEquals(range(0, 9), pollAll(f.cqB));
        }
    }

    @Test
    void aSizeOutsideOneToMaxCqeIsRefused() {
        try (RcFixture f = new RcFixture(4503)) {
            int max = f.b.queryDevice().maxCqe();
            IllegalArgumentException above = assertThrows(IllegalArgumentException.class, () -> f.cqB.resize(max + 1));
            assertTrue(above.getMessage().contains(String.valueOf(max + 1)) && above.getMessage().contains("max_cqe"),
                    above.getMessage());
            IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> f.cqB.resize(0));
            assertTrue(zero.getMessage().contains(" 0 "), zero.getMessage());
            f.cqB.resize(max);
            assertEquals(max, f.cqB.capacity());
        }
    }

    @Test
    void aClosedCqCannotBeResized() {
        try (RcFixture f = new RcFixture(4504)) {
            CompletionQueue cq = f.b.createCq(8);
            cq.close();
            assertThrows(IllegalStateException.class, () -> cq.resize(16));
        }
    }

    /**
     * Resizes between slices of virtual time while messages are on the wire and completing:
     * every completion arrives once, in posting order, on both sides.
     */
    @Test
    void resizingWhileTrafficRunsLosesAndDuplicatesNothing() {
        try (RcFixture f = new RcFixture(4505)) {
            List<Long> recvs = new ArrayList<>();
            List<Long> sends = new ArrayList<>();
            int rounds = 6;
            int perRound = 100;
            int resizes = 0;
            for (int r = 0; r < rounds; r++) {
                sendBatch(f, (long) r * perRound, perRound);
                for (int slice = 0; recvs.size() < (r + 1) * perRound; slice++) {
                    f.net.scheduler().runFor(300); // a few packets' worth of virtual time
                    // Shrink to the least that holds what is queued and what may still complete
                    // before the next poll, or grow: both while QPs complete into the CQ.
                    int posted = (r + 1) * perRound;
                    int tightB = posted - recvs.size(); // queued + not yet completed
                    int tightA = posted - sends.size();
                    f.cqB.resize(slice % 2 == 0 ? tightB + slice % 3 : 4096);
                    f.cqA.resize(slice % 3 == 0 ? tightA + slice % 2 : 1024);
                    resizes += 2;
                    if (slice % 4 == 3) { // poll some now and then, leaving others queued across resizes
                        recvs.addAll(pollAll(f.cqB));
                        sends.addAll(pollAll(f.cqA));
                    }
                    assertTrue(slice < 100_000, "no progress: " + f.b.counters().nonZero());
                }
                f.cqB.resize(4096);
                f.cqA.resize(4096);
            }
            f.settle();
            recvs.addAll(pollAll(f.cqB));
            sends.addAll(pollAll(f.cqA));
            assertEquals(range(0, rounds * perRound), recvs, "every receive completion once, in order");
            assertEquals(range(0, rounds * perRound), sends, "every send completion once, in order");
            assertTrue(resizes > 100, "resized " + resizes + " times");
            assertEquals(0, f.b.unhandledEvents().size(), f.b.unhandledEvents().toString());
        }
    }

    /** After a shrink, the CQ overflows at its new size as at creation: CQ_ERR, and the QP moves to ERR. */
    @Test
    void overflowAfterShrinkingRaisesCqErr() {
        try (RcFixture f = new RcFixture(4506)) {
            List<AsyncEvent> events = new ArrayList<>();
            f.b.addAsyncEventListener(events::add);
            f.cqB.resize(3);
            sendBatch(f, 0, 5);
            f.settle();
            assertTrue(events.stream().anyMatch(e -> e.type() == AsyncEvent.Type.CQ_ERR), events.toString());
            assertEquals(QpState.ERR, f.qpB.state());
            assertEquals(range(0, 3), pollAll(f.cqB), "the three that fit, in order");
        }
    }

    /**
     * On the UDP wire the protocol runs on the wire's thread: resizes from the application's
     * thread go there while completions arrive, and none is lost or duplicated.
     */
    @Test
    void resizingOnTheUdpWireWhileTrafficRunsLosesAndDuplicatesNothing() {
        try (RcPair p = RcPair.udp("127.0.145.1", "127.0.145.2", RcOptions.defaults())) {
            int n = 1000;
            int window = 64; // at most this many receives outstanding: the CQ never holds more
            List<Long> recvs = new ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            long posted = 0;
            long sendsDone = 0;
            int resizes = 0;
            long deadline = System.nanoTime() + RcPair.AWAIT_NANOS;
            while (recvs.size() < n) {
                while (posted < n && posted - recvs.size() < window && posted - sendsDone < window) {
                    p.qpB().postRecv(p.recv(posted, (int) (posted % 100) * MSG, MSG));
                    p.qpA().postSend(p.send(posted, (int) (posted % 100) * MSG, MSG));
                    posted++;
                }
                p.cqB().resize(resizes % 2 == 0 ? window : 4096);
                resizes++;
                while (p.cqA().poll(wc)) {
                    assertTrue(wc.isSuccess(), wc.toString());
                    sendsDone++;
                }
                while (p.cqB().poll(wc)) {
                    assertTrue(wc.isSuccess(), wc.toString());
                    recvs.add(wc.wrId());
                }
                assertTrue(System.nanoTime() < deadline, "stalled at " + recvs.size());
            }
            assertEquals(range(0, n), recvs, "every receive completion once, in order");
            p.awaitA((int) (n - sendsDone));
        }
    }
}
