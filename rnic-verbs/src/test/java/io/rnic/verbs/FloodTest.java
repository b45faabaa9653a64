package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.transport.udp.UdpWire;
import java.lang.management.ManagementFactory;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A flood of garbage and forged datagrams at one HCA's RoCE port while a verified RC workload
 * runs between two HCAs on UDP loopback (issue 12, "Attack at scale"). The rule: bad input is
 * dropped (or NAKed, as the specification says) and counted, no exception escapes an event
 * loop, no registered memory is touched by a request that fails its checks, the workload is not
 * disturbed, memory stays bounded, and fresh QPs connect and work afterwards.
 *
 * <p>The count is {@code -Drnic.flood.count} (default 50 000; the documented long run is
 * 1 000 000, see docs/reliability.md), the seed {@code -Drnic.flood.seed}.
 */
class FloodTest {
    private static final int COUNT = Integer.getInteger("rnic.flood.count", 50_000);
    private static final long SEED = Long.getLong("rnic.flood.seed", 12);
    private static final int BUF = 1 << 20;
    private static final int CHUNK = 4096;
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;
    /** Garbage datagrams the attacker lets be unread by B at most (B's socket buffer is 4 MiB). */
    private static final int WINDOW = 512;
    private static final long TIMEOUT_NANOS = 30_000_000_000L;

    /** What the attacker sends; each kind names the check that must stop it. */
    enum Kind {
        /** Random bytes, 0..1500 long: wire (short / unaligned), decoder, or ICRC. */
        RANDOM_BYTES,
        /** A well-formed packet cut short: wire or decoder (truncated header) or ICRC. */
        TRUNCATED,
        /** A well-formed request to the workload QP with one ICRC bit flipped: rcvd_icrc_err. */
        BAD_ICRC,
        /** Correct ICRC, a QP number nobody has: rcvd_unknown_qp. */
        UNKNOWN_QPN,
        /** Correct ICRC from the peer's address, to a victim QP, at a random PSN: out of sequence/duplicate. */
        WRONG_PSN,
        /** Correct ICRC from the peer's address, to a victim QP, a WRITE with a random R_Key. */
        BAD_RKEY,
        /** Correct ICRC from the peer's address, to the workload QP, a P_Key not in the table: bad_pkey_cntr. */
        WRONG_PKEY,
        /** Correct ICRC, to the workload QP, from an address that is not its peer's: rcvd_addr_mismatch. */
        STRANGER,
        /** 9 217..65 507 bytes: more than the wire reads at once. */
        HUGE,
        /** 0..15 bytes: shorter than a BTH and ICRC (wire malformed). */
        TINY
    }

