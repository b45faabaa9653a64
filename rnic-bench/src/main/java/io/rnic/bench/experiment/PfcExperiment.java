package io.rnic.bench.experiment;

import io.rnic.transport.fabric.FabricConfig;
import io.rnic.transport.fabric.PortStats;
import io.rnic.transport.fabric.Topology;
import io.rnic.verbs.RcOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The three pathologies of PFC that motivate selective retransmission over lossy networks (IRN,
 * Mittal et al., SIGCOMM 2018; Hu et al., "Deadlocks in Datacenter Networks", HotNets 2016), each
 * a scenario on a simulated fabric with real RC QPs, its own figures and a verdict line:
 *
 * <ul>
 *   <li><b>head-of-line blocking and congestion spreading</b>: a victim flow shares an upstream
 *       link with an incast; the incast's PAUSE stops the shared link, and the victim with it,
 *       though its own destination is idle;</li>
 *   <li><b>deadlock</b>: flows around a ring of switches form a cyclic buffer dependency; once
 *       every queue of the cycle is paused by the next, none drains again;</li>
 *   <li><b>storm</b>: a host keeps sending PAUSE; the pauses spread through the fabric until the
 *       PFC watchdog stops honouring them.</li>
 * </ul>
 */
public final class PfcExperiment {
    static final long G100 = 100_000_000_000L;
    /** QPs with the IRN-style short local ACK timeout (4.096 µs × 2^6 = 262 µs), as the other experiments. */
    static final RcOptions QP = RcOptions.defaults().withRetry(6, 7, 7);

    private PfcExperiment() {
    }

    /** One scenario's outcome: its figures, for people, and whether its claim held. */
    public record Verdict(String scenario, List<String> figures, boolean holds, String line) {
        /** The figures and the verdict line, as printed. */
        public String text() {
            StringBuilder sb = new StringBuilder("== ").append(scenario).append('\n');
            figures.forEach(f -> sb.append("  ").append(f).append('\n'));
            return sb.append(line).append('\n').toString();
        }
    }

    // ---- (a) head-of-line blocking and congestion spreading ----

    /**
     * A dumbbell: four hosts on each switch, 100 Gb/s host links, a 400 Gb/s link between the
     * switches. Hosts 0, 1 and 3 (left) and 6 and 7 (right) each WRITE 4 MiB to host 4 (right), a
     * 5:1 incast; host 2 (left) WRITEs 4 MiB to host 5 (right), whose link is idle: the victim.
     * With PFC the right switch pauses the shared link for the incast, and the victim behind it.
     *
     * @return the victim's throughput with and without PFC; the claim holds when PFC cuts it below half
     */
    public static Verdict headOfLineBlocking(long seed) {
        double[] victim = new double[2];
        long[] pauses = new long[2];
        long[] drops = new long[2];
        for (int run = 0; run < 2; run++) {
            boolean pfc = run == 0;
            Topology t = Topology.dumbbell(4, G100, 4 * G100, 1_000);
            FabricConfig c = FabricConfig.DEFAULT.withBufferBytes(2 << 20).withPfc(pfc);
            try (FabricFlows f = new FabricFlows(seed, t, c, QP)) {
                for (int s : new int[] {0, 1, 3, 6, 7}) {
                    f.flow(s, 4, 4 << 20, 0);
                }
                int v = f.flow(2, 5, 4 << 20, 0);
                f.run(1_000_000_000L);
                FabricFlows.Flow vf = f.flows.get(v);
                victim[run] = vf.bytes * 8.0 / (vf.completionNanos - vf.startNanos);
                pauses[run] = f.fabric.portStats().stream().mapToLong(PortStats::pausesSent).sum();
                drops[run] = f.fabric.portStats().stream().mapToLong(PortStats::drops).sum();
            }
        }
        boolean holds = victim[0] < 0.5 * victim[1];
        List<String> figures = List.of(
                String.format(Locale.ROOT, "victim (host 2 -> host 5, an idle destination) with PFC:    %6.2f Gb/s (PAUSE frames %d, drops %d)",
                        victim[0], pauses[0], drops[0]),
                String.format(Locale.ROOT, "victim without PFC:                                       %6.2f Gb/s (PAUSE frames %d, drops %d)",
                        victim[1], pauses[1], drops[1]));
        return new Verdict("head-of-line blocking and congestion spreading", figures, holds, String.format(Locale.ROOT,
                "verdict: %s: with PFC the victim gets %.0f %% of its throughput without PFC (the claim: under 50 %%)",
                holds ? "HOLDS" : "DOES NOT HOLD", 100 * victim[0] / victim[1]));
    }

