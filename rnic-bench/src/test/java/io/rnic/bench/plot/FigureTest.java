package io.rnic.bench.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class FigureTest {
    private static Figure twoPanels() {
        Figure f = new Figure("Goodput under random loss");
        Axis x = Axis.log("loss probability");
        Axis y = Axis.linear("goodput (fraction of lossless)");
        double[] loss = {0.001, 0.01, 0.05};
        f.panel("write64k", x, y).series("gbn", loss, new Interval[] {Interval.of(0.9, 0.92, 0.91),
            Interval.of(0.5, 0.55, 0.52), Interval.of(0.1, 0.12, 0.2)})
                .series("sr", loss, new double[] {0.99, 0.95, 0.8});
        f.panel("send4k", x, y).series("sr", loss, new double[] {0.98, 0.9, 0.7})
                .series("gbn", loss, new double[] {0.9, 0.6, 0.2});
        return f;
    }

    @Test
    void theSameFigureGivesTheSameBytes() {
        assertEquals(twoPanels().svg(), twoPanels().svg());
    }

    @Test
    void theSvgIsWellFormedAndSaysWhatItShows() throws Exception {
        String svg = twoPanels().svg();
        if (System.getProperty("rnic.figure.out") != null) {
            Files.writeString(Path.of(System.getProperty("rnic.figure.out")), svg);
        }
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertEquals("svg", doc.getDocumentElement().getNodeName());
        assertEquals("Goodput under random loss", doc.getElementsByTagName("title").item(0).getTextContent());
        String desc = doc.getElementsByTagName("desc").item(0).getTextContent();
        assertTrue(desc.contains("panel write64k: x loss probability (log), y goodput (fraction of lossless), "
                + "series gbn (95% CI) sr"), desc);
        assertTrue(desc.contains("panel send4k"), desc);
        assertTrue(doc.getDocumentElement().getAttribute("viewBox").startsWith("0 0 "), "scales in a browser");
    }

    @Test
    void aLogAxisRefusesWhatItCannotShow() {
        Figure f = new Figure("t");
        Panel p = f.panel("p", Axis.log("loss probability"), Axis.linear("goodput (Gb/s)"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> p.series("gbn", new double[] {0, 0.01}, new double[] {1, 2}));
        assertTrue(e.getMessage().contains("logarithmic axis 'loss probability' cannot show"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> p.series("x", new double[] {1}, new double[] {1, 2}));
        assertThrows(IllegalArgumentException.class, () -> Axis.linear(" "));
        assertThrows(IllegalStateException.class, () -> new Figure("empty").svg());
    }

    /** A log axis spans whole decades, so both ends carry a labelled tick. */
    @Test
    void aLogAxisSpansWholeDecades() {
        double[] d = Figure.decades(new double[] {0.05, 0.001, 0.01});
        assertEquals(0.001, d[0], 1e-12);
        assertEquals(0.1, d[1], 1e-12);
        double[] one = Figure.decades(new double[] {0.05});
        assertEquals(0.01, one[0], 1e-12);
        assertEquals(0.1, one[1], 1e-12);
        double[] exact = Figure.decades(new double[] {10});
        assertEquals(10, exact[0], 1e-9);
        assertEquals(100, exact[1], 1e-9);
    }

    /** A title wider than a one-panel figure wraps onto more lines instead of running off the edge. */
    @Test
    void aLongTitleWrapsAndTheFigureGrowsToHoldIt() throws Exception {
        String words = "Goodput under random loss, as a fraction of each mode's lossless run (loss 0, not on the log axis)";
        Figure narrow = new Figure(words + "; 3 seeds, mean and 95% CI, 1000 messages per run");
        narrow.panel("send4k", Axis.log("loss probability"), Axis.linear("goodput (fraction)"))
                .series("sr", new double[] {0.01, 0.05}, new double[] {0.9, 0.8});
        Figure shortTitle = new Figure("Goodput");
        shortTitle.panel("send4k", Axis.log("loss probability"), Axis.linear("goodput (fraction)"))
                .series("sr", new double[] {0.01, 0.05}, new double[] {0.9, 0.8});
        double tall = height(narrow.svg());
        double small = height(shortTitle.svg());
        assertTrue(tall >= small + 40, "three title lines: " + tall + " vs " + small);
    }

    private static double height(String svg) throws Exception {
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        return Double.parseDouble(doc.getDocumentElement().getAttribute("viewBox").split(" ")[3]);
    }

    @Test
    void theIntervalIsStudentsT() {
        Interval one = Interval.of(5);
        assertEquals(5, one.mean());
        assertEquals(0, one.halfWidth());
        // three samples 1, 2, 3: mean 2, s = 1, t(0.975, 2) = 4.303, half-width 4.303 / sqrt(3)
        Interval three = Interval.of(1, 2, 3);
        assertEquals(2, three.mean(), 1e-12);
        assertEquals(4.303 / Math.sqrt(3), three.halfWidth(), 1e-9);
        assertEquals(1.96, Interval.t975(100));
        assertThrows(IllegalArgumentException.class, Interval::of);
    }
}
