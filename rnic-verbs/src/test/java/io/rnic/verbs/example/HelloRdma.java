package io.rnic.verbs.example;

import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.*;
import java.nio.ByteBuffer;

public final class HelloRdma {
    public static String run(String ipA, String ipB) throws InterruptedException {
        try (RdmaDevice a = RdmaDevice.open(UdpWire.bind(ipA).open());
             RdmaDevice b = RdmaDevice.open(UdpWire.bind(ipB).open())) {
            int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
            ProtectionDomain pdA = a.allocPd(), pdB = b.allocPd();
            CompletionQueue cqA = a.createCq(256), cqB = b.createCq(256);
            QueuePair qpA = pdA.createQp(QpInitAttributes.rc(cqA, cqA));
            QueuePair qpB = pdB.createQp(QpInitAttributes.rc(cqB, cqB));
            MemoryRegion mrA = pdA.registerMemory(ByteBuffer.allocateDirect(4096), access);
            ByteBuffer bufB = ByteBuffer.allocateDirect(4096);
            MemoryRegion mrB = pdB.registerMemory(bufB, access);
            Connections.connectPair(qpA, mrA, 0, qpB, mrB, 0, RcOptions.defaults());

            qpB.postRecv(new RecvWorkRequest().wrId(1).sge(mrB.address(), 4096, mrB.lkey()));
            qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                    .sge(mrA.address(), 0, mrA.lkey()));            // an empty SEND is enough to say hello
            WorkCompletion wc = new WorkCompletion();
            while (!cqB.poll(wc)) {
                cqB.await(1_000_000_000L);
            }
            return wc.toString();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println(run("127.0.0.2", "127.0.0.3"));
    }
}
