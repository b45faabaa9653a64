package io.rnic.verbs.example;

import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.*;
import java.nio.ByteBuffer;

public final class HelloRd {
    public static String run(String ipA, String ipB) throws InterruptedException {
        try (RdmaDevice a = RdmaDevice.open(UdpWire.bind(ipA).open());
             RdmaDevice b = RdmaDevice.open(UdpWire.bind(ipB).open())) {
            // One reliable datagram domain per node, and one EE context per node, connected.
            ReliableDatagramDomain rddA = a.allocRdd(), rddB = b.allocRdd();
            EeContext eecA = rddA.createEeContext(), eecB = rddB.createEeContext();
            Connections.connectEeContexts(eecA, 100, eecB, 200, RcOptions.defaults());

            // Any number of RD QPs per node share the contexts; here two on B.
            ProtectionDomain pdA = a.allocPd(), pdB = b.allocPd();
            CompletionQueue cqA = a.createCq(512), cqB = b.createCq(512);
            QueuePair qpA = pdA.createRdQp(QpInitAttributes.rd(cqA, cqA), rddA);
            QueuePair qpB1 = pdB.createRdQp(QpInitAttributes.rd(cqB, cqB), rddB);
            QueuePair qpB2 = pdB.createRdQp(QpInitAttributes.rd(cqB, cqB), rddB);
            int qkey = 0x1234;
            for (QueuePair qp : new QueuePair[] {qpA, qpB1, qpB2}) {
                Connections.readyRd(qp, qkey, AccessFlags.REMOTE_WRITE);
            }
            MemoryRegion mrA = pdA.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            MemoryRegion mrB = pdB.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            qpB1.postRecv(new RecvWorkRequest().wrId(1).sge(mrB.address(), 2048, mrB.lkey()));
            qpB2.postRecv(new RecvWorkRequest().wrId(2).sge(mrB.address() + 2048, 2048, mrB.lkey()));

            // One QP sends to both of B's, each work request naming the context, the QP and the Q_Key.
            for (QueuePair to : new QueuePair[] {qpB1, qpB2}) {
                qpA.postSend(new SendWorkRequest().wrId(to.qpn()).opcode(WrOpcode.SEND).signaled(true)
                        .sge(mrA.address(), 100, mrA.lkey()).rd(eecA.eecn(), to.qpn(), qkey));
            }
            StringBuilder got = new StringBuilder();
            WorkCompletion wc = new WorkCompletion();
            for (int n = 0; n < 2; n++) {
                while (!cqB.poll(wc)) {
                    cqB.await(1_000_000_000L);
                }
                got.append(wc).append('\n');
            }
            return got.toString();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println(run("127.0.0.2", "127.0.0.3"));
    }
}
