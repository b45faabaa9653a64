package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What an idle QP costs: a device holds thousands of connected RC QPs with default caps, each
 * in a few KiB of heap, because queue slots and their scatter/gather lists and inline buffers
 * are made when first used, not when the QP is created.
 */
class QpFootprintTest {
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    @Test
    void tenThousandConnectedRcQpsWithDefaultCapsTakeAtMostFourKibEach() {
        int n = 10_000;
        try (SimPair p = new SimPair(3)) {
            List<QueuePair> qps = new ArrayList<>(2 * n);
            long before = usedAfterGc();
            for (int i = 0; i < n; i++) {
                QueuePair a = p.pdA.createQp(QpInitAttributes.rc(p.cqA, p.cqA).withCaps(QpCaps.defaults()));
                QueuePair b = p.pdB.createQp(QpInitAttributes.rc(p.cqB, p.cqB).withCaps(QpCaps.defaults()));
                Connections.connectPair(a, p.mrA, i, b, p.mrB, i + 7, RcOptions.defaults());
                qps.add(a);
                qps.add(b);
            }
            long perQp = (usedAfterGc() - before) / (2L * n);
            assertTrue(perQp <= 4096, "an idle connected RC QP takes " + perQp + " bytes of heap");
            // and every one of them works: the last pair carries a message
            QueuePair a = qps.get(2 * n - 2);
            QueuePair b = qps.get(2 * n - 1);
            assertEquals(QpState.RTS, a.state());
            b.postRecv(p.recvB(1, 0, 64));
            a.postSend(p.sendA(2, 0, 64));
            WorkCompletion wc = p.await(p.cqB);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(b.qpn(), wc.qpNum());
            System.out.println("heap per idle connected RC QP (default caps): " + perQp + " bytes; "
                    + p.wireA.counters().sentPackets() + " packets");
        }
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return MEMORY.getHeapMemoryUsage().getUsed();
    }
}
