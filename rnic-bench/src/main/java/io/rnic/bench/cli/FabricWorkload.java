package io.rnic.bench.cli;

import io.rnic.bench.workload.FlowSizeCdf;
import io.rnic.bench.workload.FlowSpec;
import io.rnic.bench.workload.HpccFlowFile;
import io.rnic.bench.workload.Workloads;
import io.rnic.transport.fabric.Topology;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The flows of {@code rnic experiment fabric}, from its options.
 *
 * @param flows         in arrival order
 * @param arrivalsNanos the span in which they arrive
 * @param description   what they are, for the run's header
 * @param note          what was tolerated reading a file, or empty
 */
record FabricWorkload(List<FlowSpec> flows, long arrivalsNanos, String description, String note) {
    /** Poisson arrivals at {@code load} from every host of {@code t}, and the incast overlay if any. */
    static FabricWorkload poisson(Topology t, FlowSizeCdf sizes, double load, long durationNanos,
            Workloads.IncastOverlay overlay, long seed) {
        int[] hosts = t.hosts();
        long[] rates = new long[hosts.length];
        for (int i = 0; i < hosts.length; i++) {
            rates[i] = t.links().get(t.linkOf(hosts[i], 0)).bitsPerSecond();
        }
        List<FlowSpec> flows = Workloads.poisson(hosts, rates, load, durationNanos, sizes, seed);
        String what = String.format(Locale.ROOT, "%s (mean %.0f B) at load %s for %s", sizes.name(), sizes.mean(),
                trim(load), duration(durationNanos));
        if (overlay != null) {
            flows = Workloads.merge(flows, Workloads.incast(hosts, overlay, durationNanos, seed));
            what += String.format(Locale.ROOT, " + incast %d x %d B every %s", overlay.senders(), overlay.bytes(),
                    duration(overlay.periodNanos()));
        }
        return new FabricWorkload(flows, durationNanos, what + " (" + flows.size() + " flows)", "");
    }

    /** The flows of an HPCC flow file. */
    static FabricWorkload replay(Path file, Topology t) {
        HpccFlowFile.Trace trace = HpccFlowFile.read(file, n -> n >= 0 && n < t.nodeCount() && t.isHost(n));
        List<FlowSpec> flows = trace.flows();
        long span = flows.isEmpty() ? 0 : flows.get(flows.size() - 1).startNanos();
        return new FabricWorkload(flows, span, "flows of " + file.getFileName() + " (" + flows.size() + " flows over "
                + duration(span) + ")", trace.note());
    }

    /**
     * {@code N:SIZE:PERIOD}, e.g. {@code 16:64K:1ms}.
     *
     * @throws UsageException if it is not three valid parts
     */
    static Workloads.IncastOverlay parseIncast(String text) throws UsageException {
        String[] p = text.split(":", -1);
        if (p.length != 3) {
            throw new UsageException("--incast '" + text + "' is not N:SIZE:PERIOD (e.g. 16:64K:1ms)");
        }
        try {
            int n = Integer.parseInt(p[0].strip());
            long size = new FabricExperimentCommands.Bytes().convert(p[1]);
            long period = new FabricExperimentCommands.Duration().convert(p[2]);
            return new Workloads.IncastOverlay(n, size, period);
        } catch (NumberFormatException e) {
            throw new UsageException("--incast '" + text + "': N '" + p[0] + "' is not a whole number");
        } catch (picocli.CommandLine.TypeConversionException | IllegalArgumentException e) {
            throw new UsageException("--incast '" + text + "': " + e.getMessage());
        }
    }

    /** The JVM's limit on direct memory: -XX:MaxDirectMemorySize, or the heap's maximum when that is not set. */
    static long directMemoryLimit() {
        try {
            var bean = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            long v = Long.parseLong(bean.getVMOption("MaxDirectMemorySize").getValue());
            if (v > 0) {
                return v;
            }
        } catch (RuntimeException e) {
            // not HotSpot: the heap's maximum, HotSpot's own default
        }
        return Runtime.getRuntime().maxMemory();
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    static String duration(long nanos) {
        if (nanos % 1_000_000_000L == 0 && nanos > 0) {
            return nanos / 1_000_000_000L + " s";
        }
        if (nanos % 1_000_000 == 0 && nanos > 0) {
            return nanos / 1_000_000 + " ms";
        }
        if (nanos % 1_000 == 0 && nanos > 0) {
            return nanos / 1_000 + " us";
        }
        return nanos + " ns";
    }
}
