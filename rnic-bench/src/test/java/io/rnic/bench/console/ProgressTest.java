package io.rnic.bench.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    private long now;

    private String written() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aStreamThatIsNotTheProcessStderrNeverGetsProgress() {
        assumeTrue(System.getenv("RNIC_PROGRESS") == null, "RNIC_PROGRESS overrides the check");
        Progress p = Progress.on(err);
        assertFalse(p.enabled(), "only the process's own stderr, and only on a terminal");
        p.start("soak", 100, "operations");
        p.update(50);
        p.close();
        assertEquals("", written());
    }

    @Test
    void lineShowsCountPercentElapsedAndEstimateLeft() {
        Progress p = new Progress(err, true, () -> now);
        p.start("soak", 1_000_000, "operations");
        assertEquals("soak: 250,000 / 1,000,000 operations (25.0 %), 30 s elapsed, ~1 min 30 s left", p.line(250_000, 30));
        assertEquals("soak: 1,000,000 / 1,000,000 operations (100.0 %), 2 h 05 min elapsed", p.line(1_000_000, 7500));
    }

    @Test
    void redrawsInPlaceAtMostFourTimesASecondAndCloseErasesTheLine() {
        Progress p = new Progress(err, true, () -> now);
        p.start("write_bw 64 B", 10, "s of traffic");
        now = 1_000_000_000L;
        p.update(1);
        now += 100_000_000L;
        p.update(1.1); // too soon: not drawn
        now += 200_000_000L;
        p.update(1.3);
        String out = written();
        assertEquals(2, out.chars().filter(c -> c == '\r').count(), out);
        assertTrue(out.startsWith("\rwrite_bw 64 B: 1.0 / 10.0 s of traffic (10.0 %)"), out);
        assertFalse(out.contains("\n"), "a progress line never scrolls the terminal");
        p.close();
        assertTrue(written().endsWith("\r"), "close leaves the cursor at the start of a blank line");
    }

    @Test
    void disabledReporterWritesNothing() {
        Progress p = new Progress(err, false, () -> now);
        p.start("soak", 10, "operations");
        now = 5_000_000_000L;
        p.update(5);
        p.close();
        assertEquals("", written());
    }
}
