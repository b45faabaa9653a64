package io.rnic.bench.soak;

import io.rnic.bench.console.Progress;
import io.rnic.bench.demo.DemoPair;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.SplittableRandom;

/**
 * A seeded mix of RC operations — SEND, RDMA WRITE, RDMA READ (single- and multi-packet),
 * CMP_SWAP and FETCH_ADD — kept {@value #WINDOW} deep in flight between the two HCAs of a
 * {@link DemoPair}, with every byte and every completion verified and the FETCH_ADDs checked to
 * have executed exactly once each (their original values are exactly 0..n-1).
 */
public final class MixedWorkload {
    static final int WINDOW = 32;
    static final int SLOT = 16 * 1024;
    static final int MAX_LEN = 12 * 1024;
    static final int RECV_BASE = WINDOW * SLOT;
    static final int CAS_BASE = DemoPair.BUFFER - 4096;
    static final int ATOMIC_WRITE_BASE = DemoPair.BUFFER - 2048;
    static final int FAA_COUNTER = DemoPair.BUFFER - 8;

    /** What a run did. */
    public record Result(long ops, long sends, long writes, long reads, long compareSwaps, long fetchAdds,
                         long atomicWrites, long flushes, long failures, String firstFailure) {
        public boolean ok() {
            return failures == 0;
        }
    }

    private enum Kind {
        SEND(WrOpcode.SEND), WRITE(WrOpcode.RDMA_WRITE), READ(WrOpcode.RDMA_READ), CAS(WrOpcode.ATOMIC_CMP_AND_SWP),
        FAA(WrOpcode.ATOMIC_FETCH_AND_ADD), ATOMIC_WRITE(WrOpcode.ATOMIC_WRITE), FLUSH(WrOpcode.FLUSH);

        final WrOpcode opcode;

        Kind(WrOpcode opcode) {
            this.opcode = opcode;
        }
    }

    private final DemoPair p;
    private final SplittableRandom random;
    private final SendWorkRequest swr = new SendWorkRequest();
    private final RecvWorkRequest rwr = new RecvWorkRequest();
    private final WorkCompletion wc = new WorkCompletion();
    private final ByteBuffer leA;
    private final ByteBuffer leB;
    private final Kind[] kinds = new Kind[WINDOW];
    private final int[] lengths = new int[WINDOW];
    private final long[] casValue = new long[WINDOW];
    private final ArrayDeque<long[]> sendsInFlight = new ArrayDeque<>();
    private final BitSet faaOriginals = new BitSet();
    private long recvPosted;
    private long recvDone;
    private long sends;
    private long writes;
    private long reads;
    private long cas;
    private long faa;
    private long atomicWrites;
    private long flushes;
    private long failures;
    private String firstFailure;

