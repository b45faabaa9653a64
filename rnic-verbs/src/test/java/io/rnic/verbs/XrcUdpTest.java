package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.udp.HcaAgent;
import io.rnic.transport.udp.UdpWire;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * XRC over the real wire: two devices on UDP loopback, an initiator on one reaching two XRC SRQs
 * (two processes, two PDs, two CQs) of the other through one target QP, with SEND, SEND with
 * immediate, WRITE, READ and atomics; every byte and completion checked. The rules themselves
 * are proved on the simulated network ({@link XrcTest}).
 */
class XrcUdpTest {
    private static final long TIMEOUT_NANOS = 10_000_000_000L;

    private static List<WorkCompletion> await(CompletionQueue cq, int n) throws InterruptedException {
        List<WorkCompletion> out = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        WorkCompletion wc = new WorkCompletion();
        while (out.size() < n) {
            if (cq.poll(wc)) {
                out.add(new WorkCompletion().set(wc));
                continue;
            }
            long left = deadline - System.nanoTime();
            assertTrue(left > 0, "expected " + n + " completions, got " + out);
            cq.await(left);
        }
        return out;
    }

    @Test
    void oneInitiatorReachesTwoProcessesSrqsThroughOneTargetQpOverUdp() throws Exception {
        try (RdmaDevice a = RdmaDevice.open(UdpWire.bind("127.0.141.1").idle(HcaAgent.Idle.BLOCK).open());
             RdmaDevice b = RdmaDevice.open(UdpWire.bind("127.0.142.1").idle(HcaAgent.Idle.BLOCK).open())) {
            ProtectionDomain pdA = a.allocPd();
            ByteBuffer bufA = ByteBuffer.allocateDirect(1 << 16);
            MemoryRegion mrA = pdA.registerMemory(bufA, SimPair.ALL_ACCESS);
            CompletionQueue cqA = a.createCq(64);
            XrcDomain xrcd = b.openXrcd("udp");
            ProtectionDomain[] pd = {b.allocPd(), b.allocPd()};
            ByteBuffer[] buf = {ByteBuffer.allocateDirect(1 << 16), ByteBuffer.allocateDirect(1 << 16)};
            MemoryRegion[] mr = new MemoryRegion[2];
            CompletionQueue[] cq = new CompletionQueue[2];
            SharedReceiveQueue[] srq = new SharedReceiveQueue[2];
            for (int i = 0; i < 2; i++) {
                mr[i] = pd[i].registerMemory(buf[i], SimPair.ALL_ACCESS);
                cq[i] = b.createCq(64);
                srq[i] = pd[i].createXrcSrq(xrcd, cq[i], 16, 1, 0);
                srq[i].postRecv(new RecvWorkRequest().wrId(100 + i).sge(mr[i].address(), 8192, mr[i].lkey()));
            }
            QueuePair ini = pdA.createQp(QpInitAttributes.xrcSend(cqA));
            QueuePair tgt = xrcd.createTargetQp();
            Connections.connectPair(ini, mrA, 0x10, tgt, null, 0x20, RcOptions.defaults());

            SimPair.fill(bufA, 0, 5000, 1);
            SimPair.fill(buf[1], 20_000, 3000, 2);
            buf[0].duplicate().order(ByteOrder.LITTLE_ENDIAN).putLong(40_000, 7);
            ini.postSend(new SendWorkRequest().wrId(1).signaled(true).sge(mrA.address(), 5000, mrA.lkey())
                    .xrc(srq[0].srqn()));
            ini.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).imm(9).signaled(true)
                    .sge(mrA.address() + 100, 300, mrA.lkey()).xrc(srq[1].srqn()));
            ini.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(mrA.address(), 5000, mrA.lkey()).rdma(mr[1].address() + 10_000, mr[1].rkey()).xrc(srq[1].srqn()));
            ini.postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(mrA.address() + 30_000, 3000, mrA.lkey()).rdma(mr[1].address() + 20_000, mr[1].rkey())
                    .xrc(srq[1].srqn()));
            ini.postSend(new SendWorkRequest().wrId(5).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(mrA.address() + 40_000, 8, mrA.lkey()).atomic(mr[0].address() + 40_000, mr[0].rkey(), 5, 0)
                    .xrc(srq[0].srqn()));
            List<WorkCompletion> sent = await(cqA, 5);
            for (int i = 0; i < 5; i++) {
                assertEquals(i + 1, sent.get(i).wrId());
                assertEquals(WcStatus.SUCCESS, sent.get(i).status(), sent.get(i).toString());
            }
            WorkCompletion r0 = await(cq[0], 1).get(0);
            WorkCompletion r1 = await(cq[1], 1).get(0);
            assertEquals(100, r0.wrId());
            assertEquals(5000, r0.byteLen());
            assertEquals(101, r1.wrId());
            assertEquals(9, r1.immData());
            assertEquals(tgt.qpn(), r0.qpNum());
            assertTrue(SimPair.same(bufA, 0, buf[0], 0, 5000), "SEND to process 0");
            assertTrue(SimPair.same(bufA, 100, buf[1], 0, 300), "SEND with immediate to process 1");
            assertTrue(SimPair.same(bufA, 0, buf[1], 10_000, 5000), "WRITE checked against process 1's PD");
            assertTrue(SimPair.same(buf[1], 20_000, bufA, 30_000, 3000), "READ");
            assertEquals(7, bufA.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(40_000), "FETCH_ADD's original");
            assertEquals(12, buf[0].duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(40_000));
        }
    }
}
