package io.rnic.bench.console;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A one-line progress report with an estimate of the time left, for long-running commands
 * ({@code soak}, {@code perf}). It writes to stderr only when stderr is a terminal, and rewrites
 * its line in place ({@code \r}), so stdout keeps exactly the results a script parses and a log
 * file never fills with progress lines. {@code RNIC_PROGRESS=always|never} overrides the check
 * (for terminals the check cannot see, or to silence it).
 *
 * <p>Not thread-safe: one thread reports.
 */
public final class Progress implements AutoCloseable {
    private static final long REDRAW_NANOS = 250_000_000L;

    private final PrintStream err;
    private final boolean enabled;
    private final LongSupplier clock;
    private String label;
    private double total;
    private String unit;
    private long start;
    private long lastDraw;
    private int drawnWidth;

    Progress(PrintStream err, boolean enabled, LongSupplier clock) {
        this.err = err;
        this.enabled = enabled;
        this.clock = clock;
    }

    /**
     * A progress line on {@code err}, shown if {@code err} is the process's stderr and that is a
     * terminal (or {@code RNIC_PROGRESS=always}); otherwise every call is a no-op.
     */
    public static Progress on(PrintStream err) {
        String env = System.getenv("RNIC_PROGRESS");
        boolean enabled = "always".equals(env) || (!"never".equals(env) && err == System.err && stderrIsTerminal());
        return new Progress(err, enabled, System::nanoTime);
    }

    /** A progress line that nothing shows: for callers that report to no one. */
    public static Progress none() {
        return new Progress(null, false, System::nanoTime);
    }

    /** True if this reporter writes anything. */
    public boolean enabled() {
        return enabled;
    }

    /**
     * Starts a new phase: {@code total} {@code unit}s of work under {@code label}; the estimate
     * restarts from now.
     */
    public void start(String label, double total, String unit) {
        this.label = label;
        this.total = total;
        this.unit = unit;
        this.start = clock.getAsLong();
        this.lastDraw = start - REDRAW_NANOS;
    }

    /** Reports {@code done} units of the current phase; redraws at most four times a second. */
    public void update(double done) {
        if (!enabled || label == null) {
            return;
        }
        long now = clock.getAsLong();
        if (now - lastDraw < REDRAW_NANOS) {
            return;
        }
        lastDraw = now;
        draw(line(done, (now - start) / 1e9));
    }

    /** The line for {@code done} units after {@code elapsed} seconds (the estimate assumes a steady rate). */
    String line(double done, double elapsed) {
        double fraction = total > 0 ? Math.min(1, done / total) : 0;
        String left = fraction > 0 && fraction < 1 && elapsed >= 2 // the first seconds (JIT warm-up) mislead
                ? String.format(Locale.ROOT, ", ~%s left", duration(elapsed * (1 - fraction) / fraction))
                : "";
        String amount = total < 100 ? "%s: %.1f / %.1f %s (%.1f %%), %s elapsed%s" : "%s: %,.0f / %,.0f %s (%.1f %%), %s elapsed%s";
        return String.format(Locale.ROOT, amount, label, done, total, unit, 100 * fraction, duration(elapsed), left);
    }

    static String duration(double secs) {
        if (secs < 60) {
            return String.format(Locale.ROOT, "%.0f s", secs);
        }
        long s = Math.round(secs);
        return s < 3600 ? String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60)
                : String.format(Locale.ROOT, "%d h %02d min", s / 3600, (s % 3600) / 60);
    }

    private void draw(String text) {
        StringBuilder b = new StringBuilder(text.length() + drawnWidth + 1).append('\r').append(text);
        for (int i = text.length(); i < drawnWidth; i++) {
            b.append(' ');
        }
        drawnWidth = text.length();
        err.print(b);
        err.flush();
    }

    /** Erases the line, so that what follows on the terminal starts clean. */
    @Override
    public void close() {
        if (enabled && drawnWidth > 0) {
            err.print("\r" + " ".repeat(drawnWidth) + "\r");
            err.flush();
            drawnWidth = 0;
        }
    }

    /**
     * Whether file descriptor 2 is a terminal. Java has no isatty; on Linux the descriptor's link
     * names the device, and {@code System.console()} (stdin and stdout both terminals) is the
     * fallback elsewhere.
     */
    static boolean stderrIsTerminal() {
        String target = linkTarget(Path.of("/proc/self/fd/2"));
        if (target == null) {
            return System.console() != null;
        }
        return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
    }

    /** Where a symbolic link points, or null if it is none or cannot be read (no /proc here). */
    private static String linkTarget(Path link) {
        try {
            return Files.isSymbolicLink(link) ? Files.readSymbolicLink(link).toString() : null;
        } catch (java.io.IOException | SecurityException | UnsupportedOperationException e) {
            return null;
        }
    }
}
