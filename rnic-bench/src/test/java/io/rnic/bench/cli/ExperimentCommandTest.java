package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.bench.experiment.ExperimentReport;
import io.rnic.bench.experiment.LossExperiment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rnic experiment loss}: seed 002's modes compared on the simulated network (issue 15). */
class ExperimentCommandTest {
    private static final String[] SMALL = {"experiment", "loss", "--ops", "write64k,read64k", "--modes", "gbn,reorder,sr",
        "--loss", "0,0.01", "--seed", "3"};

    @Test
    void theSameSeedPrintsTheSameTableByteForByte() {
        CliRun first = CliRun.rnic(SMALL);
        CliRun second = CliRun.rnic(SMALL);
        assertEquals(0, first.status(), first.err());
        assertEquals(first.out(), second.out());
        assertTrue(first.out().contains("ACK timeout 4.096 us x 2^6 = 262 us"), first.out());
        assertTrue(first.out().contains("hole lost after 25 us or 8 later packets"), first.out());
        assertTrue(first.out().contains("sr's RTO_low 100 us while at most 3 PSNs are in flight"), first.out());
        assertTrue(first.out().contains("# packets resent per packet lost, all runs of a mode: gbn "), first.out());
    }

    /** The per-mode figure is the mode's retransmissions over its losses, summed over its runs. */
    @Test
    void eachModesPacketsResentPerPacketLostSumsItsRuns() {
        ExperimentReport report = new ExperimentReport();
        LossExperiment.Result lossless = result(LossExperiment.Mode.SR, 0, 0, 0);
        report.add(lossless, lossless);
        report.add(result(LossExperiment.Mode.SR, 0.01, 10, 11), lossless);
        report.add(result(LossExperiment.Mode.SR, 0.05, 30, 33), lossless);
        report.add(result(LossExperiment.Mode.GBN, 0.01, 4, 200), result(LossExperiment.Mode.GBN, 0, 0, 0));
        String table = report.table();
        assertTrue(table.endsWith("# packets resent per packet lost, all runs of a mode: sr 1.10 (44 for 40), "
                + "gbn 50.00 (200 for 4)\n"), table);
    }

    private static LossExperiment.Result result(LossExperiment.Mode mode, double loss, long lost, long retransmissions) {
        return new LossExperiment.Result(mode, LossExperiment.Op.WRITE64K, loss, 1 << 20, 1_000_000, 1000, lost,
                retransmissions, 0, 1, 2);
    }

    @Test
    void csvHasTheNamedColumnsAndOneRowPerModeOpAndLoss(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("loss.csv");
        Path svg = dir.resolve("loss.svg");
        String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(SMALL),
                java.util.stream.Stream.of("--csv", csv.toString(), "--plot", svg.toString())).toArray(String[]::new);
        CliRun run = CliRun.rnic(args);
        assertEquals(0, run.status(), run.err());
        List<String> lines = Files.readAllLines(csv);
        assertEquals("mode,op,loss,goodput_fraction,packets_sent,retransmissions_per_loss,p50_us,p99_us", lines.get(0));
        assertEquals(ExperimentReport.CSV_HEADER, lines.get(0));
        assertEquals(1 + 2 * 3 * 2, lines.size());
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",");
            assertEquals(8, f.length, line);
            if (f[2].equals("0")) {
                assertEquals("1.0000", f[3], "a lossless run is its own reference: " + line);
            }
        }
        String plot = Files.readString(svg);
        assertTrue(plot.startsWith("<svg"), plot);
        assertEquals(2 * 3, plot.split("<polyline").length - 1, "one line per mode in each of the two panels");
    }

    @Test
    void selectiveRetransmissionBeatsGoBackNUnderOnePercentLoss(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("loss.csv");
        CliRun run = CliRun.rnic("experiment", "loss", "--ops", "write64k", "--loss", "0.01", "--seed", "5",
                "--csv", csv.toString());
        assertEquals(0, run.status(), run.err());
        List<String[]> rows = Files.readAllLines(csv).stream().skip(1).map(l -> l.split(",")).toList();
        double gbn = fraction(rows, "gbn");
        double sr = fraction(rows, "sr");
        double gbnRetx = Double.parseDouble(rows.stream().filter(r -> r[0].equals("gbn")).findFirst().orElseThrow()[5]);
        double srRetx = Double.parseDouble(rows.stream().filter(r -> r[0].equals("sr")).findFirst().orElseThrow()[5]);
        assertTrue(sr > gbn, "sr " + sr + " vs gbn " + gbn);
        assertTrue(srRetx < gbnRetx, "sr resends fewer packets per loss: " + srRetx + " vs " + gbnRetx);
    }

    private static double fraction(List<String[]> rows, String mode) {
        return Double.parseDouble(rows.stream().filter(r -> r[0].equals(mode)).findFirst().orElseThrow()[3]);
    }

    @Test
    void badOptionsAreRefusedWithTheReason() {
        CliRun run = CliRun.rnic("experiment", "loss", "--modes", "gbn,tcp");
        assertEquals(2, run.status());
        assertTrue(run.err().contains("'tcp' is not gbn, reorder or sr"), run.err());
        run = CliRun.rnic("experiment", "loss", "--loss", "1.5");
        assertEquals(2, run.status());
        assertTrue(run.err().contains("not in [0, 1)"), run.err());
        run = CliRun.rnic("experiment", "latency");
        assertEquals(2, run.status());
        assertTrue(run.err().contains("unknown experiment 'latency'"), run.err());
    }
}
