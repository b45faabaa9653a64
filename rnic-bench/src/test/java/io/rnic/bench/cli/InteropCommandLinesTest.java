package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.bench.perf.PerfConfig;
import io.rnic.bench.pingpong.PingpongConfig;
import io.rnic.bench.pingpong.PingpongMode;
import io.rnic.bench.rdmacm.CmToolConfig;
import io.rnic.bench.rdmacm.RpingConfig;
import io.rnic.verbs.IcrcPolicy;
import io.rnic.verbs.QpType;
import io.rnic.verbs.WrOpcode;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The command lines interop/run-rxe-interop.sh and interop/run-perftest-interop.sh give rnic.jar
 * (against Linux Soft-RoCE in a VM, not part of CI) still parse to the runs they meant: options
 * after the positional SERVER, perftest's and rdma-core's letters, rnic's --ip and --icrc. Parsed
 * only: nothing is bound or connected.
 */
class InteropCommandLinesTest {
    private static final String HOST = "10.0.2.1";
    private static final String GUEST = "10.0.2.15";

    /** The command object picocli filled from {@code line}. */
    private static Object parse(String line) {
        PrintStream nowhere = new PrintStream(PrintStream.nullOutputStream());
        CommandLine cl = new Rnic(Rnic.builtIn()).commandLine(nowhere, nowhere);
        CommandLine.ParseResult r = cl.parseArgs(line.split(" +"));
        assertTrue(r.unmatched().isEmpty(), line);
        return r.subcommand().commandSpec().userObject();
    }

    /** run-perftest-interop.sh: {@code perf TEST -s SIZE [-A KIND] [-c CONN] (-n N | -D S) [-R] [GUEST] --ip H --icrc ... --warmup 0}. */
    @Test
    void perftestInteropLines() throws UsageException {
        String tail = " --ip " + HOST + " --icrc accept-unverifiable --warmup 0";
        PerfConfig client = ((PerfCommand) parse("perf write_bw -s 4096 -n 100 " + GUEST + tail)).config();
        assertEquals(GUEST, client.server());
        assertEquals(HOST, client.clientIp());
        assertEquals(List.of(4096), client.sizes());
        assertEquals(100, client.iterations());
        assertEquals(IcrcPolicy.ACCEPT_UNVERIFIABLE, client.icrc());
        assertEquals(0, client.warmupSecs());
        assertEquals(18515, client.tcpPort());

        PerfConfig server = ((PerfCommand) parse("perf atomic_bw -s 8 -A FETCH_AND_ADD -n 100 -R" + tail)).config();
        assertNull(server.server());
        assertEquals(HOST, server.serverIp());
        assertEquals(WrOpcode.ATOMIC_FETCH_AND_ADD, server.atomic());
        assertTrue(server.rdmaCm());

        PerfConfig ud = ((PerfCommand) parse("perf send_bw -s 1024 -c UD -D 5 " + GUEST + tail)).config();
        assertEquals(QpType.UD, ud.type());
        assertEquals(5, ud.durationSecs());

        PerfConfig lat = ((PerfCommand) parse("perf atomic_lat -s 8 -A CMP_AND_SWAP -n 100" + tail)).config();
        assertEquals(WrOpcode.ATOMIC_CMP_AND_SWP, lat.atomic());
        assertEquals(1, lat.txDepth());
    }

    /** run-rxe-interop.sh: {@code pingpong --ip H --icrc ... [--uc|--ud|--srq] -s SIZE -n N [GUEST]}, and two on loopback. */
    @Test
    void pingpongInteropLines() throws UsageException {
        String head = "pingpong --ip " + HOST + " --icrc accept-unverifiable";
        PingpongConfig rc = ((PingpongCommand) parse(head + " -s 4096 -n 1000")).config();
        assertNotNull(rc);
        assertEquals(PingpongMode.RC, rc.mode());
        assertNull(rc.server());
        assertEquals(HOST, rc.ip());
        for (String t : new String[] {"uc", "ud", "srq"}) {
            PingpongConfig c = ((PingpongCommand) parse(head + " --" + t + " -s 64 -n 1000 " + GUEST)).config();
            assertEquals(PingpongMode.valueOf(t.toUpperCase()), c.mode());
            assertEquals(GUEST, c.server());
            assertEquals(64, c.size());
            assertEquals(1000, c.iters());
        }
        PingpongConfig loop = ((PingpongCommand) parse("pingpong --xrc -s 4096 --ip 127.0.0.3 -p 18599 -n 1000 127.0.0.1"))
                .config();
        assertEquals(PingpongMode.XRC, loop.mode());
        assertEquals(18599, loop.tcpPort());
        assertEquals("127.0.0.1", loop.server());
    }

    /** run-rxe-interop.sh's rdma_cm programs: {@code rping|ucmatose|udaddy ... --ip H --icrc accept-unverifiable}. */
    @Test
    void rdmaCmInteropLines() throws UsageException {
        String tail = " --ip " + HOST + " --icrc accept-unverifiable";
        RpingConfig server = ((RpingCommand) parse("rping -s -a " + HOST + " -v" + tail)).config();
        assertTrue(server.server());
        assertTrue(server.verbose());
        RpingConfig client = ((RpingCommand) parse("rping -c -a " + GUEST + " -C 10 -S 64 -v -V" + tail)).config();
        assertFalse(client.server());
        assertEquals(10, client.count());
        assertEquals(64, client.size());
        assertTrue(client.validate());
        assertEquals(HOST, client.hcaIp());

        CmToolConfig ucmatoseServer = ((CmToolCommand) parse("ucmatose" + tail)).config();
        assertTrue(ucmatoseServer.server());
        assertEquals(7471, ucmatoseServer.port());
        CmToolConfig ucmatoseClient = ((CmToolCommand) parse("ucmatose -s " + GUEST + " -C 10" + tail)).config();
        assertFalse(ucmatoseClient.server());
        assertEquals(10, ucmatoseClient.count());
        assertEquals(IcrcPolicy.ACCEPT_UNVERIFIABLE, ucmatoseClient.icrc());
        CmToolConfig udaddy = ((CmToolCommand) parse("udaddy -s " + GUEST + " -C 10" + tail)).config();
        assertEquals(7174, udaddy.port());
        assertEquals(HOST, udaddy.hcaIp());
    }
}
