package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code rnic res show} reads another JVM's devices (issue 44, part 1): it attaches to a second
 * JVM this test starts ({@link ResShowTarget}: two devices on a simulated network, a connected RC
 * pair and a QP in ERR) through the JDK's attach API, and prints what {@code rdma resource show}
 * prints, with its filters.
 */
class ResCommandTest {
    private static final long READY_SECONDS = 60;
    private static Process target;
    private static Path targetErr;
    private static long pid;
    private static int jmxPort;
    private static int qpA;
    private static int qpB;
    private static int broken;

    @BeforeAll
    static void startTarget() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        targetErr = Files.createTempFile("res-target", ".err");
        try (ServerSocket free = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            jmxPort = free.getLocalPort();
        }
        // A JMX connector on loopback without authentication, for --jmx (a test's JVM only).
        target = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "-Dcom.sun.management.jmxremote.port=" + jmxPort, "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort,
                "-Dcom.sun.management.jmxremote.host=127.0.0.1", "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false",
                ResShowTarget.class.getName()).redirectError(targetErr.toFile()).start();
        BufferedReader lines = new BufferedReader(new InputStreamReader(target.getInputStream(), StandardCharsets.UTF_8));
        // Read its lines on another thread, so that a target that never gets ready fails the test
        // after a bound instead of hanging it.
        CompletableFuture<List<String>> ready = CompletableFuture.supplyAsync(() -> {
            List<String> seen = new ArrayList<>();
            try {
                for (String l = lines.readLine(); l != null; l = lines.readLine()) {
                    seen.add(l);
                    if (l.startsWith("READY ")) {
                        return seen;
                    }
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            String why;
            try {
                why = Files.readString(targetErr);
            } catch (IOException e) {
                why = e.toString();
            }
            throw new IllegalStateException("the target ended before it was ready: " + seen + "\n" + why);
        });
        List<String> seen = ready.get(READY_SECONDS, TimeUnit.SECONDS);
        String[] qps = seen.stream().filter(l -> l.startsWith("QPS ")).findFirst().orElseThrow().split(" ");
        qpA = Integer.parseInt(qps[1]);
        qpB = Integer.parseInt(qps[2]);
        broken = Integer.parseInt(qps[3]);
        pid = Long.parseLong(seen.get(seen.size() - 1).substring("READY ".length()));
        assertEquals(target.pid(), pid);
    }

    @AfterAll
    static void stopTarget() throws Exception {
        if (target != null) {
            target.getOutputStream().close(); // it ends when its input closes
            if (!target.waitFor(30, TimeUnit.SECONDS)) {
                target.destroyForcibly();
            }
            Files.deleteIfExists(targetErr);
        }
    }

    private static CliRun res(String... args) {
        List<String> all = new ArrayList<>(List.of("res", "show"));
        all.addAll(List.of(args));
        all.addAll(List.of("--jvm", Long.toString(pid)));
        CliRun r = CliRun.rnic(all.toArray(String[]::new));
        System.out.println("$ rnic " + String.join(" ", all).replace(Long.toString(pid), "PID") + "\n" + r.out());
        return r;
    }

    private static List<String> cells(String line) {
        return List.of(line.trim().split(" +"));
    }

    @Test
    void theQpTableNamesLqpnAndShowsStatesByTheirVerbsNames() {
        CliRun r = res("qp");
        assertEquals(0, r.status(), r.toString());
        List<String> lines = r.outLines();
        List<String> header = cells(lines.get(0));
        assertEquals(List.of("dev", "lqpn", "type", "state", "rqpn", "sq-psn", "rq-psn", "mtu", "sq", "rq", "inflight",
                "rd-atomic", "retry-left", "rnr-left", "scq", "rcq", "srqn", "pdn"), header);
        String a = lines.stream().filter(l -> cells(l).get(1).equals(String.valueOf(qpA))).findFirst().orElseThrow();
        List<String> row = cells(a);
        assertEquals("10.0.0.1", row.get(0));
        assertEquals("RC", row.get(2));
        assertEquals("RTS", row.get(3));
        assertEquals(String.valueOf(qpB), row.get(4), "rqpn: the peer");
        assertEquals(String.valueOf(0x100 + 3), row.get(5), "sq-psn: three packets of a 3000-byte WRITE sent");
        String b = lines.stream().filter(l -> cells(l).get(1).equals(String.valueOf(qpB))
                && l.startsWith("10.0.0.2")).findFirst().orElseThrow();
        assertTrue(cells(b).get(9).startsWith("2/"), "B's receive queue holds the two receives: " + b);
    }

    @Test
    void filtersSelectRowsAsRdmasDo() {
        CliRun err = res("qp", "state", "ERR");
        assertEquals(0, err.status(), err.toString());
        assertEquals(2, err.outLines().size(), err.out());
        assertEquals(List.of("10.0.0.1", String.valueOf(broken), "RC", "ERR"), cells(err.outLines().get(1)).subList(0, 4));
        CliRun one = res("qp", "lqpn", "0x" + Integer.toHexString(qpA), "dev", "10.0.0.1");
        assertEquals(2, one.outLines().size(), one.out());
        assertEquals(String.valueOf(qpA), cells(one.outLines().get(1)).get(1));
        CliRun json = res("qp", "lqpn", String.valueOf(qpA), "dev", "10.0.0.1", "--json");
        assertEquals(0, json.status(), json.toString());
        assertTrue(json.out().startsWith("[{\"dev\":\"10.0.0.1\",\"lqpn\":" + qpA + ",\"type\":\"RC\",\"state\":\"RTS\","),
                json.out());
        CliRun bad = res("qp", "lqnp", "17");
        assertEquals(2, bad.status());
        assertTrue(bad.err().contains("no column 'lqnp'"), bad.err());
    }

    @Test
    void withoutAKindEachDeviceGetsItsCountsAndOtherKindsHaveTables() {
        CliRun r = res();
        assertEquals(0, r.status(), r.toString());
        assertEquals(2, r.outLines().size(), r.out());
        assertTrue(r.outLines().get(0).matches("\\d+: 10\\.0\\.0\\.1: pd 2 mr 1 mw 0 cq 1 qp 2 srq 0 ah 0 xrcd 0 eec 0"),
                r.out());
        CliRun cq = res("cq");
        assertEquals(List.of("dev", "cqn", "entries", "cqe", "users", "notify", "overflowed"),
                cells(cq.outLines().get(0)));
        CliRun mr = res("mr", "--json");
        assertTrue(mr.out().contains("\"mrlen\":1048576"), mr.out());
        CliRun all = res("--json");
        assertTrue(all.out().startsWith("[{\"device\":\"10.0.0.1\",\"pd\":["), all.out());
        assertTrue(all.out().contains("{\"device\":\"10.0.0.2\","), all.out());
    }

    @Test
    void jmxReadsTheSameTablesAsAttach() {
        CliRun viaJmx = CliRun.rnic("res", "show", "qp", "--jmx", "127.0.0.1:" + jmxPort);
        assertEquals(0, viaJmx.status(), viaJmx.toString());
        assertEquals(res("qp").out(), viaJmx.out());
        CliRun nobody = CliRun.rnic("res", "show", "--jvm", "999999999");
        assertEquals(1, nobody.status(), nobody.toString());
        assertTrue(nobody.err().startsWith("rnic res show: cannot reach the JVM"), nobody.err());
    }

    @Test
    void aWrongCommandLineIsAUsageError() {
        assertEquals(2, CliRun.rnic("res", "show", "qp").status(), "--jvm or --jmx is required");
        assertEquals(2, CliRun.rnic("res", "show", "qp", "--jvm", "1", "--jmx", "h:1").status(), "not both");
        assertEquals(2, CliRun.rnic("res", "show", "qp", "lqpn", "--jvm", "1").status(), "a filter without its value");
        assertEquals(2, CliRun.rnic("res", "show", "qpx", "--jvm", "1").status(), "no such kind");
        assertEquals(2, CliRun.rnic("res", "show", "--jmx", "nohost").status());
        assertEquals(2, CliRun.rnic("res").status());
    }
}
