package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two rnic pingpongs in one JVM: the exchange and traffic of ibv_rc_pingpong, ibv_uc_pingpong,
 * ibv_ud_pingpong and ibv_srq_pingpong over UDP on loopback.
 */
class PingpongCommandTest {

    /** Collects output and opens a latch once the server says it is listening. */
    private static final class Watched extends ByteArrayOutputStream {
        final CountDownLatch listening = new CountDownLatch(1);

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            super.write(b, off, len);
            if (toString(StandardCharsets.UTF_8).contains("local address:")) {
                listening.countDown();
            }
        }
    }

    private static String[] pingpong(int tcpPort, String... extra) throws Exception {
        Watched serverOut = new Watched();
        ByteArrayOutputStream serverErr = new ByteArrayOutputStream();
        String[] serverArgs = concat(new String[] {"pingpong", "--ip", "127.0.86.12", "-p", String.valueOf(tcpPort)}, extra);
        CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> new Rnic(Rnic.builtIn())
                .run(serverArgs, new PrintStream(serverOut, true, StandardCharsets.UTF_8),
                        new PrintStream(serverErr, true, StandardCharsets.UTF_8)));
        assertTrue(serverOut.listening.await(30, TimeUnit.SECONDS), "the server never listened: " + serverErr);
        CliRun client = CliRun.rnic(concat(new String[] {"pingpong", "--ip", "127.0.86.13", "-p", String.valueOf(tcpPort)},
                concat(extra, new String[] {"127.0.0.1"})));
        int status = server.get(60, TimeUnit.SECONDS);
        String s = serverOut.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, s + serverErr);
        assertEquals(0, client.status(), client.out() + client.err());
        for (String out : new String[] {s, client.out()}) {
            assertTrue(out.contains("  local address:  LID 0x0000, QPN 0x"), out);
            assertTrue(out.contains("GID ::ffff:127.0.86."), out);
            assertTrue(out.matches("(?s).*\\d+ iters in [0-9.]+ seconds = [0-9.]+ usec/iter.*"), out);
        }
        return new String[] {s, client.out()};
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

    @Test
    void ucPingpong() throws Exception {
        pingpong(18613, "-s", "4096", "-n", "100", "--uc");
    }

    @Test
    void udPingpongPrintsItsLocalLineWithAColonAndReportsThePayloadSize() throws Exception {
        String[] outs = pingpong(18614, "-s", "1024", "-n", "200", "--ud");
        for (String out : outs) {
            assertTrue(out.matches("(?s).*local address:  LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}: GID .*"), out);
            assertTrue(out.contains("409600 bytes in "), out);
        }
    }

    @Test
    void srqPingpongRunsSeveralQpsOnOneSharedReceiveQueue() throws Exception {
        String[] outs = pingpong(18615, "-s", "4096", "-n", "300", "-q", "4", "--srq", "-c");
        for (String out : outs) {
            assertEquals(4, out.split("local address:", -1).length - 1, out);
            assertEquals(4, out.split("remote address:", -1).length - 1, out);
            assertTrue(out.contains("300 iters in"), out);
            assertTrue(!out.contains("invalid data"), out);
        }
    }

    @Test
    void srqPingpongRefusesMoreQpsThanReceivesAsTheProgramDoes() {
        CliRun r = CliRun.rnic("pingpong", "--srq", "-q", "8", "-r", "4");
        assertEquals(1, r.status());
        assertTrue(r.err().contains("rx_depth 4 is too small for 8 QPs"), r.err());
        CliRun notSrq = CliRun.rnic("pingpong", "-q", "4");
        assertEquals(2, notSrq.status());
        assertTrue(notSrq.err().contains("--srq"), notSrq.err());
    }

    /** Two ibv_xsrq_pingpong runs: the exchange of 66-byte records, the traffic, "END", and "success". */
    private static String[] xsrq(int tcpPort, String serverIp, String clientIp, String... extra) throws Exception {
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        ByteArrayOutputStream serverErr = new ByteArrayOutputStream();
        String[] serverArgs = concat(new String[] {"pingpong", "--xrc", "--ip", serverIp, "-p", String.valueOf(tcpPort)},
                extra);
        CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> new Rnic(Rnic.builtIn())
                .run(serverArgs, new PrintStream(serverOut, true, StandardCharsets.UTF_8),
                        new PrintStream(serverErr, true, StandardCharsets.UTF_8)));
        CliRun client = CliRun.rnic(concat(new String[] {"pingpong", "--xrc", "--ip", clientIp, "-p",
            String.valueOf(tcpPort)}, concat(extra, new String[] {"127.0.0.1"})));
        int status = server.get(60, TimeUnit.SECONDS);
        String s = serverOut.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, s + serverErr);
        assertEquals(0, client.status(), client.out() + client.err());
        return new String[] {s, client.out()};
    }

    @Test
    void xsrqPingpongExchangesItsRecordsAndSaysSuccess() throws Exception {
        String[] outs = xsrq(18615, "127.0.86.22", "127.0.86.23", "-s", "4096", "-n", "20");
        for (String out : outs) {
            assertTrue(out.matches("(?s).*   local: LID 0000, QPN RECV [0-9a-f]{6} SEND [0-9a-f]{6}, PSN [0-9a-f]{6}, "
                    + "SRQN [0-9a-f]{6}, GID ::ffff:127\\.0\\.86\\.2\\d.*"), out);
            assertTrue(out.contains("  remote: LID 0000, QPN RECV "), out);
            assertTrue(out.strip().endsWith("success"), out);
        }
    }

    /**
     * Three clients sharing one HCA and XRC domain (three processes of one node): the server's
     * messages for one client travel through initiators connected to the others' target QPs.
     */
    @Test
    void xsrqPingpongServerReachesEveryClientsSrqThroughAnyOfItsInitiators() throws Exception {
        String[] outs = xsrq(18616, "127.0.86.32", "127.0.86.33", "-s", "64", "-n", "30", "--clients", "3");
        assertEquals(3, outs[0].split("  remote:", -1).length - 1, outs[0]);
        assertEquals(3, outs[1].split("success", -1).length - 1, "each client process says success: " + outs[1]);
        java.util.Set<String> srqns = new java.util.HashSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("local: .*SRQN ([0-9a-f]{6})").matcher(outs[1]);
        while (m.find()) {
            srqns.add(m.group(1));
        }
        assertEquals(3, srqns.size(), "one XRC SRQ per client process: " + outs[1]);
    }
}
