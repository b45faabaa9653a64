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
 * {@code rnic rping}, {@code rnic ucmatose} and {@code rnic udaddy}, server and client in one
 * JVM over UDP on loopback, connected by the connection manager: the programs' own output.
 */
class RdmaCmCommandsTest {
    /** Output that opens a latch once a marker line appears (the server is listening). */
    private static final class Watched extends ByteArrayOutputStream {
        final CountDownLatch ready = new CountDownLatch(1);
        final String marker;

        Watched(String marker) {
            this.marker = marker;
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            super.write(b, off, len);
            if (toString(StandardCharsets.UTF_8).contains(marker)) {
                ready.countDown();
            }
        }
    }

    private record Run(int serverStatus, String serverOut, String serverErr, CliRun client) {
    }

    private static Run run(String marker, String[] serverArgs, String... clientArgs) throws Exception {
        Watched out = new Watched(marker);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> new Rnic(Rnic.builtIn())
                .run(serverArgs, new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(out.ready.await(30, TimeUnit.SECONDS), "the server never listened: " + out + err);
        CliRun client = CliRun.rnic(clientArgs);
        int status = server.get(60, TimeUnit.SECONDS);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), client);
    }

    @Test
    void rpingPingsThroughAnRdmaCmConnectionAndPrintsWhatRpingPrints() throws Exception {
        Run r = run("rdma_listen", new String[] {"rping", "-s", "-a", "127.0.86.22", "-v", "-d"},
                "rping", "-c", "-a", "127.0.86.22", "--ip", "127.0.86.23", "-C", "3", "-S", "64", "-v", "-V");
        assertEquals(0, r.client().status(), r.client().out() + r.client().err());
        assertEquals(0, r.serverStatus(), r.serverOut() + r.serverErr());
        String expected = """
                ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr
                ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrs
                ping data: rdma-ping-2: CDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrst
                """;
        assertEquals(expected, r.client().out(), "the golden capture's lines, as rdma-core's rping prints them");
        assertTrue(r.serverOut().contains("server " + expected.lines().findFirst().orElseThrow()), r.serverOut());
        assertTrue(r.serverErr().contains("server DISCONNECT EVENT..."), r.serverErr());
    }

    @Test
    void ucmatoseRunsTwoConnectionsAndTheServerDisconnectsThem() throws Exception {
        Run r = run("starting server", new String[] {"ucmatose", "--ip", "127.0.86.24", "-c", "2", "-C", "5"},
                "ucmatose", "-s", "127.0.86.24", "--ip", "127.0.86.25", "-c", "2", "-C", "5");
        assertEquals(0, r.serverStatus(), r.serverOut() + r.serverErr());
        assertEquals(0, r.client().status(), r.client().out() + r.client().err());
        assertEquals("""
                cmatose: starting server
                initiating data transfers
                completing sends
                receiving data transfers
                data transfers complete
                cmatose: disconnecting
                disconnected
                test complete
                return status 0
                """, r.serverOut());
        assertEquals("""
                cmatose: starting client
                cmatose: connecting
                receiving data transfers
                sending replies
                data transfers complete
                test complete
                return status 0
                """, r.client().out());
    }

    /**
     * Connections as in the reported failure ({@code -C 5}; the server's SENDs carry RNR retry 0,
     * so one SEND that met no posted receive fails the run), run after run, server and client
     * each with a fresh HCA on fresh addresses: 10 runs of 5 connections, every SEND received and
     * answered. {@code -Drnic.cmtool.runs=N} runs N (the long run is documented).
     */
    @Test
    void ucmatoseRunsFiftyConnectionsWithoutAFailure() throws Exception {
        int runs = Integer.getInteger("rnic.cmtool.runs", 10);
        for (int i = 0; i < runs; i++) {
            String server = "127.0." + (94 + i / 250) + "." + (i % 250 + 1);
            String client = "127.0." + (98 + i / 250) + "." + (i % 250 + 1);
            Run r = run("starting server", new String[] {"ucmatose", "--ip", server, "-c", "5", "-C", "5"},
                    "ucmatose", "-s", server, "--ip", client, "-c", "5", "-C", "5");
            assertEquals(0, r.serverStatus(), "run " + i + ": " + r.serverOut() + r.serverErr());
            assertEquals(0, r.client().status(), "run " + i + ": " + r.client().out() + r.client().err());
            assertTrue(r.serverOut().contains("data transfers complete"), r.serverOut());
        }
    }

    @Test
    void udaddyResolvesTheServersQpBySidrAndTheServerAnswersTheAddressInTheGrh() throws Exception {
        Run r = run("starting server", new String[] {"udaddy", "--ip", "127.0.86.26", "-C", "4"},
                "udaddy", "-s", "127.0.86.26", "--ip", "127.0.86.27", "-C", "4");
        assertEquals(0, r.serverStatus(), r.serverOut() + r.serverErr());
        assertEquals(0, r.client().status(), r.client().out() + r.client().err());
        assertEquals("""
                udaddy: starting server
                receiving data transfers
                sending replies
                data transfers complete
                test complete
                return status 0
                """, r.serverOut());
        assertEquals("""
                udaddy: starting client
                udaddy: connecting
                initiating data transfers
                receiving data transfers
                data transfers complete
                test complete
                return status 0
                """, r.client().out());
    }

    @Test
    void aClientOfAPortNobodyListensOnIsRejectedWithReason8() throws Exception {
        Watched out = new Watched("rdma_listen");
        CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> new Rnic(Rnic.builtIn())
                .run(new String[] {"rping", "-s", "-a", "127.0.86.28", "-p", "7000", "-d"},
                        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream())));
        assertTrue(out.ready.await(30, TimeUnit.SECONDS), out.toString());
        CliRun wrongPort = CliRun.rnic("rping", "-c", "-a", "127.0.86.28", "-p", "7001", "--ip", "127.0.86.29", "-C", "1");
        assertEquals(1, wrongPort.status());
        assertTrue(wrongPort.err().contains("cma event RDMA_CM_EVENT_REJECTED, error 8"), wrongPort.err());
        CliRun rightPort = CliRun.rnic("rping", "-c", "-a", "127.0.86.28", "-p", "7000", "--ip", "127.0.86.29", "-C", "1");
        assertEquals(0, rightPort.status(), rightPort.err());
        assertEquals(0, server.get(60, TimeUnit.SECONDS), "the server took the next client as if nothing happened");
    }

    /** {@code --pcap}: each side's capture is clean under rnic decode, and names its CM messages. */
    @Test
    void eachSideCapturesItsPacketsWithPcap(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String serverPcap = dir.resolve("server.pcap").toString();
        String clientPcap = dir.resolve("client.pcap").toString();
        Run r = run("starting server", new String[] {"udaddy", "--ip", "127.0.86.30", "-C", "3", "--pcap", serverPcap},
                "udaddy", "-s", "127.0.86.30", "--ip", "127.0.86.31", "-C", "3", "--pcap", clientPcap);
        assertEquals(0, r.serverStatus(), r.serverOut() + r.serverErr());
        assertEquals(0, r.client().status(), r.client().out() + r.client().err());
        for (String pcap : new String[] {serverPcap, clientPcap}) {
            CliRun d = CliRun.rnic("decode", pcap);
            assertEquals(0, d.status(), d.out());
            assertEquals("decoded 8 packets, 0 rejected, 0 bad ICRC", d.lastLine(), "SIDR_REQ, SIDR_REP, 3 datagrams each way");
            assertTrue(d.out().contains(" MAD(CM SIDR_REQ tid=") && d.out().contains(" MAD(CM SIDR_REP tid="), d.out());
        }
    }

    @Test
    void badOptionsAreRefusedWithExitStatus2() {
        assertEquals(2, CliRun.rnic("rping", "-a", "127.0.0.2").status(), "neither -s nor -c");
        assertEquals(2, CliRun.rnic("rping", "-c").status(), "a client needs -a");
        assertEquals(2, CliRun.rnic("rping", "-s", "-P").status(), "no persistent server");
        assertEquals(2, CliRun.rnic("rping", "-s", "-S", "10").status(), "below RPING_MIN_BUFSIZE");
        assertEquals(2, CliRun.rnic("ucmatose", "-P", "ib").status());
        assertEquals(2, CliRun.rnic("udaddy", "-c", "2").status(), "one connection");
    }
}
