package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rnic.transport.pcap.PcapFrame;
import io.rnic.transport.pcap.PcapReader;
import io.rnic.transport.pcap.PcapWriter;
import io.rnic.transport.pcap.RoceCaptureDecoder;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.Counter;
import io.rnic.verbs.LossRecovery;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real verbs on a fabric: eight hosts each RDMA WRITE 256 KiB to one host of a star at once (an
 * 8:1 incast) on RC QPs. With PFC the lossless priority drops nothing; without it, a small buffer
 * drops and the QPs' own retransmission (go-back-N, or selective retransmission) recovers every
 * byte. ECN marks reach the receiving QPs, and the capture of every host link holds the RoCEv2
 * packets (ICRCs good, CE marks and all) and real 802.1Qbb PAUSE frames.
 */
class FabricRdmaTest {
    static final long G100 = 100_000_000_000L;
    static final int SIZE = 256 * 1024;
    static final int SENDERS = 8;

    /** The incast's outcome. */
    record Outcome(Fabric fabric, List<WcStatus> statuses, boolean bytesIntact, long retransmitted, long ecnMarkedAtReceiver) {
        long drops() {
            return fabric.portStats().stream().mapToLong(PortStats::drops).sum();
        }

        long pauses() {
            return fabric.portStats().stream().mapToLong(PortStats::pausesSent).sum();
        }
    }

    static Outcome incast(long seed, FabricConfig config, LossRecovery recovery, PcapWriter capture) {
        try (SimNetwork net = new SimNetwork(seed)) {
            Fabric fabric = Fabric.attach(net, Topology.star(SENDERS + 1, G100, 1_000), config);
            if (capture != null) {
                fabric.capture(capture);
            }
            int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
            RdmaDevice receiver = RdmaDevice.open(fabric.host(0));
            ProtectionDomain rpd = receiver.allocPd();
            CompletionQueue rcq = receiver.createCq(64);
            ByteBuffer sink = ByteBuffer.allocateDirect(SENDERS * SIZE);
            MemoryRegion rmr = rpd.registerMemory(sink, access);
            List<RdmaDevice> devices = new ArrayList<>();
            List<CompletionQueue> cqs = new ArrayList<>();
            RcOptions o = RcOptions.defaults().withLossRecovery(recovery).withRetry(14, 7, 7);
            for (int s = 1; s <= SENDERS; s++) {
                RdmaDevice d = RdmaDevice.open(fabric.host(s));
                devices.add(d);
                ProtectionDomain pd = d.allocPd();
                CompletionQueue cq = d.createCq(16);
                cqs.add(cq);
                ByteBuffer src = ByteBuffer.allocateDirect(SIZE);
                for (int i = 0; i < SIZE; i++) {
                    src.put(i, (byte) (s * 31 + i * 7));
                }
                MemoryRegion mr = pd.registerMemory(src, access);
                QueuePair qp = pd.createQp(QpInitAttributes.rc(cq, cq));
                QueuePair rqp = rpd.createQp(QpInitAttributes.rc(rcq, rcq));
                Connections.connectPair(qp, mr, 100 * s, rqp, rmr, 5000 + s, o);
                qp.postSend(new SendWorkRequest().wrId(s).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                        .sge(mr.address(), SIZE, mr.lkey()).rdma(rmr.address() + (long) (s - 1) * SIZE, rmr.rkey()));
            }
            List<WcStatus> statuses = new ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            assertTrue(net.scheduler().runUntil(() -> {
                for (CompletionQueue cq : cqs) {
                    while (cq.poll(wc)) {
                        statuses.add(wc.status());
                    }
                }
                return statuses.size() == SENDERS;
            }, TimeUnit.SECONDS.toNanos(10)), "every WRITE completed");
            boolean intact = true;
            for (int s = 1; s <= SENDERS; s++) {
                for (int i = 0; i < SIZE; i++) {
                    intact &= sink.get((s - 1) * SIZE + i) == (byte) (s * 31 + i * 7);
                }
            }
            long retransmitted = devices.stream().mapToLong(d -> d.counters().get(Counter.RETRANSMITTED_PKTS)).sum();
            return new Outcome(fabric, statuses, intact, retransmitted,
                    receiver.counters().get(Counter.NP_ECN_MARKED_ROCE_PACKETS));
        }
    }

    private static final FabricConfig SMALL_BUFFER = FabricConfig.DEFAULT.withBufferBytes(1 << 20)
            .withEcnThresholds(EcnThresholds.defaults().with(G100, 20_000, 200_000, 0.2));

