package io.rnic.verbs.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.wire.Wire;
import io.rnic.transport.fault.Faults;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.Counter;
import io.rnic.verbs.DeviceConfig;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The credit channel end to end: on the simulated network in virtual time, and over UDP. */
class CreditChannelTest {
    /** RNR NAKs are fatal: any SEND that met a missing receive would fail the QP. */
    static final RcOptions NO_RNR_RETRY = RcOptions.defaults().withRetry(14, 7, 0);

    /** Two devices and a channel on each, connected. */
    static final class Pair implements AutoCloseable {
        final SimNetwork net;
        final RdmaDevice a;
        final RdmaDevice b;
        final ProtectionDomain pdA;
        final ProtectionDomain pdB;
        final CreditChannel chA;
        final CreditChannel chB;
        final List<byte[]> atA = new ArrayList<>();
        final List<byte[]> atB = new ArrayList<>();

        Pair(SimNetwork net, Wire wa, Wire wb, CreditChannel.Config config, RcOptions options) {
            this.net = net;
            a = RdmaDevice.open(wa, DeviceConfig.defaults().withKeySeed(1));
            b = RdmaDevice.open(wb, DeviceConfig.defaults().withKeySeed(2));
            pdA = a.allocPd();
            pdB = b.allocPd();
            chA = CreditChannel.create(pdA, config);
            chB = CreditChannel.create(pdB, config);
            var ia = chA.localInfo(0x100);
            var ib = chB.localInfo(0x200);
            chA.connect(ia, ib, options);
            chB.connect(ib, ia, options);
            chA.onMessage(m -> atA.add(bytes(m)));
            chB.onMessage(m -> atB.add(bytes(m)));
        }

        static Pair sim(long seed, CreditChannel.Config config, RcOptions options) {
            SimNetwork net = new SimNetwork(seed);
            return new Pair(net, net.attach("10.0.0.1"), net.attach("10.0.0.2"), config, options);
        }

        SimWire wireA() {
            return (SimWire) a.wire();
        }

        SimWire wireB() {
            return (SimWire) b.wire();
        }

        /** Polls both channels and runs the network until {@code done} holds (virtual seconds at most). */
        void runUntil(java.util.function.BooleanSupplier done) {
            long limit = 600_000_000_000L;
            while (!done.getAsBoolean()) {
                int work = chA.poll() + chB.poll();
                if (work == 0 && !net.scheduler().runNext()) {
                    throw new AssertionError("network idle before done: A " + chA + " " + chA.stats() + ", B " + chB + " "
                            + chB.stats() + "; A " + a.counters().nonZero() + " B " + b.counters().nonZero());
                }
                if (net.scheduler().nanoTime() > limit) {
                    throw new AssertionError("not done in 600 virtual seconds");
                }
            }
        }

        /** Polls until nothing is left to happen (no ack loop keeps the network busy). */
        void settle() {
            for (int i = 0; i < 10_000_000; i++) {
                int work = chA.poll() + chB.poll();
                if (work == 0 && !net.scheduler().runNext()) {
                    return;
                }
            }
            throw new AssertionError("the channels never went quiet: an acknowledgement loop? " + chA.stats() + " " + chB.stats());
        }

        @Override
        public void close() {
            a.close();
            b.close();
            if (net != null) {
                net.close();
            }
        }
    }

    static byte[] bytes(ByteBuffer m) {
        byte[] out = new byte[m.remaining()];
        m.get(m.position(), out);
        return out;
    }

    static ByteBuffer message(int i, int len) {
        ByteBuffer b = ByteBuffer.allocate(len);
        for (int k = 0; k < len; k++) {
            b.put(k, (byte) (i * 31 + k));
        }
        return b;
    }

    static void assertMessages(List<byte[]> got, int n, java.util.function.IntUnaryOperator length) {
        assertEquals(n, got.size());
        for (int i = 0; i < n; i++) {
            assertEquals(ByteBuffer.wrap(got.get(i)), message(i, length.applyAsInt(i)), "message " + i);
        }
    }

