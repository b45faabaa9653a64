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
}
