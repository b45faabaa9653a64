package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.bench.experiment.ExperimentReport;
import io.rnic.bench.experiment.LossExperiment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rnic experiment loss}: the RC loss recovery modes compared on the simulated network
 * (issue 15), and its table, CSV and figure (issue 40).
 */
class ExperimentCommandTest {
    private static final String[] SMALL = {"experiment", "loss", "--ops", "write64k,read64k", "--modes", "gbn,reorder,sr",
        "--loss", "0,0.01", "--seed", "3", "--messages", "100"};

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
        report.add(lossless, lossless, 1);
        report.add(result(LossExperiment.Mode.SR, 0.01, 10, 11), lossless, 1);
        report.add(result(LossExperiment.Mode.SR, 0.05, 30, 33), lossless, 1);
        report.add(result(LossExperiment.Mode.GBN, 0.01, 4, 200), result(LossExperiment.Mode.GBN, 0, 0, 0), 1);
        String table = report.table();
        assertTrue(table.endsWith("# packets resent per packet lost, all runs of a mode: sr 1.10 (44 for 40), "
                + "gbn 50.00 (200 for 4)\n"), table);
    }

    private static LossExperiment.Result result(LossExperiment.Mode mode, double loss, long lost, long retransmissions) {
        return new LossExperiment.Result(mode, LossExperiment.Op.WRITE64K, loss, 1 << 20, 1_000_000, 1000, lost,
                retransmissions, 0, 1, 2);
    }

    @Test
    void csvHasTheNamedColumnsAndOneRowPerModeOpLossAndSeed(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("loss.csv");
        Path svg = dir.resolve("loss.svg");
        CliRun run = CliRun.rnic(with(SMALL, "--csv", csv.toString(), "--plot", svg.toString()));
        assertEquals(0, run.status(), run.err());
        List<String> lines = Files.readAllLines(csv);
        assertEquals("mode,op,loss,goodput_fraction,packets_sent,retransmissions_per_loss,p50_us,p99_us,seed", lines.get(0));
        assertEquals(ExperimentReport.CSV_HEADER, lines.get(0));
        assertEquals(1 + 2 * 3 * 2, lines.size());
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",");
            assertEquals(9, f.length, line);
            assertEquals("3", f[8], "the seed: " + line);
            if (f[2].equals("0")) {
                assertEquals("1.0000", f[3], "a lossless run is its own reference: " + line);
            }
        }
        assertTrue(Files.readString(svg).contains("<svg"));
    }

    private static String[] with(String[] args, String... more) {
        return java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.Arrays.stream(more))
                .toArray(String[]::new);
    }

    /** Two seeds per point: a CSV row per run, the table's means with their 95 % half-widths. */
    @Test
    void severalSeedsGiveOneCsvRowPerRunAndATableOfMeansWithIntervals(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("loss.csv");
        CliRun run = CliRun.rnic("experiment", "loss", "--ops", "send4k", "--modes", "gbn,sr", "--loss", "0,0.05",
                "--messages", "40", "--seed", "7", "--seeds", "2", "--csv", csv.toString());
        assertEquals(0, run.status(), run.err());
        assertTrue(run.out().startsWith("# rnic experiment loss, seeds 7..8\n"), run.out());
        assertTrue(run.out().contains("40 messages per run"), run.out());
        assertTrue(run.out().contains("# 2 seeds per point: mean +- half-width of the 95% confidence interval"), run.out());
        List<String> rows = run.outLines().stream().filter(l -> l.matches("(gbn|sr) +send4k .*")).toList();
        assertEquals(4, rows.size(), run.out());
        for (String row : rows) {
            assertTrue(row.matches(".* \\d+\\.\\d{2} \\+- \\d+\\.\\d{2} +\\d\\.\\d{3} \\+- \\d\\.\\d{3} .*"), row);
        }
        List<String> lines = Files.readAllLines(csv);
        assertEquals(1 + 2 * 2 * 2, lines.size(), "one row per mode, loss and seed");
        assertEquals(List.of("7", "8"), lines.subList(1, 3).stream().map(l -> l.split(",")[8]).toList(),
                "a point's seeds one after the other: " + lines);
    }

    /**
     * The figure: drawn by the plot package (issue 40), byte-identical for a seed, with the loss on
     * a logarithmic axis (so the lossless reference is left off it) and 95 % error bars when there
     * are several seeds, as its description says.
     */
    @Test
    void thePlotIsTheSameForASeedAndDescribesItsLogAxisAndIntervals(@TempDir Path dir) throws Exception {
        String[] args = {"experiment", "loss", "--ops", "write64k,send4k", "--modes", "gbn,sr", "--loss", "0,0.01,0.05",
            "--messages", "20", "--seeds", "2", "--seed", "4"};
        Path first = dir.resolve("a.svg");
        Path second = dir.resolve("b.svg");
        Path other = dir.resolve("c.svg");
        assertEquals(0, CliRun.rnic(with(args, "--plot", first.toString())).status());
        assertEquals(0, CliRun.rnic(with(args, "--plot", second.toString())).status());
        assertEquals(0, CliRun.rnic(with(args, "--plot", other.toString(), "--seed", "5")).status());
        byte[] a = Files.readAllBytes(first);
        assertArrayEquals(a, Files.readAllBytes(second), "the same seed gives the same bytes");
        assertFalse(java.util.Arrays.equals(a, Files.readAllBytes(other)), "another seed, other numbers");

        org.w3c.dom.Document doc = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(first.toFile());
        String desc = doc.getElementsByTagName("desc").item(0).getTextContent();
        assertTrue(desc.contains("panel write64k: x loss probability per packet (both directions) (log), "
                + "y goodput / lossless goodput, series gbn (95% CI) sr (95% CI)"), desc);
        assertTrue(desc.contains("panel send4k: x loss probability"), desc);
        String title = doc.getElementsByTagName("title").item(0).getTextContent();
        assertTrue(title.contains("lossless run (loss 0, not on the log axis)"), title);
        assertTrue(title.contains("2 seeds, mean and 95% CI, 20 messages per run"), title);

        Path one = dir.resolve("one.svg");
        assertEquals(0, CliRun.rnic("experiment", "loss", "--ops", "send4k", "--modes", "gbn", "--loss", "0.05",
                "--messages", "20", "--plot", one.toString()).status());
        String oneDesc = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(one.toFile())
                .getElementsByTagName("desc").item(0).getTextContent();
        assertTrue(oneDesc.endsWith("series gbn"), "one seed, no interval to draw: " + oneDesc);
    }

    @Test
    void selectiveRetransmissionBeatsGoBackNUnderOnePercentLoss(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("loss.csv");
        CliRun run = CliRun.rnic("experiment", "loss", "--ops", "write64k", "--loss", "0.01", "--seed", "5",
                "--messages", "200", "--csv", csv.toString());
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
        run = CliRun.rnic("experiment", "loss", "--loss", "0", "--plot", "x.svg");
        assertEquals(2, run.status());
        assertTrue(run.err().contains("--plot draws goodput against loss on a logarithmic axis"), run.err());
        assertEquals(2, CliRun.rnic("experiment", "loss", "--seeds", "0").status());
        Path nowhere = Path.of("no-such-directory-" + System.nanoTime(), "loss.svg");
        run = CliRun.rnic("experiment", "loss", "--ops", "send4k", "--modes", "sr", "--loss", "0.01", "--messages", "10",
                "--plot", nowhere.toString());
        assertEquals(1, run.status());
        assertTrue(run.err().contains("cannot write " + nowhere + ": no such directory"), run.err());
        assertEquals(2, CliRun.rnic("experiment", "loss", "--messages", "0").status());
    }
}
