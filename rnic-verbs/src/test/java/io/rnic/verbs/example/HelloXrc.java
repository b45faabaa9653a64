package io.rnic.verbs.example;

import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.*;
import java.nio.ByteBuffer;

public final class HelloXrc {
    public static String run(String ipA, String ipB) throws InterruptedException {
        try (RdmaDevice a = RdmaDevice.open(UdpWire.bind(ipA).open());
             RdmaDevice b = RdmaDevice.open(UdpWire.bind(ipB).open())) {
            // Node B: two "processes", each with its PD, CQ and XRC SRQ, in one XRC domain.
            XrcDomain xrcd = b.openXrcd("/tmp/my-domain");              // openers of a name share it
            ProtectionDomain pd1 = b.allocPd(), pd2 = b.allocPd();
            CompletionQueue cq1 = b.createCq(16), cq2 = b.createCq(16);
            SharedReceiveQueue srq1 = pd1.createXrcSrq(xrcd, cq1, 16, 1, 0);
            SharedReceiveQueue srq2 = pd2.createXrcSrq(xrcd, cq2, 16, 1, 0);
            MemoryRegion mr2 = pd2.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            srq2.postRecv(new RecvWorkRequest().wrId(1).sge(mr2.address(), 4096, mr2.lkey()));

            // Node A: one initiator QP; node B: one target QP for it. Through them A reaches both SRQs.
            ProtectionDomain pdA = a.allocPd();
            CompletionQueue cqA = a.createCq(16);
            QueuePair ini = pdA.createQp(QpInitAttributes.xrcSend(cqA));
            QueuePair tgt = xrcd.createTargetQp();
            Connections.connectPair(ini, null, 0, tgt, null, 0, RcOptions.defaults());
            MemoryRegion mrA = pdA.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);

            ini.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                    .sge(mrA.address(), 100, mrA.lkey()).xrc(srq2.srqn()));      // the remote SRQ's number
            WorkCompletion wc = new WorkCompletion();
            while (!cq2.poll(wc)) {                                          // process 2's CQ, not the QP's
                cq2.await(1_000_000_000L);
            }
            return wc + " via SRQ " + srq2.srqn() + " (process 1's SRQ " + srq1.srqn() + " is untouched: "
                    + cq1.size() + " completions)";
        }
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println(run("127.0.0.2", "127.0.0.3"));
    }
}
