package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Two rnic pingpong processes' worth of work in one JVM: the ibv_rc_pingpong exchange and traffic over UDP. */
class PingpongCommandTest {

    private static void pingpong(int tcpPort, String... extra) throws Exception {
        String[] serverArgs = concat(new String[] {"pingpong", "--ip", "127.0.86.12", "-p", String.valueOf(tcpPort)}, extra);
        CompletableFuture<CliRun> server = CompletableFuture.supplyAsync(() -> CliRun.rnic(serverArgs));
        String[] clientArgs = concat(new String[] {"pingpong", "--ip", "127.0.86.13", "-p", String.valueOf(tcpPort)}, extra);
        CliRun client = null;
        for (int attempt = 0; attempt < 50; attempt++) { // until the server listens
            client = CliRun.rnic(concat(clientArgs, new String[] {"127.0.0.1"}));
            if (!client.err().contains("Connection refused")) {
                break;
            }
            Thread.onSpinWait();
            TimeUnit.MILLISECONDS.sleep(100); // polling a TCP listener, not the protocol
        }
        CliRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, s.status(), s.out() + s.err());
        assertEquals(0, client.status(), client.out() + client.err());
        for (CliRun r : new CliRun[] {s, client}) {
            assertTrue(r.out().contains("  local address:  LID 0x0000, QPN 0x"), r.out());
            assertTrue(r.out().contains("GID ::ffff:127.0.86."), r.out());
            assertTrue(r.out().matches("(?s).*\\d+ iters in [0-9.]+ seconds = [0-9.]+ usec/iter.*"), r.out());
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] r = new String[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    void twoRnicPingpongsExchangeMultiPacketMessages() throws Exception {
        pingpong(18611, "-s", "4096", "-n", "100");
    }

    @Test
    void pingpongWithCompletionEvents() throws Exception {
        pingpong(18612, "-s", "64", "-n", "100", "--events");
    }
}
