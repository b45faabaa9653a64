package io.rnic.verbs.example;

import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.*;
import java.nio.ByteBuffer;

public final class HelloDatagrams {
    public static String run(String ipA, String ipB) throws InterruptedException {
        try (RdmaDevice a = RdmaDevice.open(UdpWire.bind(ipA).open());
             RdmaDevice b = RdmaDevice.open(UdpWire.bind(ipB).open())) {
            ProtectionDomain pdA = a.allocPd(), pdB = b.allocPd();
            CompletionQueue cqA = a.createCq(256), cqB = b.createCq(256);
            SharedReceiveQueue srq = pdB.createSrq(64, 1, 0);       // max_wr, max_sge, srq_limit
            QueuePair qpA = pdA.createQp(QpInitAttributes.ud(cqA, cqA));
            QueuePair qpB = pdB.createQp(QpInitAttributes.ud(cqB, cqB).withSrq(srq));
            Connections.readyDatagram(qpA, 0x1234, 0);               // Q_Key, send PSN
            Connections.readyDatagram(qpB, 0x1234, 0);
            MemoryRegion mrA = pdA.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            MemoryRegion mrB = pdB.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            AddressHandle toB = pdA.createAddressHandle(AddressVector.of(b.gid().toInetAddress()));

            srq.postRecv(new RecvWorkRequest().wrId(1).sge(mrB.address(), 4096, mrB.lkey()));
            qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                    .sge(mrA.address(), 100, mrA.lkey()).ud(toB, qpB.qpn(), 0x1234));
            WorkCompletion wc = new WorkCompletion();
            while (!cqB.poll(wc)) {
                cqB.await(1_000_000_000L);
            }
            return wc + " src_qp=0x" + Integer.toHexString(wc.srcQp()); // byte_len 140: the 40-byte GRH area counts
        }
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println(run("127.0.0.2", "127.0.0.3"));
    }
}
