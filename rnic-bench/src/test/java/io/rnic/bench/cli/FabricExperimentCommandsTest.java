package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FabricExperimentCommandsTest {
    @Test
    void incastPrintsItsTableAndWritesTheSameCsvAndFigureForASeed(@TempDir Path dir) throws Exception {
        String[] args = {"experiment", "incast", "--senders", "3", "--size", "64K", "--buffer", "1M", "--seed", "4",
            "--csv", dir.resolve("a.csv").toString(), "--plot", dir.resolve("a.svg").toString(), "--pcap",
            dir.resolve("a.pcap").toString()};
        CliRun r = CliRun.rnic(args);
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains("incast of 3 x 65536 B (write): completed in"), r.out());
        String csv = Files.readString(dir.resolve("a.csv"));
        assertTrue(csv.lines().anyMatch(l -> l.startsWith("all,")), csv);
        args[11] = dir.resolve("b.csv").toString();
        args[13] = dir.resolve("b.svg").toString();
        args[15] = dir.resolve("b.pcap").toString();
        assertEquals(0, CliRun.rnic(args).status());
        assertEquals(csv, Files.readString(dir.resolve("b.csv")));
        assertEquals(Files.readString(dir.resolve("a.svg")), Files.readString(dir.resolve("b.svg")));
        assertEquals(-1, Files.mismatch(dir.resolve("a.pcap"), dir.resolve("b.pcap")), "the same capture");
        CliRun decode = CliRun.rnic("decode", "-q", dir.resolve("a.pcap").toString());
        assertEquals(0, decode.status(), "every RoCEv2 packet of the capture decodes with a good ICRC: " + decode);
    }

    /**
     * {@code --cc dcqcn}: the figure gains each sender's rate over time; the same seed gives the
     * same CSV and figure; the capture holds the notification points' CNPs (opcode 0x81) and
     * {@code rnic decode} takes every packet of it with a good ICRC.
     */
    @Test
    void incastWithDcqcnPlotsTheRatesAndItsCaptureOfCnpsDecodes(@TempDir Path dir) throws Exception {
        String[] args = {"experiment", "incast", "--senders", "4", "--size", "256K", "--cc", "dcqcn", "--seed", "4",
            "--csv", dir.resolve("a.csv").toString(), "--plot", dir.resolve("a.svg").toString(), "--pcap",
            dir.resolve("a.pcap").toString()};
        CliRun r = CliRun.rnic(args);
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains("congestion control dcqcn"), r.out());
        String svg = Files.readString(dir.resolve("a.svg"));
        assertTrue(svg.contains("Congestion-control rate per sender (dcqcn)"), "the rate panel");
        args[11] = dir.resolve("b.csv").toString();
        args[13] = dir.resolve("b.svg").toString();
        args[15] = dir.resolve("b.pcap").toString();
        assertEquals(0, CliRun.rnic(args).status());
        assertEquals(Files.readString(dir.resolve("a.csv")), Files.readString(dir.resolve("b.csv")));
        assertEquals(svg, Files.readString(dir.resolve("b.svg")));
        CliRun decode = CliRun.rnic("decode", dir.resolve("a.pcap").toString());
        assertEquals(0, decode.status(), decode.toString());
        assertTrue(decode.out().lines().anyMatch(l -> l.contains(" CNP qp=") && l.contains("icrc=ok")), "a CNP in the capture");
        CliRun bad = CliRun.rnic("experiment", "incast", "--cc", "reno");
        assertEquals(2, bad.status());
        assertTrue(bad.err().contains("'reno' is not one of none, dcqcn, dcqcn-mlx, timely, timely-patched"), bad.err());
    }

    @Test
    void incastRefusesWhatItCannotRun() {
        CliRun small = CliRun.rnic("experiment", "incast", "--senders", "9", "--topology", "star:4");
        assertEquals(2, small.status(), small.toString());
        assertTrue(small.err().contains("has 4 hosts"), small.err());
        CliRun rate = CliRun.rnic("experiment", "incast", "--link", "100X");
        assertEquals(2, rate.status());
        assertTrue(rate.err().contains("'100X' is not a rate"), rate.err());
        CliRun op = CliRun.rnic("experiment", "incast", "--op", "fly");
        assertEquals(2, op.status());
        assertTrue(op.err().contains("--op must be write, send or read"), op.err());
    }

    @Test
    void pfcRunsAScenarioAndPrintsItsVerdict() {
        CliRun r = CliRun.rnic("experiment", "pfc", "hol");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains("verdict: HOLDS"), r.out());
        CliRun bad = CliRun.rnic("experiment", "pfc", "flood");
        assertEquals(2, bad.status());
        assertTrue(bad.err().contains("unknown scenario 'flood'"), bad.err());
    }

    @Test
    void fabricPrintsItsTableAndWritesTheSameCsvAndFigureForASeed(@TempDir Path dir) throws Exception {
        String[] args = {"experiment", "fabric", "--topology", "fattree:k=4", "--workload", "hadoop", "--load", "0.4",
            "--duration", "60us", "--seed", "6", "--csv", dir.resolve("a.csv").toString(), "--plot",
            dir.resolve("a.svg").toString(), "--write-flows", dir.resolve("a.flows").toString(), "--pcap",
            dir.resolve("a.pcap").toString()};
        CliRun r = CliRun.rnic(args);
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains("== gbn+pfc: "), r.out());
        assertTrue(r.out().contains("(every byte checked), 0 failed, 0 incomplete"), r.out());
        String csv = Files.readString(dir.resolve("a.csv"));
        assertTrue(csv.startsWith("# fattree:k=4, 100G links, hadoop"), csv);
        assertTrue(csv.contains("\nconfig,bucket,flows,p50_slowdown,p95_slowdown,p99_slowdown,avg_fct_ns,p99_fct_ns,drops,"), csv);
        assertTrue(csv.lines().anyMatch(l -> l.startsWith("gbn+pfc,all,")), csv);
        String svg = Files.readString(dir.resolve("a.svg"));
        assertTrue(svg.contains("flow size (bytes)") && svg.contains("gbn+pfc"), "axes with units and a legend");
        args[13] = dir.resolve("b.csv").toString();
        args[15] = dir.resolve("b.svg").toString();
        args[17] = dir.resolve("b.flows").toString();
        args[19] = dir.resolve("b.pcap").toString();
        CliRun again = CliRun.rnic(args);
        assertEquals(0, again.status(), again.toString());
        assertEquals(csv, Files.readString(dir.resolve("b.csv")), "the same seed, the same CSV byte for byte");
        assertEquals(Files.readString(dir.resolve("a.svg")), Files.readString(dir.resolve("b.svg")));
        assertEquals(-1, Files.mismatch(dir.resolve("a.pcap"), dir.resolve("b.pcap")), "the same capture");
        CliRun decode = CliRun.rnic("decode", "-q", dir.resolve("a.pcap").toString());
        assertEquals(0, decode.status(), "every RoCEv2 packet of the capture decodes with a good ICRC: " + decode);
        // The flows written in HPCC's format replay: the same number of flows, every one completed.
        String flows = Files.readString(dir.resolve("a.flows"));
        int count = Integer.parseInt(flows.lines().findFirst().orElseThrow());
        CliRun replay = CliRun.rnic("experiment", "fabric", "--topology", "fattree:k=4", "--workload",
                "flows:" + dir.resolve("a.flows"), "--seed", "6");
        assertEquals(0, replay.status(), replay.toString());
        assertTrue(replay.out().contains("== gbn+pfc: " + count + " flows, " + count + " completed"), replay.out());
    }

    @Test
    void fabricComparesConfigurationsOnTheSameFlows(@TempDir Path dir) throws Exception {
        CliRun r = CliRun.rnic("experiment", "fabric", "--topology", "fattree:k=4", "--workload", "hadoop", "--load", "0.3",
                "--duration", "50us", "--buffer", "1M", "--compare", "gbn+pfc, sr+nopfc", "--csv", dir.resolve("c.csv").toString(),
                "--ack-timeout", "10");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains("ACK timeout 4194 us"), r.out());
        String csv = Files.readString(dir.resolve("c.csv"));
        assertTrue(csv.lines().anyMatch(l -> l.startsWith("gbn+pfc,all,")), csv);
        assertTrue(csv.lines().anyMatch(l -> l.startsWith("sr+nopfc,all,")), csv);
    }

    @Test
    void fabricDrawsSizesFromACdfFile(@TempDir Path dir) throws Exception {
        Path cdf = dir.resolve("small.cdf");
        Files.writeString(cdf, "0 0\n1000 50\n100000 100\n");
        CliRun r = CliRun.rnic("experiment", "fabric", "--workload", "cdf:" + cdf, "--load", "0.3", "--duration", "30us");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains("small.cdf (mean 25500 B) at load 0.3 for 30 us"), r.out());
        Files.writeString(cdf, "0 0\n1000 50\n900 100\n");
        CliRun bad = CliRun.rnic("experiment", "fabric", "--workload", "cdf:" + cdf);
        assertEquals(2, bad.status());
        assertTrue(bad.err().contains("line 3: size 900 is not above line 2's 1000"), bad.err());
    }

    @Test
    void fabricRefusesWhatItCannotRun() {
        CliRun buffer = CliRun.rnic("experiment", "fabric", "--buffer", "256K", "--duration", "10us");
        assertEquals(2, buffer.status(), buffer.toString());
        assertTrue(buffer.err().contains("--buffer: buffer 262144 B leaves no shared pool"), buffer.err());
        CliRun timeout = CliRun.rnic("experiment", "fabric", "--ack-timeout", "0");
        assertEquals(2, timeout.status());
        assertTrue(timeout.err().contains("--ack-timeout"), timeout.err());
        CliRun workload = CliRun.rnic("experiment", "fabric", "--workload", "cache");
        assertEquals(2, workload.status());
        assertTrue(workload.err().contains("--workload must be websearch, hadoop, cdf:PATH or flows:PATH"), workload.err());
        CliRun load = CliRun.rnic("experiment", "fabric", "--load", "0");
        assertEquals(2, load.status());
        assertTrue(load.err().contains("--load: 0.0 is not above 0 and at most 1"), load.err());
        CliRun compare = CliRun.rnic("experiment", "fabric", "--compare", "gbn+sr");
        assertEquals(2, compare.status());
        assertTrue(compare.err().contains("names loss recovery (gbn|reorder|sr) twice"), compare.err());
        CliRun pcap = CliRun.rnic("experiment", "fabric", "--compare", "gbn,sr", "--pcap", "x.pcap");
        assertEquals(2, pcap.status());
        assertTrue(pcap.err().contains("--pcap captures one configuration"), pcap.err());
        CliRun file = CliRun.rnic("experiment", "fabric", "--workload", "flows:/nonexistent/flow.txt");
        assertEquals(2, file.status());
        assertTrue(file.err().contains("cannot read flow file /nonexistent/flow.txt"), file.err());
        CliRun both = CliRun.rnic("experiment", "fabric", "--workload", "flows:/nonexistent/flow.txt", "--load", "0.3");
        assertEquals(2, both.status());
        assertTrue(both.err().contains("--load does not go with a flow file"), both.err());
    }

    @Test
    void incastRefusesABufferTooSmallForItsPorts() {
        CliRun buffer = CliRun.rnic("experiment", "incast", "--buffer", "256K");
        assertEquals(2, buffer.status(), buffer.toString());
        assertTrue(buffer.err().contains("--buffer: buffer 262144 B leaves no shared pool"), buffer.err());
    }
}
