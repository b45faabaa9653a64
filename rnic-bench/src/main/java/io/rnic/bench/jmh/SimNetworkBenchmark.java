package io.rnic.bench.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.rnic.transport.sim.LinkConfig;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Packets delivered through a two-HCA simulated link on one core: each invocation sends a batch
 * of 64-byte packets from A to B (1 µs latency, 100 Gb/s, 1 MiB queue) and runs the scheduler
 * until all are delivered. The packet is one pooled buffer, retained per send, so the figure is
 * the network's cost (event heap, link model, delivery, release), not the allocator's.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class SimNetworkBenchmark {
    static final int BATCH = 1024;

    private SimNetwork net;
    private SimWire a;
    private InetSocketAddress to;
    private ByteBuf packet;
    private long delivered;

    @Setup(Level.Trial)
    public void setUp() {
        net = new SimNetwork(1).defaults(LinkConfig.DEFAULT);
        a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        b.receiver((p, s, d) -> delivered++);
        to = b.localAddress();
        packet = PooledByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        net.close();
        packet.release();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long deliverPackets() {
        for (int i = 0; i < BATCH; i++) {
            a.send(packet.retain(), 4791, to);
        }
        net.scheduler().runUntilIdle();
        return delivered;
    }
}
