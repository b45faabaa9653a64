package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.rnic.transport.udp.HcaAgent;
import io.rnic.transport.udp.UdpWire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Application threads that bring QPs up at the same time on one UDP device: a modify opens the
 * QP's UDP flow on the calling thread (binding a socket, which the device's agent thread
 * completes) while the agent thread applies another QP's modify, which looks its own flow up.
 * Both must finish (they once deadlocked on the flow table's lock).
 */
class ConcurrentConnectTest {
    @Test
    void qpsConnectedFromSeveralThreadsAtOnceAllReachRts() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (RdmaDevice a = RdmaDevice.open(UdpWire.bind("127.0.151.1").idle(HcaAgent.Idle.BLOCK).open());
                 RdmaDevice b = RdmaDevice.open(UdpWire.bind("127.0.152.1").idle(HcaAgent.Idle.BLOCK).open())) {
                ProtectionDomain pdA = a.allocPd();
                ProtectionDomain pdB = b.allocPd();
                CompletionQueue cqA = a.createCq(256);
                CompletionQueue cqB = b.createCq(256);
                ExecutorService pool = Executors.newFixedThreadPool(8);
                try {
                    List<Future<QueuePair[]>> pairs = new ArrayList<>();
                    for (int i = 0; i < 64; i++) {
                        int psn = i;
                        pairs.add(pool.submit(() -> {
                            QueuePair qa = pdA.createQp(QpInitAttributes.rc(cqA, cqA));
                            QueuePair qb = pdB.createQp(QpInitAttributes.rc(cqB, cqB));
                            Connections.connectPair(qa, null, psn, qb, null, psn + 1000, RcOptions.defaults());
                            return new QueuePair[] {qa, qb};
                        }));
                    }
                    for (Future<QueuePair[]> f : pairs) {
                        QueuePair[] p = f.get();
                        assertEquals(QpState.RTS, p[0].state());
                        assertEquals(QpState.RTS, p[1].state());
                    }
                } finally {
                    pool.shutdownNow();
                }
            }
        });
    }
}
