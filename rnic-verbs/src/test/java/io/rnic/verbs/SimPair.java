package io.rnic.verbs;

import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Two devices on a simulated network, each with a PD, a CQ and a 1 MiB registered buffer, and
 * helpers that run virtual time until completions arrive. Tests add the QPs they need.
 */
class SimPair implements AutoCloseable {
    static final int BUF = 1 << 20;
    static final int ALL_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;

    final SimNetwork net;
    final SimWire wireA;
    final SimWire wireB;
    final RdmaDevice a;
    final RdmaDevice b;
    final ProtectionDomain pdA;
    final ProtectionDomain pdB;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final ByteBuffer bufA = ByteBuffer.allocateDirect(BUF);
    final ByteBuffer bufB = ByteBuffer.allocate(BUF);
    final MemoryRegion mrA;
    final MemoryRegion mrB;

    SimPair(long seed) {
        this(seed, DeviceConfig.defaults());
    }

    /** Both devices opened with {@code config} (each with its own key seed). */
    SimPair(long seed, DeviceConfig config) {
        net = new SimNetwork(seed);
        wireA = net.attach("10.0.0.2");
        wireB = net.attach("10.0.0.3");
        a = RdmaDevice.open(wireA, config.withKeySeed(seed));
        b = RdmaDevice.open(wireB, config.withKeySeed(seed + 1));
        pdA = a.allocPd();
        pdB = b.allocPd();
        cqA = a.createCq(4096);
        cqB = b.createCq(4096);
        mrA = pdA.registerMemory(bufA, ALL_ACCESS);
        mrB = pdB.registerMemory(bufB, ALL_ACCESS);
    }

    /** A receive work request for {@code length} bytes at {@code offset} of B's buffer. */
    RecvWorkRequest recvB(long wrId, int offset, int length) {
        return new RecvWorkRequest().wrId(wrId).sge(mrB.address() + offset, length, mrB.lkey());
    }

    /** A signaled SEND of {@code length} bytes from {@code offset} of A's buffer. */
    SendWorkRequest sendA(long wrId, int offset, int length) {
        return new SendWorkRequest().wrId(wrId).opcode(WrOpcode.SEND).signaled(true)
                .sge(mrA.address() + offset, length, mrA.lkey());
    }

    /** Runs virtual time until {@code cq} holds {@code n} completions (or 60 virtual seconds pass). */
    List<WorkCompletion> await(CompletionQueue cq, int n) {
        net.scheduler().runUntil(() -> cq.size() >= n, 60_000_000_000L);
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        while (out.size() < n && cq.poll(wc)) {
            out.add(new WorkCompletion().set(wc));
        }
        if (out.size() < n) {
            throw new AssertionError("expected " + n + " completions, got " + out + "; A: " + a.counters() + " B: " + b.counters());
        }
        return out;
    }

    WorkCompletion await(CompletionQueue cq) {
        return await(cq, 1).get(0);
    }

    /** Runs the network until nothing is pending, and returns every completion {@code cq} holds. */
    List<WorkCompletion> drain(CompletionQueue cq) {
        settle();
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        while (cq.poll(wc)) {
            out.add(new WorkCompletion().set(wc));
        }
        return out;
    }

    /** Runs the network until nothing is pending. */
    void settle() {
        net.scheduler().runUntil(() -> false, 10_000_000_000L);
    }

    static void fill(ByteBuffer b, int off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            b.put(off + i, (byte) (seed + i * 31));
        }
    }

    static boolean same(ByteBuffer x, int xo, ByteBuffer y, int yo, int len) {
        for (int i = 0; i < len; i++) {
            if (x.get(xo + i) != y.get(yo + i)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        net.close();
    }
}