    @Test
    void aSlowReceiverWithRnrRetryZeroNeverMeetsAnRnrNak() {
        CreditChannel.Config slow = CreditChannel.Config.defaults().withCredits(8, 2).withMessages(256, 4096)
                .withRepostDelay(20_000);
        try (Pair p = Pair.sim(3, slow, NO_RNR_RETRY)) {
            int n = 3000;
            for (int i = 0; i < n; i++) {
                assertTrue(p.chA.offer(message(i, 64 + i % 128)));
            }
            p.runUntil(() -> p.atB.size() == n && p.chA.stats().sent() == n);
            assertMessages(p.atB, n, i -> 64 + i % 128);
            assertEquals(0, p.b.counters().get(Counter.SEND_RNR_ERR), "the responder never sent an RNR NAK");
            assertEquals(0, p.a.counters().get(Counter.RCVD_RNR_ERR));
            assertTrue(p.chA.stats().stalls() > 0, "the sender did wait for credits: the receiver was slow");
            assertEquals(QpState.RTS, p.chA.qp().state());
        }
    }

    /**
     * A Send(ack) granting more credits than are outstanding (here forged by posting on the
     * peer's QP: 65535 data credits against a channel of 8) is a protocol error: the channel fails
     * with an error that says so and counts it, before it overruns the peer. Before, the grant
     * was taken: with RNR retry 0 the sender overran the slow receiver and its QP failed with an
     * RNR error; with RNR retry 7 it retried forever and reported nothing.
     */
    @Test
    void anAcknowledgementGrantingMoreCreditsThanAreOutstandingFailsTheChannelAndIsCounted() {
        for (int rnrRetry : new int[] {0, 7}) {
            CreditChannel.Config slow = CreditChannel.Config.defaults().withCredits(8, 2).withMessages(256, 4096)
                    .withRepostDelay(20_000);
            try (Pair p = Pair.sim(5, slow, RcOptions.defaults().withRetry(14, 7, rnrRetry))) {
                p.chB.qp().postSend(new SendWorkRequest().wrId(0).opcode(WrOpcode.SEND_WITH_IMM).signaled(false)
                        .imm(0xFFFF_0000));
                for (int i = 0; i < 64; i++) {
                    assertTrue(p.chA.offer(message(i, 64)));
                }
                io.rnic.verbs.RnicException failure = null;
                while (failure == null && p.net.scheduler().nanoTime() < 1_000_000_000L) {
                    try {
                        p.chA.poll();
                    } catch (io.rnic.verbs.RnicException e) {
                        failure = e;
                    }
                    p.chB.poll();
                    if (failure == null && !p.net.scheduler().runNext()) {
                        break;
                    }
                }
                String label = "RNR retry " + rnrRetry + ": ";
                assertTrue(failure != null, label + "the channel must fail, not retry forever: " + p.chA + " "
                        + p.a.counters().nonZero());
                String why = failure.getCause().getMessage();
                assertTrue(why.contains("protocol error") && why.contains("65535 data credits"), label + why);
                assertEquals(1, p.chA.stats().grantErrors(), label);
                assertEquals(0, p.b.counters().get(Counter.SEND_RNR_ERR), label + "the peer was never overrun");
                assertTrue(p.atB.size() <= 8, label + "no more than the peer's 8 receives were used: " + p.atB.size());
            }
        }
    }

