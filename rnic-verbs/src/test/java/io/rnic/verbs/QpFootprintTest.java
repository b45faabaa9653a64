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
    void tenThousandConnectedRcQpsWithDefaultCapsTakeAtMostFourKibEach() throws java.io.IOException {
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
            theDesignDocumentQuotes(perQp);
        }
    }

    /**
     * docs/design.md quotes this footprint; the figure there must be this test's measurement, within
     * 15 % (the JDK and the collector move it a little), so the document cannot go stale unnoticed.
     */
    private static void theDesignDocumentQuotes(long perQp) throws java.io.IOException {
        java.nio.file.Path doc = java.nio.file.Path.of("..", "docs", "design.md");
        String text = java.nio.file.Files.readString(doc);
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("idle connected RC QP with default caps holds about ([0-9.]+) KiB of heap").matcher(text);
        assertTrue(m.find(), doc + " no longer quotes the idle RC QP's footprint");
        double quoted = Double.parseDouble(m.group(1)) * 1024;
        assertTrue(Math.abs(quoted - perQp) <= 0.15 * perQp, doc + " quotes " + m.group(1)
                + " KiB per idle RC QP; this test measured " + perQp + " bytes");
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return MEMORY.getHeapMemoryUsage().getUsed();
    }
}