    public MixedWorkload(DemoPair pair, long seed) {
        this.p = pair;
        this.random = new SplittableRandom(seed);
        this.leA = pair.bufA.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        this.leB = pair.bufB.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    private static byte pattern(long op, int i) {
        return (byte) (op * 0x9E37 + i * 7 + (op >>> 8));
    }

    private static void fill(ByteBuffer b, int off, int len, long op) {
        for (int i = 0; i < len; i++) {
            b.put(off + i, pattern(op, i));
        }
    }

    private static boolean check(ByteBuffer b, int off, int len, long op) {
        for (int i = 0; i < len; i++) {
            if (b.get(off + i) != pattern(op, i)) {
                return false;
            }
        }
        return true;
    }

    private void fail(String what) {
        failures++;
        if (firstFailure == null) {
            firstFailure = what;
        }
    }

    /** Runs {@code ops} operations; returns when all completed or the first error stopped the QPs. */
    public Result run(long ops) throws InterruptedException {
        return run(ops, Progress.none());
    }

    /** {@link #run(long)}, reporting the operations completed to {@code progress}. */
    public Result run(long ops, Progress progress) throws InterruptedException {
        progress.start("soak", ops, "operations");
        leB.putLong(FAA_COUNTER, 0);
        while (recvPosted < WINDOW) {
            postRecv();
        }
        long posted = 0;
        long completed = 0;
        while (completed < ops && failures == 0) {
            while (posted < ops && posted - completed < WINDOW) {
                post(posted++);
            }
            if (!p.await(p.cqA, wc)) {
                fail("no completion for op " + completed + " (A " + p.a.counters() + ", B " + p.b.counters() + ")");
                break;
            }
            do {
                drainReceives();
                complete(completed++, wc);
            } while (completed < posted && p.cqA.poll(wc));
            progress.update(completed);
        }
        drainReceives();
        if (failures == 0) {
            long counter = leB.getLong(FAA_COUNTER);
            if (counter != faa || faaOriginals.cardinality() != faa || faaOriginals.nextSetBit((int) faa) != -1) {
                fail("FETCH_ADD not exactly once: counter " + counter + ", " + faa + " operations, "
                        + faaOriginals.cardinality() + " distinct originals");
            }
        }
        return new Result(completed, sends, writes, reads, cas, faa, atomicWrites, flushes, failures, firstFailure);
    }

    private void postRecv() {
        int slot = (int) (recvPosted % WINDOW);
        p.postRecvB(rwr.reset().wrId(recvPosted).sge(p.mrB.address() + RECV_BASE + (long) slot * SLOT, SLOT, p.mrB.lkey()));
        recvPosted++;
    }

    private void drainReceives() {
        WorkCompletion r = new WorkCompletion();
        while (p.cqB.poll(r)) {
            long[] send = sendsInFlight.poll();
            int slot = (int) (recvDone % WINDOW);
            if (r.status() != WcStatus.SUCCESS || send == null || r.opcode() != WcOpcode.RECV) {
                fail("receive " + recvDone + ": " + r);
            } else if (r.byteLen() != send[1] || !check(p.bufB, RECV_BASE + slot * SLOT, (int) send[1], send[0])) {
                fail("SEND op " + send[0] + ": received data differs (" + r + ")");
            }
            recvDone++;
            postRecv();
        }
    }

    private void post(long op) {
        int slot = (int) (op % WINDOW);
        int off = slot * SLOT;
        int roll = random.nextInt(100);
        Kind k = roll < 30 ? Kind.SEND : roll < 53 ? Kind.WRITE : roll < 76 ? Kind.READ : roll < 85 ? Kind.CAS
                : roll < 94 ? Kind.FAA : roll < 97 ? Kind.ATOMIC_WRITE : Kind.FLUSH;
        if (!p.carries(k.opcode)) {
            k = Kind.WRITE; // RD has no ATOMIC WRITE or FLUSH: a WRITE takes their place
        }
        int len = random.nextBoolean() ? random.nextInt(257) : random.nextInt(MAX_LEN + 1);
        kinds[slot] = k;
        lengths[slot] = len;
        swr.reset().wrId(op).signaled(true);
        switch (k) {
            case SEND -> {
                fill(p.bufA, off, len, op);
                sendsInFlight.add(new long[] {op, len});
                p.postA(swr.opcode(WrOpcode.SEND).sge(p.mrA.address() + off, len, p.mrA.lkey()));
                sends++;
            }
            case WRITE -> {
                fill(p.bufA, off, len, op);
                p.postA(swr.opcode(WrOpcode.RDMA_WRITE).sge(p.mrA.address() + off, len, p.mrA.lkey())
                        .rdma(p.mrB.address() + off, p.mrB.rkey()));
                writes++;
            }
            case READ -> {
                fill(p.bufB, off, len, op);
                p.postA(swr.opcode(WrOpcode.RDMA_READ).sge(p.mrA.address() + off, len, p.mrA.lkey())
                        .rdma(p.mrB.address() + off, p.mrB.rkey()));
                reads++;
            }
            case CAS -> {
                long v = random.nextLong();
                casValue[slot] = v;
                leB.putLong(CAS_BASE + slot * 8, v);
                p.postA(swr.opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sge(p.mrA.address() + off, 8, p.mrA.lkey())
                        .atomic(p.mrB.address() + CAS_BASE + slot * 8L, p.mrB.rkey(), v, ~v));
                cas++;
            }
            case ATOMIC_WRITE -> {
                long v = random.nextLong();
                casValue[slot] = v;
                leA.putLong(off, v);
                p.postA(swr.sge(p.mrA.address() + off, 8, p.mrA.lkey())
                        .atomicWrite(p.mrB.address() + ATOMIC_WRITE_BASE + slot * 8L, p.mrB.rkey()));
                atomicWrites++;
            }
            case FLUSH -> {
                // After the WRITEs before it, over a slot's worth of B's region: global visibility.
                p.postA(swr.flush(p.mrB.address() + off, p.mrB.rkey(), len, SendWorkRequest.FLUSH_GLOBAL,
                        SendWorkRequest.FLUSH_RANGE));
                flushes++;
            }
            case FAA -> {
                p.postA(swr.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sge(p.mrA.address() + off, 8, p.mrA.lkey())
                        .atomic(p.mrB.address() + FAA_COUNTER, p.mrB.rkey(), 1, 0));
                faa++;
            }
            default -> throw new IllegalStateException();
        }
    }

    private void complete(long op, WorkCompletion c) {
        int slot = (int) (op % WINDOW);
        int off = slot * SLOT;
        int len = lengths[slot];
        if (c.status() != WcStatus.SUCCESS || c.wrId() != op) {
            fail("op " + op + " (" + kinds[slot] + " " + len + " B): " + c + "; A " + p.a.counters() + "; B " + p.b.counters());
            return;
        }
        switch (kinds[slot]) {
            case WRITE -> {
                if (!check(p.bufB, off, len, op)) {
                    fail("WRITE op " + op + ": remote data differs");
                }
            }
            case READ -> {
                if (!check(p.bufA, off, len, op)) {
                    fail("READ op " + op + ": local data differs");
                }
            }
            case CAS -> {
                long v = casValue[slot];
                if (leA.getLong(off) != v || leB.getLong(CAS_BASE + slot * 8) != ~v) {
                    fail("CMP_SWAP op " + op + ": original " + leA.getLong(off) + ", expected " + v);
                }
            }
            case ATOMIC_WRITE -> {
                if (leB.getLong(ATOMIC_WRITE_BASE + slot * 8) != casValue[slot]) {
                    fail("ATOMIC_WRITE op " + op + ": remote value " + leB.getLong(ATOMIC_WRITE_BASE + slot * 8)
                            + ", expected " + casValue[slot]);
                }
            }
            case FLUSH -> {
                if (c.opcode() != io.rnic.verbs.WcOpcode.FLUSH || c.byteLen() != len) {
                    fail("FLUSH op " + op + ": " + c);
                }
            }
            case FAA -> {
                long original = leA.getLong(off);
                if (original < 0 || original >= Integer.MAX_VALUE || faaOriginals.get((int) original)) {
                    fail("FETCH_ADD op " + op + ": original value " + original + " seen twice or out of range");
                } else {
                    faaOriginals.set((int) original);
                }
            }
            default -> { }
        }
    }
}
