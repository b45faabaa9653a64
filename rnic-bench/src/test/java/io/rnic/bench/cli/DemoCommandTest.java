package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo on both wires, and its capture judged by rnic decode and (where installed) wire-check. */
class DemoCommandTest {
    @TempDir
    Path tmp;

    @Test
    void demoOnTheSimulatedNetworkPassesEveryCheck() {
        CliRun r = CliRun.rnic("demo", "--wire", "sim");
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains("28 checks passed, 0 failed"), r.out());
    }

    @Test
    void demoOverUdpLoopbackPassesEveryCheckAndItsCaptureIsClean() throws Exception {
        Path pcap = tmp.resolve("demo.pcap");
        CliRun r = CliRun.rnic("demo", "--ip-a", "127.0.83.2", "--ip-b", "127.0.83.3", "--pcap", pcap.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains("0 failed"), r.out());
        assertTrue(r.out().contains("rdma_recvs=4"), r.out());

        CliRun d = CliRun.rnic("decode", "-q", pcap.toString());
        assertEquals(0, d.status(), d.out() + d.err());
        assertTrue(d.lastLine().matches("decoded \\d+ packets, 0 rejected, 0 bad ICRC"), d.lastLine());

        Path wireCheck = Path.of("..", "..", "shared", "tools", "wire-check", "wire-check").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isExecutable(wireCheck) && Files.isExecutable(Path.of("/usr/bin/tshark")),
                "wire-check or tshark not installed");
        Process p = new ProcessBuilder(wireCheck.toString(), "--psn", "--mtu", "1024", pcap.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "wire-check did not finish");
        assertEquals(0, p.exitValue(), out);
        List<String> lines = out.lines().toList();
        assertTrue(lines.get(lines.size() - 1).contains("0 bad ICRC"), out);
    }

    @Test
    void demoRejectsBadOptions() {
        assertEquals(2, CliRun.rnic("demo", "--wire", "carrier-pigeon").status());
        assertEquals(2, CliRun.rnic("demo", "--mtu", "1000").status());
        CliRun help = CliRun.rnic("demo", "--help");
        assertEquals(0, help.status());
        assertTrue(help.out().contains("--pcap"));
    }
}
