package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * rnic perf: perftest's tests and tables, on the simulated network, over UDP in one process
 * (with each threading mode), and as two sides exchanging parameters over TCP; and the option
 * combinations perftest refuses.
 */
class PerfCommandTest {
    private static final String BW_HEADER = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    private static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
            + "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";

    private static void assertRow(CliRun r, String header, String rowStart) {
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.outLines().contains(header), r.out());
        assertTrue(r.outLines().stream().anyMatch(l -> l.startsWith(rowStart)), r.out());
    }

    @Test
    void writeBandwidthOnTheSimulatedNetworkPrintsPerftestsTable() {
        CliRun r = CliRun.rnic("perf", "write_bw", "--wire", "sim", "-s", "4096", "-n", "2000", "--warmup", "0");
        assertRow(r, BW_HEADER, " 4096       2000 ");
        assertTrue(r.err().contains("M packets/s"), r.err());
    }

    @Test
    void sendLatencyOnTheSimulatedNetworkPrintsTheLatencyTable() {
        CliRun r = CliRun.rnic("perf", "send_lat", "--wire", "sim", "-n", "500", "--warmup", "0");
        assertRow(r, LAT_HEADER, " 2       500 ");
    }

    @Test
    void readBandwidthOverUdpInOneProcessAsJson() {
        CliRun r = CliRun.rnic("perf", "read_bw", "--loopback", "--udp-port", "14795", "-s", "65536", "-n", "200",
                "--warmup", "0", "--json");
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains("\"test\":\"read_bw\",\"bytes\":65536,\"iterations\":200,"), r.out());
    }

    @Test
    void atomicLatencyWithTheTestThreadDrivingItsHca() {
        CliRun r = CliRun.rnic("perf", "atomic_lat", "--loopback", "--udp-port", "14796", "--threading", "invoker",
                "-A", "FETCH_AND_ADD", "-n", "200", "--warmup", "0");
        assertRow(r, LAT_HEADER, " 8       200 ");
    }

    /** {@code -A ATOMIC_WRITE}: an rnic extension of perftest's atomic types (IBTA 1.5's ATOMIC WRITE). */
    @Test
    void atomicWriteBandwidthOnTheSimulatedNetwork() {
        CliRun r = CliRun.rnic("perf", "atomic_bw", "--wire", "sim", "-A", "ATOMIC_WRITE", "-n", "500", "--warmup", "0",
                "--counters");
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().matches("(?s).*\\n 8\\s+500\\s.*"), r.out());
        assertTrue(r.err().contains("atomic_writes_executed=500"), r.err());
    }

    @Test
    void writeLatencyOnTheSharedAgent() {
        CliRun r = CliRun.rnic("perf", "write_lat", "--loopback", "--udp-port", "14797", "--threading", "shared",
                "-n", "300", "--warmup", "0");
        assertRow(r, LAT_HEADER, " 2       300 ");
    }

    @Test
    void twoSidesExchangeTheirParametersOverTcpInPerftestsFormat() throws Exception {
        CompletableFuture<CliRun> server = CompletableFuture.supplyAsync(() -> CliRun.rnic("perf", "send_bw",
                "--ip", "127.0.86.30", "-p", "18621", "-s", "1024", "-n", "300", "--warmup", "0"));
        CliRun client = CliRun.rnic("perf", "send_bw", "--ip", "127.0.86.31", "-p", "18621", "-s", "1024", "-n", "300",
                "--warmup", "0", "127.0.0.1");
        CliRun s = server.get(60, TimeUnit.SECONDS);
        assertRow(client, BW_HEADER, " 1024       300 ");
        assertRow(s, BW_HEADER, " 1024       300 "); // the server prints the client's row, as perftest's does
    }

    /**
     * perftest's write_lat and send_lat between two processes: both sides ping-pong, with
     * perftest's marks and handshakes (issue 18), and each prints its own latency table.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"write_lat, 18623, 34", "send_lat, 18624, 36"})
    void pingPongLatencyBetweenTwoProcessesRunsAsPerftestsDoes(String test, String port, int ip) throws Exception {
        CompletableFuture<CliRun> server = CompletableFuture.supplyAsync(() -> CliRun.rnic("perf", test,
                "--ip", "127.0.86." + ip, "-p", port, "-s", "64", "-n", "400"));
        CliRun client = CliRun.rnic("perf", test, "--ip", "127.0.86." + (ip + 1), "-p", port, "-s", "64", "-n", "400",
                "127.0.0.1");
        CliRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, client.status(), client.out() + client.err());
        assertEquals(0, s.status(), s.out() + s.err());
        assertRow(client, LAT_HEADER, " 64      400 ");
        assertRow(s, LAT_HEADER, " 64      400 "); // both sides time the ping-pong, as perftest's do
    }

    /**
     * {@code -R}: the exchange over an rdma_cm connection and the test QP connected by the
     * connection manager, as perftest's {@code -R} (issue 18); the client names the server's HCA.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"write_bw, 18641, 50", "read_bw, 18642, 52", "send_bw, 18643, 54",
            "send_lat, 18644, 56", "atomic_bw, 18645, 58"})
    void perftestOverRdmaCmBetweenTwoProcesses(String test, String port, int ip) throws Exception {
        String size = test.startsWith("atomic") ? "8" : "1024";
        CompletableFuture<CliRun> server = CompletableFuture.supplyAsync(() -> CliRun.rnic("perf", test, "-R",
                "--ip", "127.0.86." + ip, "-p", port, "-s", size, "-n", "200", "--warmup", "0"));
        CliRun client = CliRun.rnic("perf", test, "-R", "--ip", "127.0.86." + (ip + 1), "-p", port, "-s", size,
                "-n", "200", "--warmup", "0", "127.0.86." + ip);
        CliRun s = server.get(90, TimeUnit.SECONDS);
        assertEquals(0, client.status(), client.out() + client.err());
        assertEquals(0, s.status(), s.out() + s.err());
        String header = test.endsWith("_lat") ? LAT_HEADER : BW_HEADER;
        assertTrue(client.out().contains(header) && s.out().contains(header), client.out() + s.out());
        for (CliRun r : new CliRun[] {client, s}) { // each side prints the row perftest's prints
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith(" " + size + " ") && l.contains(" 200 ")), r.out());
        }
    }

    /**
     * {@code -R -c UD}: the test QPs resolved through SIDR (rdma_cm's UDP port space); send_lat's
     * client first sends its QP number with immediate data, as perftest's does for the server's AH.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"send_bw, 18661, 70", "send_lat, 18662, 72"})
    void udOverRdmaCmBetweenTwoProcesses(String test, String port, int ip) throws Exception {
        CompletableFuture<CliRun> server = CompletableFuture.supplyAsync(() -> CliRun.rnic("perf", test, "-R", "-c",
                "UD", "--ip", "127.0.86." + ip, "-p", port, "-s", "1024", "-n", "300", "--warmup", "0"));
        CliRun client = CliRun.rnic("perf", test, "-R", "-c", "UD", "--ip", "127.0.86." + (ip + 1), "-p", port, "-s",
                "1024", "-n", "300", "--warmup", "0", "127.0.86." + ip);
        CliRun s = server.get(90, TimeUnit.SECONDS);
        assertEquals(0, client.status(), client.out() + client.err());
        assertEquals(0, s.status(), s.out() + s.err());
        String header = test.endsWith("_lat") ? LAT_HEADER : BW_HEADER;
        String row = test.endsWith("_lat") ? " 1024    300 " : " 1024       300 ";
        assertRow(client, header, row);
        assertRow(s, header, row);
    }

    /**
     * A latency test with {@code -D}: perftest's duration row (iterations inside the window, the
     * average latency and the rate) on each side that prints one, between two processes as
     * perftest's exchange runs it.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"send_lat, 18651, 60", "read_lat, 18652, 62"})
    void latencyForADurationPrintsPerftestsDurationRow(String test, String port, int ip) throws Exception {
        CompletableFuture<CliRun> server = CompletableFuture.supplyAsync(() -> CliRun.rnic("perf", test, "-D", "2",
                "--ip", "127.0.86." + ip, "-p", port, "-s", "64"));
        CliRun client = CliRun.rnic("perf", test, "-D", "2", "--ip", "127.0.86." + (ip + 1), "-p", port, "-s", "64",
                "127.0.0.1");
        CliRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, client.status(), client.out() + client.err());
        assertEquals(0, s.status(), s.out() + s.err());
        java.util.List<CliRun> printing = test.equals("send_lat") ? java.util.List.of(client, s) : java.util.List.of(client);
        for (CliRun r : printing) {
            assertTrue(r.outLines().contains(" #bytes        #iterations       t_avg[usec]    tps average"), r.out());
            String row = r.outLines().stream().filter(l -> l.startsWith(" 64 ")).findFirst().orElseThrow();
            String[] f = row.trim().split(" +");
            assertTrue(Long.parseLong(f[1]) > 0, "iterations counted in the window: " + row);
            assertTrue(Double.parseDouble(f[2]) > 0 && Double.parseDouble(f[3]) > 0, row);
        }
        if (test.equals("read_lat")) {
            assertTrue(s.outLines().stream().noneMatch(l -> l.startsWith(" 64 ")), "perftest's read_lat server prints no row");
        }
    }

    /** send_bw -D between two processes: the server receives until the client's closing handshake. */
    @Test
    void sendBandwidthForADurationBetweenTwoProcesses() throws Exception {
        CompletableFuture<CliRun> server = CompletableFuture.supplyAsync(() -> CliRun.rnic("perf", "send_bw", "-D", "2",
                "--ip", "127.0.86.42", "-p", "18629", "-s", "1024", "--warmup", "0"));
        CliRun client = CliRun.rnic("perf", "send_bw", "-D", "2", "--ip", "127.0.86.43", "-p", "18629", "-s", "1024",
                "--warmup", "0", "127.0.0.1");
        CliRun s = server.get(60, TimeUnit.SECONDS);
        assertRow(client, BW_HEADER, " 1024 ");
        assertRow(s, BW_HEADER, " 1024 ");
    }

    /** {@code -a} between two processes: every size from 2 to 2^23, each side printing a row per size. */
    @Test
    void everySizeBetweenTwoProcessesWithDashA() throws Exception {
        CompletableFuture<CliRun> server = CompletableFuture.supplyAsync(() -> CliRun.rnic("perf", "write_lat", "-a",
                "--ip", "127.0.86.40", "-p", "18626", "-n", "5"));
        CliRun client = CliRun.rnic("perf", "write_lat", "-a", "--ip", "127.0.86.41", "-p", "18626", "-n", "5",
                "127.0.0.1");
        CliRun s = server.get(120, TimeUnit.SECONDS);
        for (CliRun r : List.of(client, s)) {
            assertRow(r, LAT_HEADER, " 2       5 ");
            assertTrue(r.outLines().stream().anyMatch(l -> l.startsWith(" 8388608 5 ")), r.out());
            assertEquals(23, r.outLines().stream().filter(l -> l.matches(" \\d+ +5 .*")).count(), r.out());
        }
    }

    /** perftest's send_bw -c UD between two processes: RC's exchange, with address handles (issue 18). */
    @Test
    void udSendBandwidthBetweenTwoProcessesRunsAsPerftestsDoes() throws Exception {
        CompletableFuture<CliRun> server = CompletableFuture.supplyAsync(() -> CliRun.rnic("perf", "send_bw", "-c", "UD",
                "--ip", "127.0.86.38", "-p", "18625", "-s", "1024", "-n", "300", "--warmup", "0"));
        CliRun client = CliRun.rnic("perf", "send_bw", "-c", "UD", "--ip", "127.0.86.39", "-p", "18625", "-s", "1024",
                "-n", "300", "--warmup", "0", "127.0.0.1");
        CliRun s = server.get(60, TimeUnit.SECONDS);
        assertRow(client, BW_HEADER, " 1024       300 ");
        assertRow(s, BW_HEADER, " 1024       300 "); // the server's own count, as perftest's server prints
    }

    /** perftest's check_mtu: both sides run at the smaller of the two MTUs (a kernel peer offers its port's). */
    @Test
    void twoSidesWithDifferentMtusRunAtTheSmaller() throws Exception {
        CompletableFuture<CliRun> server = CompletableFuture.supplyAsync(() -> CliRun.rnic("perf", "write_bw",
                "--ip", "127.0.86.32", "-p", "18622", "-s", "4096", "-n", "100", "--warmup", "0", "-m", "1024"));
        CliRun client = CliRun.rnic("perf", "write_bw", "--ip", "127.0.86.33", "-p", "18622", "-s", "4096", "-n", "100",
                "--warmup", "0", "--counters", "127.0.0.1");
        CliRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, s.status(), s.out() + s.err());
        assertRow(client, BW_HEADER, " 4096       100 ");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("sent_pkts=(\\d+)").matcher(client.err());
        assertTrue(m.find(), client.err());
        assertTrue(Long.parseLong(m.group(1)) >= 400, "4 KiB messages in 1 KiB packets: " + client.err());
    }

    @Test
    void sendBandwidthOnTheCreditChannelPastASlowReceiverWithoutRnrRetries() {
        CliRun r = CliRun.rnic("perf", "send_bw", "--wire", "sim", "-s", "64", "-n", "20000", "--warmup", "0",
                "--credit-channel", "--rnr_retry", "0", "--slow-receiver", "50", "--counters");
        assertRow(r, BW_HEADER, " 64         20000 ");
        assertTrue(r.err().contains("client channel 0 Stats[queued=0, sent=20000"), r.err());
        assertFalse(r.err().contains("rnr"), "no RNR NAK was sent or received: " + r.err());
    }

    /** The transport's end-to-end credits let one probe SEND through when they run out: it meets no receive. */
    @Test
    void withoutTheChannelASlowReceiverAndNoRnrRetriesFailTheRun() {
        CliRun r = CliRun.rnic("perf", "send_bw", "--wire", "sim", "-s", "64", "-n", "20000", "--warmup", "0",
                "--rnr_retry", "0", "--slow-receiver", "50", "-r", "64");
        assertEquals(1, r.status(), r.out() + r.err());
        assertTrue(r.err().contains("RNR retry counter exceeded"), r.err());
    }

    @Test
    void sendLatencyOnTheCreditChannel() {
        CliRun r = CliRun.rnic("perf", "send_lat", "--wire", "sim", "-n", "500", "--warmup", "0", "--credit-channel");
        assertRow(r, LAT_HEADER, " 2       500 ");
    }

    /** Before perftest's clamp, {@code -t 16} with the default {@code -Q 100} never posted a signaled request. */
    @Test
    void aSendQueueShallowerThanTheModerationStillCompletes() {
        CliRun r = CliRun.rnic("perf", "write_bw", "--wire", "sim", "-t", "16", "-s", "64", "-n", "1000", "--warmup", "0");
        assertRow(r, BW_HEADER, " 64         1000 ");
    }

    @Test
    void completionModerationIsSettledAsPerftestSettlesIt() throws Exception {
        assertEquals(100, cqMod("write_bw", "-s", "8192"), "the default, up to 8 KiB");
        assertEquals(1, cqMod("write_bw", "-s", "8193"), "a larger message is signaled every time");
        assertEquals(50, cqMod("write_bw", "-s", "65536", "-Q", "50"), "unless -Q was given");
        assertEquals(100, cqMod("write_bw", "-a"), "-a keeps one moderation for every size");
        assertEquals(16, cqMod("write_bw", "-s", "64", "-t", "16"), "never deeper than the send queue");
        assertEquals(16, cqMod("write_bw", "-s", "64", "-t", "16", "-Q", "64"), "even when asked");
        assertEquals(1, cqMod("write_bw"), "perftest's default write_bw size, 65536, is signaled every time");
    }

    private static int cqMod(String... args) throws UsageException {
        picocli.CommandLine cl = new Rnic(Rnic.builtIn()).commandLine(System.out, System.err);
        String[] line = java.util.stream.Stream.concat(java.util.stream.Stream.of("perf"), java.util.Arrays.stream(args))
                .toArray(String[]::new);
        picocli.CommandLine.ParseResult parsed = cl.parseArgs(line);
        return ((PerfCommand) parsed.subcommand().commandSpec().userObject()).config().cqMod();
    }

    @Test
    void combinationsPerftestRefusesAreUsageErrors() {
        assertEquals(2, CliRun.rnic("perf", "write_bw", "--wire", "sim", "--credit-channel").status(),
                "the credit channel carries SENDs");
        assertEquals(2, CliRun.rnic("perf", "read_bw", "--wire", "sim", "--slow-receiver", "10").status(),
                "only SEND tests post receives");
        assertEquals(2, CliRun.rnic("perf", "read_bw", "-c", "UC", "--wire", "sim").status(), "UC has no READ");
        assertEquals(2, CliRun.rnic("perf", "write_bw", "-c", "UD", "--wire", "sim").status(), "UD has SEND only");
        assertEquals(2, CliRun.rnic("perf", "atomic_bw", "-a", "--wire", "sim").status(), "no -a for atomics");
        assertEquals(2, CliRun.rnic("perf", "send_bw", "-c", "UD", "-s", "8192", "--wire", "sim").status(),
                "a UD message is at most the MTU");
        assertEquals(2, CliRun.rnic("perf", "write_lat", "-D", "3", "-a", "--wire", "sim").status(), "-D runs one size");
        assertEquals(2, CliRun.rnic("perf", "send_bw", "-R", "--loopback").status(), "-R is for two processes");
        CliRun unknown = CliRun.rnic("perf", "flush_bw");
        assertEquals(2, unknown.status());
        assertTrue(unknown.err().contains("unknown test 'flush_bw'"), unknown.err());
    }
}
