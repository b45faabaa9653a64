package io.rnic.bench.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.rnic.core.wire.WireReceiver;
import io.rnic.transport.fabric.Fabric;
import io.rnic.transport.fabric.FabricConfig;
import io.rnic.transport.fabric.Topology;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * Frames through a simulated fabric on one core: a k=4 fat tree (16 hosts, 20 switches, 100 Gb/s,
 * 1 µs links, the default switch: shared buffer, ECN, PFC); each invocation sends 1,024 frames of
 * 1 KiB from every host to the host eight further on (across the core: five links, four
 * switches), 64 source ports per host so ECMP spreads them, and runs the network until all are
 * delivered. The figure is frames per second; {@code events} counts the scheduler's events per
 * frame's worth (each hop is two: the frame's arrival and its port's end of transmission).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class FabricBenchmark {
    static final int BATCH = 1024;

    /** Scheduler events run, read per operation by JMH. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Events {
        /** Events the scheduler ran. */
        public long events;
    }

    private SimNetwork net;
    private final SimWire[] hosts = new SimWire[16];
    private final InetSocketAddress[] peers = new InetSocketAddress[16];
    private final int[][] ports = new int[16][64];
    private ByteBuf packet;
    private long delivered;

    @Setup(Level.Trial)
    public void setUp() {
        net = new SimNetwork(1);
        Fabric fabric = Fabric.attach(net, Topology.fatTree(4, 100_000_000_000L, 1_000), FabricConfig.DEFAULT);
        for (int h = 0; h < 16; h++) {
            hosts[h] = fabric.host(h);
            hosts[h].receiver((WireReceiver) (p, s, d) -> delivered++);
        }
        for (int h = 0; h < 16; h++) {
            peers[h] = hosts[(h + 8) % 16].localAddress();
            for (int k = 0; k < 64; k++) {
                ports[h][k] = hosts[h].openFlow(0xC000 + k * 37);
            }
        }
        packet = PooledByteBufAllocator.DEFAULT.directBuffer(1024).writeZero(1024);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        net.close();
        packet.release();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long deliverFrames(Events events) {
        long before = net.scheduler().executed();
        for (int i = 0; i < BATCH; i++) {
            int h = i & 15;
            hosts[h].send(packet.retain(), ports[h][(i >>> 4) & 63], peers[h], 26 << 2 | 2);
        }
        net.scheduler().runUntilIdle();
        events.events += net.scheduler().executed() - before;
        return delivered;
    }
}
