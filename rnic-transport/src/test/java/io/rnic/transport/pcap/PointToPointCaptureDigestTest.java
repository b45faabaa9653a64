package io.rnic.transport.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.sim.SimNetwork;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A capture on the point-to-point simulated network is byte for byte what it was before packets
 * carried an IP TOS byte through the wire: without a fabric, an HCA sends TOS 0 (no DSCP, ECN
 * off), as it always did. The digest below was taken from the code before that change and must
 * not move.
 */
class PointToPointCaptureDigestTest {
    static final String DIGEST = "cf0e24f8f05206ced2c307ca761c200c547ee71a7b9411420b6251cd4967e529";

    @Test
    void anRcConversationOnPointToPointLinksCapturesTheSameBytesAsBefore(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("rc.pcap");
        try (SimNetwork net = new SimNetwork(5); PcapCapture capture = new PcapCapture(file)) {
            RdmaDevice a = RdmaDevice.open(net.attach("10.0.5.1"));
            RdmaDevice b = RdmaDevice.open(net.attach("10.0.5.2"));
            capture.attach(a.wire());
            int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
            ProtectionDomain pa = a.allocPd();
            ProtectionDomain pb = b.allocPd();
            CompletionQueue ca = a.createCq(16);
            CompletionQueue cb = b.createCq(16);
            ByteBuffer ba = ByteBuffer.allocateDirect(8192);
            ByteBuffer bb = ByteBuffer.allocateDirect(8192);
            for (int i = 0; i < 8192; i++) {
                ba.put(i, (byte) i);
            }
            MemoryRegion ma = pa.registerMemory(ba, access);
            MemoryRegion mb = pb.registerMemory(bb, access);
            QueuePair qa = pa.createQp(QpInitAttributes.rc(ca, ca));
            QueuePair qb = pb.createQp(QpInitAttributes.rc(cb, cb));
            Connections.connectPair(qa, ma, 0x100, qb, mb, 0x200, RcOptions.defaults());
            qb.postRecv(new RecvWorkRequest().wrId(1).sge(mb.address(), 4096, mb.lkey()));
            qa.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(ma.address(), 3000, ma.lkey()));
            qa.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(ma.address(), 5000, ma.lkey()).rdma(mb.address() + 100, mb.rkey()));
            qa.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(ma.address() + 6000, 2000, ma.lkey()).rdma(mb.address() + 100, mb.rkey()));
            WorkCompletion wc = new WorkCompletion();
            int[] done = {0};
            assertTrue(net.scheduler().runUntil(() -> {
                while (ca.poll(wc)) {
                    done[0]++;
                }
                return done[0] == 3;
            }, 1_000_000_000L));
        }
        byte[] bytes = Files.readAllBytes(file);
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        assertEquals(DIGEST, sha);
    }
}