    @Test
    void anIncastOfRcWritesWithPfcCompletesAndDropsNothing() {
        Outcome o = incast(1, SMALL_BUFFER, LossRecovery.GO_BACK_N, null);
        assertEquals(List.of(WcStatus.SUCCESS), o.statuses().stream().distinct().toList());
        assertTrue(o.bytesIntact());
        assertEquals(0, o.drops(), "a lossless priority under PFC drops nothing");
        assertEquals(0, o.retransmitted());
        assertTrue(o.pauses() > 0, "the 1 MiB buffer paused the senders");
        assertTrue(o.ecnMarkedAtReceiver() > 0, "CE marks reached the receiving QPs (np_ecn_marked_roce_packets)");
    }

    @Test
    void withoutPfcTheBufferDropsAndGoBackNRecoversEveryByte() {
        Outcome o = incast(1, SMALL_BUFFER.withPfc(false), LossRecovery.GO_BACK_N, null);
        assertTrue(o.drops() > 0, "the bottleneck dropped");
        assertTrue(o.retransmitted() > 0);
        assertEquals(List.of(WcStatus.SUCCESS), o.statuses().stream().distinct().toList());
        assertTrue(o.bytesIntact(), "every byte placed, after retransmission");
    }

    @Test
    void withoutPfcSelectiveRetransmissionRecoversEveryByteResendingLess() {
        Outcome gbn = incast(1, SMALL_BUFFER.withPfc(false), LossRecovery.GO_BACK_N, null);
        Outcome sr = incast(1, SMALL_BUFFER.withPfc(false), LossRecovery.SELECTIVE, null);
        assertEquals(List.of(WcStatus.SUCCESS), sr.statuses().stream().distinct().toList());
        assertTrue(sr.bytesIntact());
        assertTrue(sr.retransmitted() < gbn.retransmitted(), "selective retransmission resends less: "
                + sr.retransmitted() + " against go-back-N's " + gbn.retransmitted());
    }

    @Test
    void theSameSeedGivesTheSameIncast() {
        Outcome a = incast(4, SMALL_BUFFER, LossRecovery.GO_BACK_N, null);
        Outcome b = incast(4, SMALL_BUFFER, LossRecovery.GO_BACK_N, null);
        assertEquals(a.fabric().portStats(), b.fabric().portStats());
        assertEquals(a.fabric().flows(), b.fabric().flows());
    }

    @Test
    void theCaptureHoldsGoodRoceV2PacketsCeMarksAndRealPfcFrames(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("incast.pcap");
        try (PcapWriter w = new PcapWriter(file)) {
            incast(2, SMALL_BUFFER, LossRecovery.GO_BACK_N, w);
        }
        RoceCaptureDecoder decoder = new RoceCaptureDecoder();
        int frames = 0;
        try (PcapReader r = PcapReader.open(file)) {
            for (PcapFrame f = r.next(); f != null; f = r.next()) {
                frames++;
                decoder.decode(f);
            }
        }
        assertTrue(decoder.allClean(), "every RoCEv2 packet decodes with a good ICRC, CE-marked ones too: "
                + decoder.summary());
        assertTrue(frames > SENDERS * SIZE / 1024, "the capture holds the incast: " + frames + " frames");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/tshark")), "tshark not installed");
        String pfc = tshark(dir, "-r", file.toString(), "-Y", "macc.opcode == 0x0101", "-T", "fields", "-e",
                "macc.cbfc.enbv", "-e", "macc.cbfc.pause_time.c3");
        List<String> lines = pfc.lines().toList();
        assertTrue(!lines.isEmpty(), "tshark sees CBFC PAUSE frames");
        assertTrue(lines.stream().allMatch(l -> l.startsWith("0x0008\t") || l.startsWith("0x08\t")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.endsWith("\t65535")), "a PAUSE of 0xFFFF quanta");
        assertTrue(lines.stream().anyMatch(l -> l.endsWith("\t0")), "and a RESUME");
        String ecn = tshark(dir, "-r", file.toString(), "-Y", "ip.dsfield.ecn == 3", "-T", "fields", "-e", "ip.dsfield.dscp");
        assertTrue(ecn.lines().count() > 0 && ecn.lines().allMatch(l -> l.equals("26")), "CE marks on DSCP 26, as captured");
        String expert = tshark(dir, "-r", file.toString(), "-q", "-z", "expert,warn");
        assertTrue(!expert.contains("Warning") && !expert.contains("Error"), expert);
    }

    private static String tshark(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("/usr/bin/tshark");
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "tshark", ".out");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "tshark finished");
        assertEquals(0, p.exitValue(), "tshark " + cmd);
        return Files.readString(out, StandardCharsets.UTF_8);
    }
}
