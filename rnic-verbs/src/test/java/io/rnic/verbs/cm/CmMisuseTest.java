package io.rnic.verbs.cm;

import static io.rnic.verbs.cm.ConnectionManagerTest.PORT;
import static io.rnic.verbs.cm.ConnectionManagerTest.SECOND;
import static io.rnic.verbs.cm.ConnectionManagerTest.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.Gid;
import io.rnic.verbs.QpInitAttributes;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The connection manager under attack and misuse, on the simulated network in virtual time:
 * floods of requests nobody answers, strangers' MADs, requests no connection can use, stale
 * connections. What it refuses it refuses as the IBA (chapter 12) and the Linux CM do, what it
 * drops it drops unanswered, and it counts both ({@link CmCounters}).
 */
class CmMisuseTest {
    private static final InetAddress SERVER = address("10.0.0.2");
    private static final InetAddress CLIENT = address("10.0.0.1");

    static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    static void runFor(ConnectionManagerTest.Pair p, long nanos) {
        p.net.scheduler().runUntil(p.net.scheduler().nanoTime() + nanos);
    }

    // ---- the address-handle cache is bounded ----

    /** Replies to 400 strangers (REJ 8 each) keep at most a bounded set of address handles. */
    @Test
    void repliesToManyStrangersKeepABoundedCacheOfAddressHandles() throws Exception {
        try (ConnectionManagerTest.Pair p = new ConnectionManagerTest.Pair(35, PortSpace.TCP)) {
            List<MadForger> strangers = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                MadForger s = new MadForger(p.net, "10.1." + (i / 250) + "." + (i % 250 + 1));
                strangers.add(s);
                s.send(p.wb, MadForger.mad(MadForger.req(i + 1, 0x300, s.address(), SERVER, PORT + 9), i));
                if (i % 50 == 49) {
                    runFor(p, 1_000_000);
                }
            }
            runFor(p, SECOND);
            for (MadForger s : strangers) {
                assertEquals(List.of(CmId.REJ_INVALID_SERVICE_ID), s.rejReasons(), "each stranger got its REJ 8");
            }
            long cached = p.sch.counters().addressHandlesCached();
            assertTrue(cached >= 1 && cached <= CmAgent.MAX_ADDRESS_HANDLES, "bounded: " + cached);
            // The manager still connects.
            CmId c = p.resolvedClient(PortSpace.TCP, QpInitAttributes.rc(p.ccq, p.ccq));
            c.connect(null);
            p.acceptAndEstablish(next(p.sch));
        }
    }
}
