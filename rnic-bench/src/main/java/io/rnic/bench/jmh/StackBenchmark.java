package io.rnic.bench.jmh;

import io.rnic.transport.sim.SimNetwork;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The whole stack on the simulated network, on one core: an RC QP pair between two emulated
 * HCAs (1 µs, 100 Gb/s link), each invocation a burst of {@link #BURST} signaled messages of
 * {@code size} bytes (WRITE, or SEND into posted receives), run in virtual time until every
 * completion is polled. One op is one message: two packets (the request and its ACK) through
 * posting, framing, ICRC, the link, decoding, the responder, the completer and both CQs.
 * {@code -prof gc} shows what a message allocates in steady state (the goal: nothing).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
@State(Scope.Thread)
public class StackBenchmark {
    static final int BURST = 64;

    @Param({"64", "4096"})
    public int size;

    private SimNetwork net;
    private RdmaDevice a;
    private RdmaDevice b;
    private CompletionQueue cqA;
    private CompletionQueue cqB;
    private QueuePair qpA;
    private QueuePair qpB;
    private MemoryRegion mrA;
    private MemoryRegion mrB;
    private final SendWorkRequest swr = new SendWorkRequest();
    private final RecvWorkRequest rwr = new RecvWorkRequest();
    private final WorkCompletion[] wcs = new WorkCompletion[BURST];

    @Setup(Level.Trial)
    public void setUp() {
        net = new SimNetwork(1);
        a = RdmaDevice.open(net.attach("10.0.0.1"));
        b = RdmaDevice.open(net.attach("10.0.0.2"));
        ProtectionDomain pa = a.allocPd();
        ProtectionDomain pb = b.allocPd();
        cqA = a.createCq(4 * BURST);
        cqB = b.createCq(4 * BURST);
        int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
        mrA = pa.registerMemory(ByteBuffer.allocateDirect(1 << 20), access);
        mrB = pb.registerMemory(ByteBuffer.allocateDirect(1 << 20), access);
        QpCaps caps = new QpCaps(2 * BURST, 2 * BURST, 1, 1, 0);
        qpA = pa.createQp(QpInitAttributes.rc(cqA, cqA).withCaps(caps));
        qpB = pb.createQp(QpInitAttributes.rc(cqB, cqB).withCaps(caps));
        Connections.connectPair(qpA, mrA, 1, qpB, mrB, 2, RcOptions.defaults());
        for (int i = 0; i < BURST; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        qpA.close();
        qpB.close();
        a.close();
        b.close();
        net.close();
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public int write() {
        for (int i = 0; i < BURST; i++) {
            qpA.postSend(swr.reset().wrId(i).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(mrA.address(), size, mrA.lkey()).rdma(mrB.address(), mrB.rkey()));
        }
        return drain(cqA, BURST);
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public int send() {
        for (int i = 0; i < BURST; i++) {
            qpB.postRecv(rwr.reset().wrId(i).sge(mrB.address(), size, mrB.lkey()));
        }
        for (int i = 0; i < BURST; i++) {
            qpA.postSend(swr.reset().wrId(i).opcode(WrOpcode.SEND).signaled(true).sge(mrA.address(), size, mrA.lkey()));
        }
        return drain(cqA, BURST) + drain(cqB, BURST);
    }

    /** Runs virtual time until {@code n} completions are polled from {@code cq}. */
    private int drain(CompletionQueue cq, int n) {
        int got = 0;
        while (got < n) {
            int k = cq.poll(wcs);
            for (int i = 0; i < k; i++) {
                if (!wcs[i].isSuccess()) {
                    throw new IllegalStateException(wcs[i].toString());
                }
            }
            got += k;
            if (k == 0 && !net.scheduler().runNext()) {
                throw new IllegalStateException("the network went idle with " + got + " of " + n + " completions");
            }
        }
        return got;
    }
}