    @Test
    void aFloodOfGarbageAndForgeriesIsDroppedAndCountedWhileAVerifiedWorkloadRunsUndisturbed() throws Exception {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        root.addAppender(log);
        UdpWire wireA = UdpWire.bind("127.0.151.1").open();
        UdpWire wireB = UdpWire.bind("127.0.152.1").open();
        try (RdmaDevice a = RdmaDevice.open(wireA); RdmaDevice b = RdmaDevice.open(wireB)) {
            ProtectionDomain pdA = a.allocPd();
            ProtectionDomain pdB = b.allocPd();
            CompletionQueue cqA = a.createCq(1024); // three QPs complete here, each with its default send and receive depths (RNIC-W003)
            CompletionQueue cqB = b.createCq(1024);
            ByteBuffer bufA = ByteBuffer.allocateDirect(BUF);
            ByteBuffer bufB = ByteBuffer.allocateDirect(BUF);
            ByteBuffer canary = ByteBuffer.allocateDirect(64 << 10);
            for (int i = 0; i < canary.capacity(); i++) {
                canary.put(i, (byte) (i * 7 + 3));
            }
            byte[] canaryBefore = new byte[canary.capacity()];
            canary.get(0, canaryBefore);
            MemoryRegion mrA = pdA.registerMemory(bufA, ALL);
            MemoryRegion mrB = pdB.registerMemory(bufB, ALL);
            MemoryRegion mrCanary = pdB.registerMemory(canary, ALL);
            QueuePair qpA = pdA.createQp(QpInitAttributes.rc(cqA, cqA));
            QueuePair qpB = pdB.createQp(QpInitAttributes.rc(cqB, cqB));
            Connections.connectPair(qpA, mrA, 0x10, qpB, mrB, 0x20, RcOptions.defaults());
            // A victim pair: the peer-address forgeries (wrong PSN, bad R_Key) go to its responder.
            QueuePair victimA = pdA.createQp(QpInitAttributes.rc(cqA, cqA));
            QueuePair victimB = pdB.createQp(QpInitAttributes.rc(cqB, cqB));
            Connections.connectPair(victimA, mrA, 0x30, victimB, mrB, 0x40, RcOptions.defaults());

            Workload work = new Workload(qpA, cqA, mrA, bufA, mrB, bufB);
            work.round(0); // warm up before measuring the heap
            long heapBefore = usedHeapAfterGc();

            Attacker attacker = new Attacker(wireA, wireB, a, b, qpB, victimB, mrB, mrCanary);
            AtomicBoolean done = new AtomicBoolean();
            long t0 = System.nanoTime();
            CompletableFuture<Void> attack = CompletableFuture.runAsync(() -> {
                try {
                    attacker.run(COUNT);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                } finally {
                    done.set(true);
                }
            });
            int rounds = 1;
            while (!done.get() || rounds < 20) {
                work.round(rounds++);
            }
            attack.get(TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
            long wallNanos = System.nanoTime() - t0;

            // Every garbage datagram reached B's socket and was accounted for (the workload is
            // quiescent now: everything A sent has been read by B).
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            while (readByB(wireB) - a.counters().get(Counter.SENT_PKTS) < attacker.sent && System.nanoTime() < deadline) {
                Thread.yield();
            }
            var cb = b.counters();
            var wc = wireB.counters();
            long aSent = a.counters().get(Counter.SENT_PKTS);
            String report = "sent " + attacker.sent + " " + attacker.byKind + " in " + wallNanos / 1_000_000 + " ms, "
                    + rounds + " verified rounds; B: " + cb + " wire B: " + wc + "; A: " + a.counters();
            System.out.println("[FloodTest] " + report);
            assertEquals(COUNT, attacker.sent);
            assertEquals(attacker.sent, readByB(wireB) - aSent, "every datagram read by B is A's or the attacker's: " + report);
            assertEquals(wc.receivedPackets(), cb.get(Counter.RCVD_MALFORMED) + cb.get(Counter.RCVD_ICRC_ERR)
                    + cb.get(Counter.RCVD_PKTS), "every datagram handed to the HCA is counted once: " + report);
            long forgedWithGoodIcrc = attacker.n(Kind.UNKNOWN_QPN) + attacker.n(Kind.WRONG_PSN) + attacker.n(Kind.BAD_RKEY)
                    + attacker.n(Kind.WRONG_PKEY) + attacker.n(Kind.STRANGER);
            assertEquals(aSent + forgedWithGoodIcrc, cb.get(Counter.RCVD_PKTS), "only A and the forgers pass the ICRC");
            assertEquals(attacker.n(Kind.UNKNOWN_QPN), cb.get(Counter.RCVD_UNKNOWN_QP));
            assertEquals(attacker.n(Kind.WRONG_PKEY), cb.get(Counter.BAD_PKEY_CNTR));
            assertEquals(attacker.n(Kind.STRANGER), cb.get(Counter.RCVD_ADDR_MISMATCH));
            assertTrue(cb.get(Counter.RCVD_ICRC_ERR) >= attacker.n(Kind.BAD_ICRC), report);
            assertTrue(wc.malformedPackets() >= attacker.n(Kind.TINY), report);
            long victimAccounted = cb.get(Counter.OUT_OF_SEQ_REQUEST) + cb.get(Counter.DUPLICATE_REQUEST)
                    + cb.get(Counter.RCVD_WRONG_QP_STATE_OR_TYPE) + cb.get(Counter.NAKS_SENT) + cb.get(Counter.RCVD_DROPPED);
            assertTrue(victimAccounted >= attacker.n(Kind.WRONG_PSN) + attacker.n(Kind.BAD_RKEY),
                    "every forgery at the victim was dropped, NAKed or refused by its state: " + report);

            // No exception escaped an event loop: none caught by the HCAs, the wires, the agents.
            assertEquals(0, cb.get(Counter.INTERNAL_ERRORS), report);
            assertEquals(0, a.counters().get(Counter.INTERNAL_ERRORS), report);
            assertEquals(0, wc.handlerErrors(), report);
            assertEquals(0, wireA.counters().handlerErrors(), report);
            List<ILoggingEvent> warnings = log.list.stream()
                    .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN) && e.getLoggerName().startsWith("io.rnic"))
                    .toList();
            assertEquals(List.of(), warnings.stream().map(ILoggingEvent::getFormattedMessage).toList());

            // The forgeries touched no memory: the canary (valid R_Key, never written) is intact.
            byte[] canaryAfter = new byte[canary.capacity()];
            canary.get(0, canaryAfter);
            assertArrayEquals(canaryBefore, canaryAfter, "the canary region is byte-identical");
            assertEquals(0, cb.get(Counter.ATOMICS_EXECUTED));

            long heapAfter = usedHeapAfterGc();
            System.out.printf("[FloodTest] heap used after GC: before %d KiB, after %d KiB%n", heapBefore >> 10, heapAfter >> 10);
            assertTrue(heapAfter - heapBefore < 32L << 20,
                    "heap stays bounded: " + (heapBefore >> 10) + " KiB before, " + (heapAfter >> 10) + " KiB after");

            // Fresh QPs still connect and verify.
            QueuePair freshA = pdA.createQp(QpInitAttributes.rc(cqA, cqA));
            QueuePair freshB = pdB.createQp(QpInitAttributes.rc(cqB, cqB));
            Connections.connectPair(freshA, mrA, 0x50, freshB, mrB, 0x60, RcOptions.defaults());
            Workload fresh = new Workload(freshA, cqA, mrA, bufA, mrB, bufB);
            for (int i = 0; i < 10; i++) {
                fresh.round(1_000_000 + i);
            }
        } finally {
            root.detachAppender(log);
        }
    }

    private static long readByB(UdpWire wireB) {
        return wireB.counters().malformedPackets() + wireB.counters().receivedPackets();
    }

    private static long usedHeapAfterGc() {
        var mem = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return mem.getHeapMemoryUsage().getUsed();
    }

    /** WRITE a patterned chunk to B, READ it back, check both copies. */
    private static final class Workload {
        private final QueuePair qp;
        private final CompletionQueue cq;
        private final MemoryRegion mrA;
        private final ByteBuffer bufA;
        private final MemoryRegion mrB;
        private final ByteBuffer bufB;
        private final WorkCompletion wc = new WorkCompletion();

        Workload(QueuePair qp, CompletionQueue cq, MemoryRegion mrA, ByteBuffer bufA, MemoryRegion mrB, ByteBuffer bufB) {
            this.qp = qp;
            this.cq = cq;
            this.mrA = mrA;
            this.bufA = bufA;
            this.mrB = mrB;
            this.bufB = bufB;
        }

        void round(int n) throws InterruptedException {
            int slot = (n % 64) * CHUNK;
            int src = slot;
            int dst = BUF / 2 + slot;
            byte[] pattern = new byte[CHUNK];
            new SplittableRandom(n).nextBytes(pattern);
            bufA.put(src, pattern);
            qp.postSend(new SendWorkRequest().wrId(2L * n).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(mrA.address() + src, CHUNK, mrA.lkey()).rdma(mrB.address() + slot, mrB.rkey()));
            qp.postSend(new SendWorkRequest().wrId(2L * n + 1).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(mrA.address() + dst, CHUNK, mrA.lkey()).rdma(mrB.address() + slot, mrB.rkey()));
            for (int i = 0; i < 2; i++) {
                long deadline = System.nanoTime() + TIMEOUT_NANOS;
                while (!cq.poll(wc)) {
                    long left = deadline - System.nanoTime();
                    assertTrue(left > 0, "round " + n + " completion " + i);
                    cq.await(left);
                }
                assertEquals(WcStatus.SUCCESS, wc.status(), "round " + n + ": " + wc);
                assertEquals(2L * n + i, wc.wrId());
            }
            byte[] atB = new byte[CHUNK];
            bufB.get(slot, atB);
            byte[] back = new byte[CHUNK];
            bufA.get(dst, back);
            assertArrayEquals(pattern, atB, "round " + n + ": the WRITE landed");
            assertArrayEquals(pattern, back, "round " + n + ": the READ brought it back");
        }
    }

    /** Sends the garbage; paces itself so B's socket buffer never overflows (then every datagram is accounted). */
    private static final class Attacker {
        private final InetSocketAddress target;
        private final InetAddress peerIp;
        private final InetAddress strangerIp;
        private final UdpWire wireB;
        private final RdmaDevice a;
        private final QueuePair qpB;
        private final QueuePair victimB;
        private final MemoryRegion mrB;
        private final MemoryRegion canary;
        private final SplittableRandom rnd = new SplittableRandom(SEED);
        private final PacketEncoder encoder = new PacketEncoder();
        private final RocePacket scratch = new RocePacket();
        final Map<Kind, Long> byKind = new EnumMap<>(Kind.class);
        long sent;

        Attacker(UdpWire wireA, UdpWire wireB, RdmaDevice a, RdmaDevice b, QueuePair qpB, QueuePair victimB,
                 MemoryRegion mrB, MemoryRegion canary) throws Exception {
            this.target = wireB.localAddress();
            this.peerIp = wireA.localAddress().getAddress();
            this.strangerIp = InetAddress.getByName("127.0.153.1");
            this.wireB = wireB;
            this.a = a;
            this.qpB = qpB;
            this.victimB = victimB;
            this.mrB = mrB;
            this.canary = canary;
        }

        long n(Kind k) {
            return byKind.getOrDefault(k, 0L);
        }

        void run(int count) throws Exception {
            try (DatagramSocket fromPeer = new DatagramSocket(new InetSocketAddress(peerIp, 0));
                 DatagramSocket fromStranger = new DatagramSocket(new InetSocketAddress(strangerIp, 0))) {
                fromPeer.setSendBufferSize(1 << 20);
                Kind[] kinds = Kind.values();
                for (int i = 0; i < count; i++) {
                    Kind k = kinds[rnd.nextInt(kinds.length)];
                    DatagramSocket s = k == Kind.STRANGER ? fromStranger : fromPeer;
                    byte[] d = make(k, s);
                    while (sent - (readByB(wireB) - a.counters().get(Counter.SENT_PKTS)) > WINDOW) {
                        Thread.yield();
                    }
                    s.send(new DatagramPacket(d, d.length, target));
                    sent++;
                    byKind.merge(k, 1L, Long::sum);
                }
            }
        }

        private byte[] make(Kind k, DatagramSocket s) {
            return switch (k) {
                case RANDOM_BYTES -> random(rnd.nextInt(1501));
                case TINY -> random(rnd.nextInt(16));
                case HUGE -> random(9217 + rnd.nextInt(65507 - 9217 + 1));
                case TRUNCATED -> {
                    byte[] whole = sealed(writeTo(qpB.qpn(), rnd.nextInt(1 << 24), mrB.rkey(), mrB.address(), 64), s);
                    byte[] cut = new byte[rnd.nextInt(whole.length)];
                    System.arraycopy(whole, 0, cut, 0, cut.length);
                    yield cut;
                }
                case BAD_ICRC -> {
                    byte[] p = sealed(writeTo(qpB.qpn(), rnd.nextInt(1 << 24), canary.rkey(), canary.address(), 64), s);
                    p[p.length - 1 - rnd.nextInt(4)] ^= (byte) (1 << rnd.nextInt(8));
                    yield p;
                }
                case UNKNOWN_QPN -> sealed(writeTo(0x100000 + rnd.nextInt(0xEFFFFF), rnd.nextInt(1 << 24),
                        canary.rkey(), canary.address(), 64), s);
                case WRONG_PSN -> sealed(writeTo(victimB.qpn(), rnd.nextInt(1 << 24), rnd.nextInt(), canary.address(), 64), s);
                case BAD_RKEY -> sealed(writeTo(victimB.qpn(), 0x30 + rnd.nextInt(4), canary.rkey() ^ (1 + rnd.nextInt(255)),
                        canary.address(), 64), s);
                case WRONG_PKEY -> {
                    PacketFields f = writeTo(qpB.qpn(), rnd.nextInt(1 << 24), canary.rkey(), canary.address(), 64);
                    f.pkey = 0x0001 + rnd.nextInt(0x7FFE) | (rnd.nextBoolean() ? 0x8000 : 0); // low 15 bits never 0x7FFF
                    yield sealed(f, s);
                }
                case STRANGER -> sealed(writeTo(qpB.qpn(), rnd.nextInt(1 << 24), canary.rkey(), canary.address(), 64), s);
            };
        }

        private byte[] random(int n) {
            byte[] b = new byte[n];
            rnd.nextBytes(b);
            return b;
        }

        private PacketFields writeTo(int qpn, int psn, int rkey, long va, int len) {
            PacketFields f = new PacketFields().opcode(OpcodeTable.byName("RC_RDMA_WRITE_ONLY"));
            f.destQp = qpn;
            f.psn = psn;
            f.ackReq = true;
            f.rethVa = va;
            f.rethRkey = rkey;
            f.rethLength = len;
            f.payload(random(len));
            return f;
        }

        /** Encodes {@code f} with the ICRC a packet from {@code s} to B carries. */
        private byte[] sealed(PacketFields f, DatagramSocket s) {
            PseudoHeader ph = new PseudoHeader().addresses(s.getLocalAddress(), target.getAddress())
                    .ports(s.getLocalPort(), target.getPort());
            ByteBuf buf = Unpooled.buffer();
            encoder.encode(f, ph, buf, scratch);
            byte[] out = new byte[buf.readableBytes()];
            buf.readBytes(out);
            return out;
        }
    }
}
