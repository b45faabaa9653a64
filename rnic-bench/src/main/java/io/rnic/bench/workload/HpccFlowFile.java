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
            flows.add(new FlowSpec(flows.size(), src, dst, pg, size, startNanos, dport == 200));
        }
        return new Trace(List.copyOf(flows), declared, "");
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