    /** The same slow receiver without the channel: plain SENDs meet an empty receive queue and the QP fails. */
    @Test
    void withoutTheChannelTheSameSlowReceiverFailsTheSenderWithRnrRetryZero() {
        SimNetwork net = new SimNetwork(3);
        try (net; RdmaDevice a = RdmaDevice.open(net.attach("10.0.0.1")); RdmaDevice b = RdmaDevice.open(net.attach("10.0.0.2"))) {
            ProtectionDomain pa = a.allocPd();
            ProtectionDomain pb = b.allocPd();
            CompletionQueue cqA = a.createCq(64);
            CompletionQueue cqB = b.createCq(64);
            QueuePair qa = pa.createQp(QpInitAttributes.rc(cqA, cqA));
            QueuePair qb = pb.createQp(QpInitAttributes.rc(cqB, cqB));
            MemoryRegion ma = pa.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            MemoryRegion mb = pb.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            Connections.connectPair(qa, ma, 1, qb, mb, 2, NO_RNR_RETRY);
            for (int i = 0; i < 8; i++) {
                qb.postRecv(new RecvWorkRequest().wrId(i).sge(mb.address(), 256, mb.lkey()));
            }
            for (int i = 0; i < 16; i++) { // twice what the receiver posted, before it re-posts anything
                qa.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(ma.address(), 64, ma.lkey()));
            }
            List<WorkCompletion> wcs = new ArrayList<>();
            net.scheduler().runUntil(() -> {
                WorkCompletion wc = new WorkCompletion();
                while (cqA.poll(wc)) {
                    wcs.add(new WorkCompletion().set(wc));
                }
                return wcs.stream().anyMatch(w -> !w.isSuccess());
            }, 10_000_000_000L);
            assertTrue(wcs.stream().anyMatch(w -> w.status() == WcStatus.RNR_RETRY_EXC_ERR), wcs.toString());
            assertTrue(b.counters().get(Counter.SEND_RNR_ERR) > 0);
        }
    }

    @Test
    void theCompletionQueueNeverOverflowsAtFullLoad() {
        CreditChannel.Config c = CreditChannel.Config.defaults().withCredits(16, 4).withReadWrite(4, 4).withMessages(64, 256);
        try (Pair p = Pair.sim(4, c, NO_RNR_RETRY)) {
            List<AsyncEvent> events = new ArrayList<>();
            p.a.addAsyncEventListener(events::add);
            p.b.addAsyncEventListener(events::add);
            MemoryRegion la = p.pdA.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
                    | AccessFlags.REMOTE_READ);
            MemoryRegion lb = p.pdB.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
                    | AccessFlags.REMOTE_READ);
            for (int round = 0; round < 20; round++) {
                // Fill every quota on both sides, then let the network run without polling: every
                // work request completes into CQs nobody reads.
                for (int i = 0; i < 256; i++) {
                    p.chA.offer(message(i, 64));
                    p.chB.offer(message(i, 64));
                }
                for (int i = 0; i < 8; i++) {
                    p.chA.write(la.address(), 64, la.lkey(), lb.address(), lb.rkey());
                    p.chA.read(la.address() + 64, 64, la.lkey(), lb.address(), lb.rkey());
                    p.chB.write(lb.address(), 64, lb.lkey(), la.address(), la.rkey());
                }
                p.net.scheduler().runUntilIdle();
                assertTrue(p.chA.cq().size() <= p.chA.cq().capacity() && p.chB.cq().size() <= p.chB.cq().capacity());
                p.settle();
            }
            assertEquals(List.of(), events, "no CQ overflow, no QP error");
            assertEquals(20 * 256, p.atA.size());
            assertEquals(20 * 256, p.atB.size());
            assertEquals(20 * 16, p.chA.stats().writes() + p.chA.stats().reads());
        }
    }

    @Test
    void bothSidesSendingCausesNoAcknowledgementLoopAndAcksStayWithinTwoPerThreshold() {
        CreditChannel.Config c = CreditChannel.Config.defaults().withCredits(16, 4).withMessages(64, 8192);
        try (Pair p = Pair.sim(5, c, NO_RNR_RETRY)) {
            int n = 5000;
            for (int i = 0; i < n; i++) {
                p.chA.offer(message(i, 64));
                p.chB.offer(message(i, 32));
            }
            p.runUntil(() -> p.atA.size() == n && p.atB.size() == n);
            p.settle(); // returns: nothing keeps acknowledging once the data is through
            assertMessages(p.atB, n, i -> 64);
            assertMessages(p.atA, n, i -> 32);
            for (CreditChannel ch : List.of(p.chA, p.chB)) {
                long acks = ch.stats().acksSent();
                assertTrue(acks * c.dataThreshold() <= 2L * n, ch + ": " + acks + " acks for " + n + " messages, threshold "
                        + c.dataThreshold());
            }
        }
    }

    @Test
    void bothSidesExhaustingTheirAckCreditsAtOnceKeepFlowing() {
        // The smallest budgets: two ack credits, two data credits, acknowledge every message.
        CreditChannel.Config tight = CreditChannel.Config.defaults().withCredits(2, 2).withThresholds(0, 1).withMessages(16, 4096);
        for (long seed = 1; seed <= 5; seed++) {
            try (Pair p = Pair.sim(seed, tight, NO_RNR_RETRY)) {
                p.net.direction(p.wireA(), p.wireB()).fault(Faults.reorder(0.3, 3_000));
                p.net.direction(p.wireB(), p.wireA()).fault(Faults.reorder(0.3, 3_000));
                int n = 2000;
                for (int i = 0; i < n; i++) {
                    p.chA.offer(message(i, 16));
                    p.chB.offer(message(i, 16));
                }
                boolean[] bothAtTheirLastAckCredit = {false};
                p.runUntil(() -> {
                    if (p.chA.credits().remoteAcks() <= 1 && p.chB.credits().remoteAcks() <= 1) {
                        bothAtTheirLastAckCredit[0] = true;
                    }
                    return p.atA.size() == n && p.atB.size() == n;
                });
                assertTrue(bothAtTheirLastAckCredit[0], "seed " + seed + ": the run did drive both sides down to their last ack credit");
                assertMessages(p.atB, n, i -> 16);
                assertMessages(p.atA, n, i -> 16);
                assertEquals(0, p.b.counters().get(Counter.SEND_RNR_ERR) + p.a.counters().get(Counter.SEND_RNR_ERR));
            }
        }
    }

    @Test
    void readAndWriteStayWithinTheirQuotas() {
        CreditChannel.Config c = CreditChannel.Config.defaults().withReadWrite(2, 3);
        try (Pair p = Pair.sim(6, c, NO_RNR_RETRY)) {
            MemoryRegion la = p.pdA.registerMemory(ByteBuffer.allocateDirect(1 << 16), AccessFlags.LOCAL_WRITE);
            ByteBuffer remote = ByteBuffer.allocateDirect(1 << 16);
            MemoryRegion lb = p.pdB.registerMemory(remote, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                fs.add(p.chA.write(la.address() + i * 64L, 64, la.lkey(), lb.address() + i * 64L, lb.rkey()));
                fs.add(p.chA.read(la.address() + 8192 + i * 64L, 64, la.lkey(), lb.address() + i * 64L, lb.rkey()));
            }
            assertEquals(3, p.chA.transfersInFlight(false), "WRITE quota");
            assertEquals(2, p.chA.transfersInFlight(true), "READ quota");
            p.runUntil(() -> fs.stream().allMatch(CompletableFuture::isDone));
            assertEquals(10, p.chA.stats().writes());
            assertEquals(10, p.chA.stats().reads());
            assertTrue(p.chA.maxTransfersInFlight(false) <= 3 && p.chA.maxTransfersInFlight(true) <= 2);
        }
    }

    /** The soak's faults: RC recovers the losses; the channel's accounting stays exact. */
    @Test
    void throughTheSoaksFaultsEveryMessageArrivesOnceInOrderAndTheAccountingIsExact() {
        CreditChannel.Config c = CreditChannel.Config.defaults().withCredits(8, 2).withMessages(512, 4096);
        RcOptions o = NO_RNR_RETRY.withRetry(10, 7, 0);
        try (Pair p = Pair.sim(7, c, o)) {
            for (var d : List.of(p.net.direction(p.wireA(), p.wireB()), p.net.direction(p.wireB(), p.wireA()))) {
                d.fault(Faults.drop(0.05)).fault(Faults.reorder(0.05, 5_000)).fault(Faults.duplicate(0.01))
                        .fault(Faults.corrupt(0.001));
            }
            SplittableRandom r = new SplittableRandom(7);
            int n = 3000;
            int[] lenA = new int[n];
            int[] lenB = new int[n];
            for (int i = 0; i < n; i++) {
                lenA[i] = r.nextInt(1, 513);
                lenB[i] = r.nextInt(1, 513);
                p.chA.offer(message(i, lenA[i]));
                p.chB.offer(message(i, lenB[i]));
            }
            p.runUntil(() -> p.atA.size() == n && p.atB.size() == n && p.chA.stats().sent() == n && p.chB.stats().sent() == n);
            p.settle();
            assertMessages(p.atB, n, i -> lenA[i]);
            assertMessages(p.atA, n, i -> lenB[i]);
            assertTrue(p.a.counters().get(Counter.RETRANSMITTED_PKTS) > 0, "the faults did cost retransmissions");
            // Quiet: every credit is somewhere it can be named.
            for (CreditChannel[] s : new CreditChannel[][] {{p.chA, p.chB}, {p.chB, p.chA}}) {
                ChannelCredits mine = s[0].credits();
                ChannelCredits peer = s[1].credits();
                assertEquals(c.dataWr(), mine.localData());
                assertEquals(c.ackWr(), mine.localAcks());
                assertEquals(c.dataWr(), mine.remoteData() + peer.receivedData(), "data credits: with me or owed by the peer");
                assertEquals(c.ackWr(), mine.remoteAcks() + peer.receivedAcks(), "ack credits: with me or owed by the peer");
            }
        }
    }

    @Test
    void aFullQueueRefusesClearlyAndTooLongAMessageIsRefused() {
        CreditChannel.Config c = CreditChannel.Config.defaults().withCredits(2, 2).withMessages(16, 3);
        try (Pair p = Pair.sim(8, c, NO_RNR_RETRY)) {
            for (int i = 0; i < 5; i++) {
                assertTrue(p.chA.offer(message(i, 8)), "room for 2 in flight + 3 queued");
            }
            assertFalse(p.chA.offer(message(5, 8)));
            assertThrows(java.util.concurrent.RejectedExecutionException.class, () -> p.chA.sendAsync(message(5, 8)));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.chA.offer(message(0, 17)));
            assertTrue(e.getMessage().contains("17 bytes exceeds the channel's 16"), e.getMessage());
            assertEquals(4, p.chA.stats().queued(), "the first left at once; the rest wait for the next poll's batch");
            p.runUntil(() -> p.atB.size() == 5);
        }
    }

    @Test
    void blockingAndFutureSendsCompleteOnTheSimulatedNetwork() throws Exception {
        try (Pair p = Pair.sim(9, CreditChannel.Config.defaults(), NO_RNR_RETRY)) {
            CompletableFuture<Void> f = p.chA.sendAsync(message(0, 100));
            p.chA.send(message(1, 200), 10, TimeUnit.SECONDS); // runs virtual time until its SEND completes
            assertTrue(f.isDone());
            p.runUntil(() -> p.atB.size() == 2);
            assertMessages(p.atB, 2, i -> i == 0 ? 100 : 200);
        }
    }

    @Test
    void theSameChannelRunsOverUdpWithASlowReceiverAndNoRnrRetries() throws Exception {
        CreditChannel.Config slow = CreditChannel.Config.defaults().withCredits(16, 4).withMessages(128, 1024)
                .withRepostDelay(50_000);
        try (Pair p = new Pair(null, UdpWire.bind("127.0.88.1").open(), UdpWire.bind("127.0.88.2").open(), slow, NO_RNR_RETRY)) {
            int n = 5000;
            int next = 0;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while ((p.atB.size() < n || p.chA.stats().sent() < n) && System.nanoTime() < deadline) {
                while (next < n && p.chA.offer(message(next, 100))) {
                    next++;
                }
                if (p.chA.poll() + p.chB.poll() == 0) {
                    p.chB.cq().await(100_000);
                }
            }
            assertMessages(p.atB, n, i -> 100);
            assertEquals(0, p.b.counters().get(Counter.SEND_RNR_ERR));
            assertTrue(p.chA.stats().stalls() > 0);
        }
    }
}