    // ---- (b) deadlock ----

    /**
     * A ring of five switches, one host on each, 100 Gb/s everywhere. Host i WRITEs to host i+2:
     * two hops clockwise, the one shortest path (three the other way), so every ring link carries
     * two flows and every switch's ingress from its predecessor waits on its egress to its
     * successor: a cyclic buffer dependency. Four QPs per host of 8 MiB each keep the buffers
     * (512 KiB per switch) full. The deadlock watchdog looks for a cycle of three or more switch
     * ports paused without a break for longer than {@code detectNanos} while holding frames.
     *
     * @return the cycle found and the flows' throughput after it formed; the claim holds when a
     *     cycle of at least 3 queues is found and nothing moves any more
     */
    public static Verdict deadlock(long seed, long detectNanos) {
        int n = 5;
        List<Topology.Link> links = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            links.add(new Topology.Link(i, n + i, G100, 1_000, 0));
        }
        for (int i = 0; i < n; i++) {
            links.add(new Topology.Link(n + i, n + (i + 1) % n, G100, 1_000, 0));
        }
        int[] switches = new int[n];
        for (int i = 0; i < n; i++) {
            switches[i] = n + i;
        }
        Topology ring = Topology.of(2 * n, switches, links);
        FabricConfig c = FabricConfig.DEFAULT.withBufferBytes(512 << 10).withEcn(false);
        try (FabricFlows f = new FabricFlows(seed, ring, c, QP)) {
            for (int i = 0; i < n; i++) {
                for (int q = 0; q < 4; q++) {
                    f.flow(i, (i + 2) % n, 8 << 20, 0);
                }
            }
            long step = Math.max(10_000, detectNanos / 2);
            long found = -1;
            List<List<int[]>> cycles = List.of();
            for (long t = step; t <= 20_000_000L && found < 0; t += step) {
                f.runFor(step);
                cycles = f.fabric.pausedCycles(detectNanos);
                if (cycles.stream().anyMatch(cy -> cy.size() >= 3)) {
                    found = f.net.scheduler().nanoTime();
                }
            }
            long[] at = f.deliveredBytes();
            f.runFor(2_000_000L);
            long[] later = f.deliveredBytes();
            long moved = 0;
            for (int i = 0; i < at.length; i++) {
                moved += later[i] - at[i];
            }
            List<int[]> cycle = cycles.stream().filter(cy -> cy.size() >= 3).findFirst().orElse(List.of());
            boolean holds = found >= 0 && moved == 0;
            List<String> figures = new ArrayList<>();
            figures.add(found >= 0 ? String.format(Locale.ROOT, "a cycle of %d paused queues found at %.3f ms: %s", cycle.size(),
                    found / 1e6, describe(cycle)) : "no cycle of paused queues formed in 20 ms");
            figures.add(String.format(Locale.ROOT, "bytes delivered in the 2 ms after: %d (throughput %.2f Gb/s)", moved,
                    moved * 8.0 / 2_000_000L));
            long ok = f.flows.stream().filter(fl -> fl.status == io.rnic.verbs.WcStatus.SUCCESS).count();
            long failed = f.flows.stream().filter(fl -> fl.done() && fl.status != io.rnic.verbs.WcStatus.SUCCESS).count();
            figures.add("PAUSE frames sent: " + f.fabric.portStats().stream().mapToLong(PortStats::pausesSent).sum()
                    + "; flows completed: " + ok + " of " + f.flows.size() + ", failed (their QPs ran out of retries): "
                    + failed);
            return new Verdict("PFC deadlock on a ring of five switches", figures, holds, String.format(Locale.ROOT,
                    "verdict: %s: %s", holds ? "HOLDS" : "DOES NOT HOLD", holds
                            ? "a cyclic buffer dependency of " + cycle.size() + " queues, all paused longer than "
                                    + detectNanos / 1_000 + " us, and the flows on it move nothing"
                            : "no deadlock was detected, or traffic still moved"));
        }
    }

    private static String describe(List<int[]> cycle) {
        StringBuilder sb = new StringBuilder();
        for (int[] e : cycle) {
            sb.append(sb.length() == 0 ? "" : " -> ").append("switch ").append(e[0]).append(" port ").append(e[1]);
        }
        return sb.toString();
    }

    // ---- (c) storm ----

    /**
     * A leaf-spine of two leaves and two spines, four hosts per leaf, 100 Gb/s. Every host WRITEs
     * 2 MiB to a host on the other leaf; host 0 also receives, and from 50 µs on it keeps sending
     * PAUSE. Run once with the PFC watchdog off and once on (detection 100 µs, recovery 1 ms:
     * scaled down from switches' 200 ms so the run stays short).
     *
     * @return how far the pauses spread, and what the flows that do not involve host 0 moved; the
     *     claim holds when the storm spreads beyond host 0's switch without the watchdog, and the
     *     watchdog gives the rest of the fabric its traffic back
     */
    public static Verdict storm(long seed) {
        Topology t = Topology.leafSpine(2, 2, 4, G100, G100, 1_000);
        int[] spread = new int[2];
        long[] others = new long[2];
        int[] othersDone = new int[2];
        int othersTotal = 0;
        for (int run = 0; run < 2; run++) {
            boolean watchdog = run == 1;
            FabricConfig c = FabricConfig.DEFAULT.withBufferBytes(1 << 20);
            if (watchdog) {
                c = c.withPfcWatchdog(100_000, 1_000_000);
            }
            try (FabricFlows f = new FabricFlows(seed, t, c, QP)) {
                for (int h = 0; h < 8; h++) {
                    f.flow(h, (h + 4) % 8, 2 << 20, 0);
                }
                f.fabric.pauseStorm(0, 50_000);
                f.runFor(3_000_000L);
                // Switch ports that spent time paused, other than the ports facing the storming host.
                for (PortStats p : f.fabric.portStats()) {
                    if (!p.host() && p.peer() != 0 && p.pausedNanos() > 0) {
                        spread[run]++;
                    }
                }
                long[] d = f.deliveredBytes();
                othersTotal = 0;
                for (int i = 0; i < f.flows.size(); i++) {
                    FabricFlows.Flow fl = f.flows.get(i);
                    if (fl.src != 0 && fl.dst != 0) {
                        others[run] += d[i];
                        othersTotal++;
                        if (fl.done() && fl.status == io.rnic.verbs.WcStatus.SUCCESS) {
                            othersDone[run]++;
                        }
                    }
                }
            }
        }
        boolean holds = spread[0] > 0 && othersDone[1] == othersTotal && othersDone[0] < othersTotal;
        List<String> figures = List.of(
                String.format(Locale.ROOT, "without the watchdog: %d switch ports paused beyond host 0's; flows not involving host 0 "
                        + "completed %d of %d (%.2f MB delivered)", spread[0], othersDone[0], othersTotal, others[0] / 1e6),
                String.format(Locale.ROOT, "with the watchdog:    %d switch ports paused beyond host 0's; flows not involving host 0 "
                        + "completed %d of %d (%.2f MB delivered)", spread[1], othersDone[1], othersTotal, others[1] / 1e6));
        return new Verdict("PFC storm from host 0", figures, holds, String.format(Locale.ROOT,
                "verdict: %s: the storm spread to %d ports without the watchdog and stalled the rest of the fabric; with it, "
                        + "every other flow completed", holds ? "HOLDS" : "DOES NOT HOLD", spread[0]));
    }
}
