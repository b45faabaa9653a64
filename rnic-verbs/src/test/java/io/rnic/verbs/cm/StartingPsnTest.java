package io.rnic.verbs.cm;

import static io.rnic.verbs.cm.ConnectionManagerTest.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.QpInitAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * IBA 9.7.1 (the starting PSN): software should choose a QP's starting PSN so
 * that packets of an earlier connection, still in the fabric, are unlikely to fall into the new
 * one's valid PSN window. The connection manager picks every starting PSN at random over the
 * 24-bit space, as Linux's rdma_cm does ({@code get_random_u32() & 0xffffff}).
 */
class StartingPsnTest {
    @Test
    void theConnectionManagerChoosesEachStartingPsnAtRandomOverTheWholePsnSpace() throws Exception {
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(31, PortSpace.TCP)) {
            List<Integer> starts = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
                c.connect(null);
                CmEvent req = next(p.sch);
                assertEquals(CmEventType.CONNECT_REQUEST, req.type());
                p.acceptAndEstablish(req);
                // Each side receives at the PSN it advertised; its peer sends from there.
                int client = c.qp().query().rqPsn();
                int server = req.id().qp().query().rqPsn();
                assertEquals(client, req.id().qp().query().sqPsn());
                assertEquals(server, c.qp().query().sqPsn());
                starts.add(client);
                starts.add(server);
            }
            assertEquals(starts.size(), new HashSet<>(starts).size(), "every starting PSN differs: " + starts);
            boolean[] quarters = new boolean[4];
            for (int psn : starts) {
                assertTrue(psn >= 0 && psn <= 0xFFFFFF, "24 bits: " + psn);
                quarters[psn >>> 22] = true;
            }
            for (int q = 0; q < 4; q++) {
                assertTrue(quarters[q], "spread over the whole space (quarter " + q + " empty): " + starts);
            }
            for (int i = 2; i < starts.size(); i++) {
                int gap = Math.abs(starts.get(i) - starts.get(i - 2));
                assertTrue(gap > 1 << 10, "not a sequence: connection " + i / 2 + " starts " + gap + " from the one before");
            }
        }
    }
}
