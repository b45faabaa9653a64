package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.udp.UdpWire;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A request {@code postSend} accepted completes (issue 39, defect 11), even when it races a move
 * to ERR or the device's close: posters on several threads keep posting to four RC QPs over UDP
 * while pollers drain their CQ and the QPs are moved to ERR, destroyed, and finally the device is
 * closed under them.
 *
 * <p>What "completes" means, as libibverbs has it: until its QP is destroyed, a work request
 * that {@code postSend} accepted (did not throw for) produces exactly one completion, in error
 * (WR_FLUSH_ERR) if its QP moved to ERR, by an error, a modify or the device's close. The
 * device's close flushes what its QPs hold before it returns, and its CQs can still be polled.
 * Destroying a QP drops what it still holds without completions ({@code ibv_destroy_qp}); a
 * request accepted before the QP was moved to ERR has completed by then (the move flushes it),
 * and none ever completes twice.
 *
 * <p>Each round lasts {@code rnic.postrace.millis} (default 150) and there are
 * {@code rnic.postrace.rounds} of them (default 3); docs/reliability.md records a long run.
 */
class AcceptedWorkCompletesTest {
    private static final int ROUNDS = Integer.getInteger("rnic.postrace.rounds", 3);
    private static final long ROUND_MILLIS = Long.getLong("rnic.postrace.millis", 150);
    private static final int QPS = 4;
    private static final int POSTERS = 2;
    private static final int SEND_WR = 128;
    /** Room for every completion the QPs can have outstanding, and for those not yet polled. */
    private static final int CQE = 16_384;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** What the chaos does to each QP of a round. */
    enum Fate {
        /** Moved to ERR while posts go on, and left open: the device's close finds it in ERR. */
        ERR_KEPT,
        /** Moved to ERR, then destroyed, while posts go on. */
        ERR_THEN_DESTROYED,
        /** Destroyed while posts go on, without a move to ERR first. */
        DESTROYED,
        /** Left in RTS: the device's close moves it to ERR. */
        UNTOUCHED
    }

