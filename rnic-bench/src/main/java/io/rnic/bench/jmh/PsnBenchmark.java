package io.rnic.bench.jmh;

import io.rnic.core.psn.Psn;
import io.rnic.core.psn.ReorderBitmap;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * PSN window logic: serial compare, in-window check, and the reorder bitmap's mark/advance.
 * Each invocation runs a batch of {@value #BATCH} operations over PSNs that straddle the 24-bit
 * wrap, so the per-op figure is not dominated by the harness.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class PsnBenchmark {
    static final int BATCH = 1024;

    private final int[] a = new int[BATCH];
    private final int[] b = new int[BATCH];
    private final int[] order = new int[BATCH];
    private final int[] psns = new int[BATCH];
    private ReorderBitmap bitmap;
    private int base;

    @Setup
    public void setUp() {
        Random r = new Random(1);
        for (int i = 0; i < BATCH; i++) {
            a[i] = Psn.add(0xFFFF00, r.nextInt(512));
            b[i] = Psn.add(0xFFFF00, r.nextInt(512));
        }
        // Arrival order for the bitmap: each group of 8 consecutive PSNs arrives reversed, so
        // every mark but the group's last is out of order and each advance consumes a run of 8.
        for (int i = 0; i < BATCH; i++) {
            order[i] = (i & ~7) + (7 - (i & 7));
        }
        bitmap = new ReorderBitmap(1024);
        base = 0xFFFE00;
        bitmap.reset(base);
        for (int i = 0; i < BATCH; i++) {
            psns[i] = Psn.add(base, order[i]);
        }

    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int compare() {
        int after = 0;
        for (int i = 0; i < BATCH; i++) {
            if (Psn.isAfter(a[i], b[i])) {
                after++;
            }
        }
        return after;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int inWindow() {
        int in = 0;
        for (int i = 0; i < BATCH; i++) {
            if (Psn.inWindow(a[i], b[i], 128)) {
                in++;
            }
        }
        return in;
    }

    /** One op = one mark of a PSN arriving out of order (reversed groups of 8). */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int bitmapMark() {
        bitmap.reset(base);
        int fresh = 0;
        for (int i = 0; i < BATCH; i++) {
            if (bitmap.mark(psns[i]) == ReorderBitmap.Mark.NEW) {
                fresh++;
            }
        }
        return fresh;
    }

    /**
     * One op = one advance() call: the expected PSN has just arrived in order (marked first, so
     * the mark is part of the op), and advance consumes it and moves the window.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int bitmapMarkThenAdvance() {
        int consumed = 0;
        int start = bitmap.base();
        for (int i = 0; i < BATCH; i++) {
            bitmap.mark(Psn.add(start, i));
            consumed += bitmap.advance();
        }
        return consumed;
    }

    /**
     * In-order arrival through the one-call receive step: one op = arrive() of the expected PSN,
     * which consumes it and moves the window.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int bitmapArriveInOrder() {
        int consumed = 0;
        int start = bitmap.base();
        for (int i = 0; i < BATCH; i++) {
            consumed += bitmap.arrive(Psn.add(start, i));
        }
        return consumed;
    }

    private final byte[] raw = new byte[1024];

    /**
     * The floor under {@link #bitmapMark}: the bare byte store a mark makes, in the same loop
     * over the same PSNs, without the window and duplicate checks.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int baselineByteStore() {
        byte[] r = raw;
        for (int i = 0; i < BATCH; i++) {
            r[psns[i] & 1023] = 1;
        }
        return r[5];
    }

    /**
     * Out-of-order recovery, per PSN: in each group of 64 PSNs, 63 arrive ahead of a hole, then
     * the hole is filled and one advance() consumes the run of 64. One op = one PSN marked and
     * consumed.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int bitmapFillHoleAndAdvance() {
        int consumed = 0;
        int start = bitmap.base();
        for (int g = 0; g < BATCH; g += 64) {
            for (int k = 1; k < 64; k++) {
                bitmap.mark(Psn.add(start, g + k));
            }
            bitmap.mark(Psn.add(start, g));
            consumed += bitmap.advance();
        }
        return consumed;
    }

    /**
     * The advance alone, per PSN consumed: a window of {@value AdvanceState#SPAN} PSNs, marked
     * outside the measurement except for one hole every 64; the measured loop fills each hole
     * (one mark per 64 PSNs) and lets advance() consume the run of 64 behind it. The marks are
     * made before the measurement, as on a real responder, where other work separates a
     * packet's arrival from the advance it enables.
     */
    @Benchmark
    @OperationsPerInvocation(AdvanceState.SPAN)
    public int bitmapAdvance(AdvanceState st) {
        ReorderBitmap b = st.bitmap;
        int start = b.base();
        int consumed = 0;
        for (int g = 0; g < AdvanceState.SPAN; g += 64) {
            b.mark(Psn.add(start, g));
            consumed += b.advance();
        }
        return consumed;
    }

    /** A window with every PSN but one in 64 already marked, rebuilt before each invocation. */
    @State(Scope.Thread)
    public static class AdvanceState {
        /** Large enough that the per-invocation timestamps cost under 1 %; 64 KiB of slots stay in L2. */
        static final int SPAN = 16384;
        final ReorderBitmap bitmap = new ReorderBitmap(SPAN);
        int next = 0xFFC000;

        @Setup(Level.Invocation)
        public void markAllButTheHoles() {
            bitmap.reset(next);
            for (int d = 0; d < SPAN; d++) {
                if ((d & 63) != 0) {
                    bitmap.mark(Psn.add(next, d));
                }
            }
            next = Psn.add(next, SPAN);
        }
    }
}
