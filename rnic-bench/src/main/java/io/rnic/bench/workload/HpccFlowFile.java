package io.rnic.bench.workload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * A flow trace in the format of HPCC's simulator ({@code simulation/mix/flow.txt}, written by
 * {@code traffic_gen/traffic_gen.py}), so that a published trace can be replayed:
 * <ul>
 *   <li>the first line is the number of flows;</li>
 *   <li>then one line per flow, {@code src dst pg dport size start_time}: the source and
 *       destination node ids, the priority group (the PFC priority), the destination port (100
 *       for the background workload, 200 for incast flows, as HPCC's {@code fct_analysis.py}
 *       tells them apart), the size in bytes, and the start in seconds;</li>
 *   <li>start times ascend; they are taken relative to the first flow's (the generator offsets
 *       every trace by 2 s).</li>
 * </ul>
 * As HPCC's simulator does, exactly the declared number of flows is read and anything after them
 * is ignored (its sample files end with an explanation). One difference, on purpose: the
 * generator writes an estimated count first and overwrites it with the real one, so a real
 * count with fewer digits leaves the estimate's last digits behind and the first line claims
 * more flows than follow. A file that ends after whole flow lines but before the declared count
 * is therefore read as far as it goes, and {@link Trace#note()} says so.
 */
public final class HpccFlowFile {
    /** HPCC's destination port of a background flow ({@code fct_analysis.py}'s type 0). */
    public static final int BACKGROUND_PORT = 100;
    /** HPCC's destination port of an incast flow ({@code fct_analysis.py}'s type 1). */
    public static final int INCAST_PORT = 200;
    /** The offset HPCC's {@code traffic_gen.py} gives every trace: 2 s. */
    public static final long HPCC_OFFSET_NANOS = 2_000_000_000L;

    private HpccFlowFile() {
    }

    /**
     * A trace as read.
     *
     * @param flows    the flows, in file order, ids 0, 1, ...; starts relative to the first's
     * @param declared the count on the first line
     * @param note     what was tolerated (a first line that claims more flows than the file
     *                 has), or empty
     */
    public record Trace(List<FlowSpec> flows, long declared, String note) {
    }

    /**
     * Reads a trace file.
     *
     * @param isHost which node ids are hosts of the topology the trace runs on
     * @throws IllegalArgumentException for a malformed line, naming the file and line
     * @throws UncheckedIOException if the file cannot be read
     */
    public static Trace read(Path file, IntPredicate isHost) {
        try {
            return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8), isHost);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read flow file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses a trace.
     *
     * @param name   the trace's name in messages
     * @param text   its lines
     * @param isHost which node ids are hosts of the topology the trace runs on
     * @throws IllegalArgumentException for a malformed line, naming it
     */
    public static Trace parse(String name, String text, IntPredicate isHost) {
        String[] lines = text.split("\r?\n", -1);
        String first = lines.length == 0 ? "" : lines[0].strip();
        String[] head = first.split("\\s+");
        long declared;
        try {
            declared = Long.parseLong(head[0]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " line 1: '" + first + "' is not the number of flows");
        }
        if (declared < 0) {
            throw new IllegalArgumentException(name + " line 1: the number of flows, " + declared + ", is negative");
        }
        List<FlowSpec> flows = new ArrayList<>();
        BigDecimal firstStart = null;
        long lastStart = 0;
        int line = 1;
        while (flows.size() < declared) {
            if (line >= lines.length || (lines[line].isBlank() && restIsBlank(lines, line))) {
                String note = name + ": line 1 declares " + declared + " flows but the file has " + flows.size()
                        + "; read those (HPCC's traffic_gen.py can leave digits of its estimate on line 1)";
                return new Trace(List.copyOf(flows), declared, note);
            }
            String l = lines[line].strip();
            line++;
            if (l.isEmpty()) {
                continue; // HPCC's reader skips whitespace between fields and lines alike
            }
            String[] f = l.split("\\s+");
            if (f.length != 6) {
                throw new IllegalArgumentException(name + " line " + line + ": '" + l
                        + "' is not 'src dst pg dport size start_time' (six fields)");
            }
            int src = integer(name, line, f[0], "src");
            int dst = integer(name, line, f[1], "dst");
            int pg = integer(name, line, f[2], "pg");
            int dport = integer(name, line, f[3], "dport");
            long size;
            try {
                size = Long.parseLong(f[4]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " line " + line + ": size '" + f[4] + "' is not a whole number");
            }
            BigDecimal start;
            try {
                start = new BigDecimal(f[5]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " line " + line + ": start_time '" + f[5] + "' is not a number of seconds");
            }
            if (!isHost.test(src) || !isHost.test(dst)) {
                throw new IllegalArgumentException(name + " line " + line + ": node " + (isHost.test(src) ? dst : src)
                        + " is not a host of the topology");
            }
            if (src == dst) {
                throw new IllegalArgumentException(name + " line " + line + ": source and destination are both " + src);
            }
            if (pg < 0 || pg > 7) {
                throw new IllegalArgumentException(name + " line " + line + ": pg " + pg + " is not a priority 0..7");
            }
            if (size < 1 || size > FlowSpec.MAX_BYTES) {
                throw new IllegalArgumentException(name + " line " + line + ": size " + size + " is outside 1.." + FlowSpec.MAX_BYTES
                        + " (an RC message's length)");
            }
            if (firstStart == null) {
                firstStart = start;
            }
            BigDecimal rel = start.subtract(firstStart).movePointRight(9);
            if (rel.signum() < 0 || rel.compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 2)) > 0) {
                throw new IllegalArgumentException(name + " line " + line + ": start_time " + f[5]
                        + " is before the first flow's " + firstStart.toPlainString() + "; flows must be in ascending start order");
            }
            long startNanos = rel.setScale(0, java.math.RoundingMode.HALF_EVEN).longValueExact();
            if (startNanos < lastStart) {
                throw new IllegalArgumentException(name + " line " + line + ": start_time " + f[5]
                        + " is before the previous flow's; flows must be in ascending start order");
            }
            lastStart = startNanos;
            flows.add(new FlowSpec(flows.size(), src, dst, pg, size, startNanos, dport == INCAST_PORT));
        }
        return new Trace(List.copyOf(flows), declared, "");
    }

    /**
     * Writes flows in the format {@link #parse} reads and HPCC's simulator replays, as
     * {@code traffic_gen.py} writes them ({@code "%d %d 3 100 %d %.9f"}): the count, then per flow
     * {@code src dst pg dport size start_seconds}, with dport 200 for an incast flow and 100
     * otherwise, and the start shifted by {@code offsetNanos} (HPCC's generator starts every trace
     * at 2 s, to leave its simulator time to set up). Start times are written to the nanosecond,
     * so reading the text back gives the same flows, their starts relative to the first's.
     *
     * @param flows       the flows, in ascending start order
     * @param offsetNanos added to every start, at least 0
     * @return the file's text
     * @throws IllegalArgumentException if the offset is negative or the flows are not in start order
     */
    public static String format(List<FlowSpec> flows, long offsetNanos) {
        if (offsetNanos < 0) {
            throw new IllegalArgumentException("the start offset " + offsetNanos + " ns is negative");
        }
        StringBuilder sb = new StringBuilder(32 * flows.size() + 16).append(flows.size()).append('\n');
        long last = Long.MIN_VALUE;
        for (FlowSpec f : flows) {
            if (f.startNanos() < last) {
                throw new IllegalArgumentException("flow " + f.id() + " starts at " + f.startNanos()
                        + " ns, before the flow written before it (" + last + " ns): a flow file is in start order");
            }
            last = f.startNanos();
            long t = Math.addExact(offsetNanos, f.startNanos());
            sb.append(f.src()).append(' ').append(f.dst()).append(' ').append(f.priority()).append(' ')
                    .append(f.incast() ? INCAST_PORT : BACKGROUND_PORT).append(' ').append(f.bytes()).append(' ')
                    .append(t / 1_000_000_000L).append('.').append(String.format(java.util.Locale.ROOT, "%09d", t % 1_000_000_000L))
                    .append('\n');
        }
        return sb.toString();
    }

    /**
     * Writes {@link #format}'s text to {@code file}.
     *
     * @throws UncheckedIOException if the file cannot be written
     */
    public static void write(Path file, List<FlowSpec> flows, long offsetNanos) {
        String text = format(flows, offsetNanos);
        try {
            Files.writeString(file, text, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write flow file " + file + ": " + e.getMessage(), e);
        }
    }

    private static boolean restIsBlank(String[] lines, int from) {
        for (int i = from; i < lines.length; i++) {
            if (!lines[i].isBlank()) {
                return false;
            }
        }
        return true;
    }

    private static int integer(String name, int line, String text, String what) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " line " + line + ": " + what + " '" + text + "' is not a whole number");
        }
    }
}