    /**
     * The window the stress below found, made deterministic on the simulated network: a QP in
     * ERR accepts a post and leaves its flush to a doorbell that runs later on the protocol
     * thread; the device's close used to skip QPs already in ERR, and once the device is closed
     * no protocol thread runs that doorbell. The close now flushes them too, before it returns.
     */
    @Test
    void aPostAcceptedInErrIsFlushedByTheDevicesCloseBeforeItReturns() {
        try (RcFixture f = new RcFixture(97)) {
            f.qpA.modify(new QpAttributes().state(QpState.ERR));
            f.qpA.postSend(f.sendA(7, 0, 64)); // accepted in ERR: its doorbell is pending, not run
            f.qpA.postRecv(new RecvWorkRequest().wrId(8).sge(f.mrA.address(), 64, f.mrA.lkey()));
            f.a.close();
            List<Long> flushed = new ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            while (f.cqA.poll(wc)) {
                assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), wc.toString());
                flushed.add(wc.wrId());
            }
            java.util.Collections.sort(flushed);
            assertEquals(List.of(7L, 8L), flushed, "what the QP accepted in ERR completed by the close");
        }
    }

    /**
     * The other window, held open on purpose over UDP: a post that has passed its checks waits
     * for its send queue's lock (held here by another thread, as a slower poster would) while the
     * device closes. It used to publish after the close's flush and ring a doorbell that no
     * thread would ever run, so it was accepted and never completed; now the close refuses posts
     * under that same lock, so the post either comes first and is flushed, or throws.
     */
    @Test
    void aPostCaughtBetweenItsChecksAndItsQueueWhileTheDeviceClosesThrowsOrIsFlushed() throws Exception {
        UdpWire wire = UdpWire.bind("127.0.197.250").open();
        RdmaDevice d = RdmaDevice.open(wire);
        try {
            ProtectionDomain pd = d.allocPd();
            CompletionQueue cq = d.createCq(16);
            MemoryRegion mr = pd.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            QueuePair qp = pd.createQp(QpInitAttributes.rc(cq, cq));
            Connections.connect(qp, Connections.local(qp, 1, mr), new ConnectionInfo(
                    Gid.of(java.net.InetAddress.getByName("127.0.197.251")), 0x99, 7, 0, 0), RcOptions.defaults());
            // The lock a post publishes under: the QP's send queue (reached by reflection, a test's hook).
            java.lang.reflect.Field sqField = io.rnic.core.engine.QpContext.class.getDeclaredField("sq");
            sqField.setAccessible(true);
            Object sq = sqField.get(qp.core);
            java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            Thread holder = new Thread(() -> {
                synchronized (sq) {
                    held.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            holder.start();
            held.await();
            java.util.concurrent.atomic.AtomicReference<Object> outcome = new java.util.concurrent.atomic.AtomicReference<>();
            Thread poster = new Thread(() -> {
                try {
                    qp.postSend(new SendWorkRequest().wrId(9).opcode(WrOpcode.SEND).signaled(true)
                            .sge(mr.address(), 64, mr.lkey()));
                    outcome.set("accepted");
                } catch (RuntimeException e) {
                    outcome.set(e);
                }
            });
            poster.start();
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (poster.getState() != Thread.State.BLOCKED) { // past its checks, at the lock
                assertTrue(System.nanoTime() < deadline, "the post never reached the send queue's lock");
                Thread.sleep(1);
            }
            Thread closer = new Thread(d::close);
            closer.start();
            closer.join(1000); // an old close finished without the lock; a new one waits for it
            release.countDown();
            closer.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
            poster.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
            holder.join();
            List<String> seen = new ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            while (cq.poll(wc)) {
                seen.add(wc.wrId() + " " + wc.status());
            }
            if ("accepted".equals(outcome.get())) {
                assertEquals(List.of("9 WR_FLUSH_ERR"), seen, "the accepted post was flushed by the close");
            } else {
                IllegalStateException refused = (IllegalStateException) outcome.get();
                assertTrue(refused.getMessage().contains("device " + d.gid() + " is closed"), refused.getMessage());
                assertEquals(List.of(), seen);
            }
        } finally {
            d.close();
        }
    }

    @Test
    void everyAcceptedWorkRequestCompletesExactlyOnceWhilePostsRaceErrorsDestructionAndClose() throws Exception {
        long total = 0;
        long lost = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Round r = new Round(round);
            r.run();
            total += r.accepted();
            lost += r.lost();
            System.out.printf("AcceptedWorkCompletesTest round %d: %d accepted, %d completed, %d lost, %d completed"
                    + " twice, %d dropped by destruction%n", round, r.accepted(), r.completed(), r.lost(),
                    r.duplicates(), r.droppedByDestroy());
            assertEquals(0, r.duplicates(), "round " + round + ": a work request completed twice");
            assertEquals(0, r.strangers(), "round " + round + ": a completion for a request never accepted");
            assertEquals(0, r.lost(), "round " + round + ": accepted work requests never completed: " + r.lostSample());
        }
        System.out.printf("AcceptedWorkCompletesTest: %d rounds, %d work requests accepted, %d lost%n", ROUNDS, total,
                lost);
        assertTrue(total > 0);
    }

    /** One round: a fresh pair of devices, posters, pollers, the chaos, the accounting. */
    private static final class Round {
        final int round;
        final SplittableRandom random;
        final Fate[] fates = Fate.values().clone();
        final QueuePair[] qps = new QueuePair[QPS];
        /** Set (before the move to ERR or the destruction starts) for the QPs the chaos turns on. */
        final AtomicBoolean[] struck = new AtomicBoolean[QPS];
        /** Accepted requests: wr_id → the QP's index, negated if the post returned before its QP was struck. */
        final ConcurrentHashMap<Long, Integer> accepted = new ConcurrentHashMap<>();
        final ConcurrentHashMap<Long, Integer> completions = new ConcurrentHashMap<>();
        final AtomicLong outstanding = new AtomicLong();
        final AtomicBoolean stopPosting = new AtomicBoolean();
        final AtomicBoolean stopPolling = new AtomicBoolean();
        final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        long lost;
        long duplicates;
        long strangers;
        long droppedByDestroy;
        final List<Long> lostSample = new ArrayList<>();

        Round(int round) {
            this.round = round;
            this.random = new SplittableRandom(20261130L + round);
            for (int i = 0; i < QPS; i++) {
                struck[i] = new AtomicBoolean();
            }
            for (int i = fates.length - 1; i > 0; i--) { // which QP meets which fate
                int j = random.nextInt(i + 1);
                Fate t = fates[i];
                fates[i] = fates[j];
                fates[j] = t;
            }
        }

        void run() throws Exception {
            UdpWire wireA = UdpWire.bind("127.0.197." + (1 + round % 200)).open();
            UdpWire wireB = UdpWire.bind("127.0.198." + (1 + round % 200)).open();
            RdmaDevice a = RdmaDevice.open(wireA);
            RdmaDevice b = RdmaDevice.open(wireB);
            try {
                ProtectionDomain pdA = a.allocPd();
                ProtectionDomain pdB = b.allocPd();
                CompletionQueue cqA = a.createCq(CQE);
                CompletionQueue cqB = b.createCq(CQE);
                MemoryRegion mrA = pdA.registerMemory(ByteBuffer.allocateDirect(4096), RcPairAccess.ALL);
                MemoryRegion mrB = pdB.registerMemory(ByteBuffer.allocateDirect(4096), RcPairAccess.ALL);
                QpCaps caps = new QpCaps(SEND_WR, 16, 1, 1, 0);
                for (int i = 0; i < QPS; i++) {
                    qps[i] = pdA.createQp(QpInitAttributes.rc(cqA, cqA).withCaps(caps));
                    QueuePair peer = pdB.createQp(QpInitAttributes.rc(cqB, cqB).withCaps(caps));
                    Connections.connectPair(qps[i], mrA, 0x100, peer, mrB, 0x200, RcOptions.defaults());
                }
                List<Thread> threads = new ArrayList<>();
                for (int p = 0; p < POSTERS; p++) {
                    int poster = p;
                    threads.add(start("poster-" + p, () -> post(poster, mrA, mrB)));
                }
                List<Thread> pollers = List.of(start("poller", () -> poll(cqA)));
                chaos(a);
                stopPosting.set(true);
                for (Thread t : threads) {
                    t.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
                }
                stopPolling.set(true);
                for (Thread t : pollers) {
                    t.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
                }
                drain(cqA); // whatever the pollers left behind
                if (!failures.isEmpty()) {
                    throw new AssertionError("a poster or poller failed", failures.get(0));
                }
                account();
            } finally {
                a.close();
                b.close();
            }
        }

        /** Strikes the QPs at random moments while the posters run, then closes the device under them. */
        private void chaos(RdmaDevice a) throws InterruptedException {
            for (int i = 0; i < QPS; i++) {
                Thread.sleep(1 + random.nextLong(ROUND_MILLIS / QPS + 1));
                QueuePair qp = qps[i];
                switch (fates[i]) {
                    case ERR_KEPT -> {
                        struck[i].set(true);
                        qp.modify(new QpAttributes().state(QpState.ERR));
                    }
                    case ERR_THEN_DESTROYED -> {
                        struck[i].set(true);
                        qp.modify(new QpAttributes().state(QpState.ERR));
                        Thread.sleep(random.nextLong(3));
                        qp.close();
                    }
                    case DESTROYED -> {
                        struck[i].set(true);
                        qp.close();
                    }
                    case UNTOUCHED -> {
                    }
                    default -> throw new IllegalStateException();
                }
            }
            Thread.sleep(1 + random.nextLong(5));
            a.close(); // posts still racing it
        }

        private void post(int poster, MemoryRegion mrA, MemoryRegion mrB) {
            SplittableRandom r = new SplittableRandom(random.nextLong() ^ poster);
            SendWorkRequest wr = new SendWorkRequest().opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(mrA.address() + 8L * poster, 8, mrA.lkey()).rdma(mrB.address() + 8L * poster, mrB.rkey());
            long seq = 0;
            boolean[] gone = new boolean[QPS];
            try {
                while (!stopPosting.get()) {
                    if (outstanding.get() > CQE - QPS * SEND_WR) {
                        Thread.yield(); // the poller is behind: the CQ must not overflow
                        continue;
                    }
                    int q = r.nextInt(QPS);
                    if (gone[q]) {
                        Thread.yield();
                        continue;
                    }
                    long wrId = (long) poster << 40 | seq++;
                    try {
                        qps[q].postSend(wr.wrId(wrId));
                    } catch (IllegalStateException refused) {
                        // Full, destroyed, closed: not accepted, nothing to complete. A QP that is
                        // gone stays gone; a full one is worth another try once the others had a turn.
                        gone[q] = !refused.getMessage().contains("full");
                        Thread.yield();
                        continue;
                    }
                    outstanding.incrementAndGet();
                    // Read after the post returned: false means the post came before the QP was struck.
                    accepted.put(wrId, struck[q].get() ? q : -1 - q);
                }
            } catch (Throwable t) {
                failures.add(t);
            }
        }

        private void poll(CompletionQueue cq) {
            WorkCompletion[] batch = new WorkCompletion[32];
            for (int i = 0; i < batch.length; i++) {
                batch[i] = new WorkCompletion();
            }
            try {
                while (!stopPolling.get()) {
                    int n = cq.poll(batch);
                    if (n == 0) {
                        Thread.yield();
                    }
                    record(batch, n);
                }
            } catch (Throwable t) {
                failures.add(t);
            }
        }

        private void drain(CompletionQueue cq) {
            WorkCompletion[] batch = new WorkCompletion[32];
            for (int i = 0; i < batch.length; i++) {
                batch[i] = new WorkCompletion();
            }
            int n;
            while ((n = cq.poll(batch)) > 0) {
                record(batch, n);
            }
        }

        private void record(WorkCompletion[] batch, int n) {
            for (int i = 0; i < n; i++) {
                completions.merge(batch[i].wrId(), 1, Integer::sum);
                outstanding.decrementAndGet();
            }
        }

        private void account() {
            for (var e : completions.entrySet()) {
                if (e.getValue() > 1) {
                    duplicates++;
                }
                if (!accepted.containsKey(e.getKey())) {
                    strangers++;
                }
            }
            for (var e : accepted.entrySet()) {
                int code = e.getValue();
                boolean beforeStrike = code < 0;
                int q = beforeStrike ? -1 - code : code;
                boolean completed = completions.containsKey(e.getKey());
                boolean destroyed = fates[q] == Fate.DESTROYED || fates[q] == Fate.ERR_THEN_DESTROYED;
                // Owed a completion: every request of a QP that was not destroyed, and of one moved
                // to ERR before its destruction, those posted before the move.
                boolean owed = !destroyed || (fates[q] == Fate.ERR_THEN_DESTROYED && beforeStrike);
                if (!completed && owed) {
                    lost++;
                    if (lostSample.size() < 5) {
                        lostSample.add(e.getKey());
                    }
                } else if (!completed) {
                    droppedByDestroy++;
                }
            }
        }

        private static Thread start(String name, Runnable body) {
            Thread t = new Thread(body, name);
            t.setDaemon(true);
            t.start();
            return t;
        }

        long accepted() {
            return accepted.size();
        }

        long completed() {
            return completions.size();
        }

        long lost() {
            return lost;
        }

        long duplicates() {
            return duplicates;
        }

        long strangers() {
            return strangers;
        }

        long droppedByDestroy() {
            return droppedByDestroy;
        }

        String lostSample() {
            StringBuilder s = new StringBuilder();
            for (long id : lostSample) {
                int code = accepted.get(id);
                int q = code < 0 ? -1 - code : code;
                s.append(String.format("wr 0x%x on QP %d (%s, posted %s it was struck); ", id, q, fates[q],
                        code < 0 ? "before" : "after"));
            }
            return s.toString();
        }
    }

    /** Every access right, for the regions the WRITEs go between. */
    private static final class RcPairAccess {
        static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
                | AccessFlags.REMOTE_ATOMIC;
    }
}
