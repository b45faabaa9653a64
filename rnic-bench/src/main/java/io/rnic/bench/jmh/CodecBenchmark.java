package io.rnic.bench.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.rnic.core.packet.DecodeResult;
import io.rnic.core.packet.Icrc;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketDecoder;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RethFlyweight;
import io.rnic.core.packet.RocePacket;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/** Packet decode and ICRC speed on pooled direct buffers, as the UDP wire delivers them. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class CodecBenchmark {
    private final PacketDecoder decoder = new PacketDecoder();
    private final RocePacket view = new RocePacket();
    private final Icrc icrc = new Icrc();
    private final PseudoHeader flow = new PseudoHeader();
    private ByteBuf write;
    private int writeLength;
    private ByteBuf big;
    private int bigLength;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        flow.addresses(InetAddress.getByName("127.0.0.2"), InetAddress.getByName("127.0.0.3")).ports(0xC132, 4791);
        PacketEncoder encoder = new PacketEncoder();
        PacketFields f = new PacketFields().opcode(OpcodeTable.byName("RC_RDMA_WRITE_ONLY")).payload(new byte[64]);
        f.destQp = 0x12;
        f.psn = 77;
        f.rethVa = 0x7f0000001000L;
        f.rethRkey = 0x1234;
        f.rethLength = 64;
        write = PooledByteBufAllocator.DEFAULT.directBuffer(256);
        writeLength = encoder.encode(f, flow, write, view);

        PacketFields g = new PacketFields().opcode(OpcodeTable.byName("RC_SEND_MIDDLE")).payload(new byte[4096 - 16]);
        big = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
        bigLength = encoder.encode(g, flow, big, view);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        write.release();
        big.release();
    }

    /** Structural decode of an RDMA WRITE Only and a read of its BTH and RETH fields. */
    @Benchmark
    public long decodeBthAndReth() {
        if (decoder.decode(write, 0, writeLength, view) != DecodeResult.OK) {
            return -1;
        }
        RethFlyweight reth = view.reth();
        return view.bth().psn() + view.bth().destQp() + reth.virtualAddress() + reth.rkey() + reth.dmaLength();
    }

    /** Structural decode alone, for comparison with {@link #decodeBthAndReth}. */
    @Benchmark
    public int decodeOnly() {
        return decoder.decode(write, 0, writeLength, view).ordinal();
    }

    /** ICRC of a 4096-byte packet (BTH through ICRC); GB/s = 4096 / (ns/op). */
    /** ICRC check of a 64-byte RDMA WRITE Only: the per-packet cost the small-message paths pay twice per packet. */
    @Benchmark
    public boolean icrcVerifyWrite64() {
        return icrc.verify(flow, write, 0, writeLength);
    }

    @Benchmark
    public int icrc4KiB() {
        return icrc.compute(flow, big, 0, bigLength);
    }
}
