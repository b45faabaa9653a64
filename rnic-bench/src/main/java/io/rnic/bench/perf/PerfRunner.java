package io.rnic.bench.perf;

import io.rnic.bench.console.Progress;
import io.rnic.core.wire.Wire;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.udp.HcaAgent;
import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.ConnectionInfo;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

/**
 * Runs a perf test: both sides in this process over UDP on loopback (each on its own thread,
 * as two perftest processes would be), both on the simulated network (one thread, stepping the
 * network between the sides' polls), or one side here and the other in another process
 * ({@link PerfExchange} over TCP). The client's table goes to {@code out}; so does the server's
 * when it runs alone, as perftest prints a table on both sides.
 */
public final class PerfRunner {
    private static final long SETUP_TIMEOUT_SECONDS = 60;
    private final PerfConfig config;
    private final PrintStream out;
    private final PrintStream err;

    public PerfRunner(PerfConfig config, PrintStream out, PrintStream err) {
        this.config = config;
        this.out = out;
        this.err = err;
    }

    /** Runs the test; returns the exit status (0 success). */
    public int run() throws Exception {
        if (config.simWire()) {
            return runSimulated();
        }
        if (config.loopback()) {
            return runLoopback();
        }
        return new PerfExchange(config, out, err, this).run();
    }

    /** Opens the UDP wire of one side on the calling thread, with the agent the options ask for. */
    Wire udpWire(String ip, int port) {
        UdpWire.Builder b = UdpWire.bind(ip).port(port).gso(config.gso());
        switch (config.threading()) {
            case DEDICATED -> b.idle(config.idle());
            case SHARED -> b.agent(HcaAgent.shared(config.idle()));
            case INVOKER -> b.ownedAgent(HcaAgent.invoker(config.idle()));
        }
        return b.open();
    }

    private int runLoopback() throws Exception {
        CompletableFuture<List<ConnectionInfo>> serverInfo = new CompletableFuture<>();
        CompletableFuture<List<ConnectionInfo>> clientInfo = new CompletableFuture<>();
        CyclicBarrier barrier = new CyclicBarrier(2);
        Round round = new Round();
        CompletableFuture<Void> serverDone = new CompletableFuture<>();
        Thread server = new Thread(() -> {
            try (PerfSide side = new PerfSide(config, udpWire(config.serverIp(), config.udpPort()))) {
                List<ConnectionInfo> mine = side.localInfo(0x10000);
                serverInfo.complete(mine);
                side.connect(mine, clientInfo.get(SETUP_TIMEOUT_SECONDS, TimeUnit.SECONDS), config.udpPort());
                try {
                    serveRounds(side, () -> await(barrier), round);
                } finally {
                    printCounters("server", side);
                }
                serverDone.complete(null);
            } catch (Throwable t) {
                serverInfo.completeExceptionally(t);
                serverDone.completeExceptionally(t);
                barrier.reset();
            }
        }, "perf-server");
        server.setDaemon(true);
        server.start();
        try (PerfSide side = new PerfSide(config, udpWire(config.clientIp(), config.udpPort()))) {
            List<ConnectionInfo> mine = side.localInfo(0x20000);
            clientInfo.complete(mine);
            side.connect(mine, serverInfo.get(SETUP_TIMEOUT_SECONDS, TimeUnit.SECONDS), config.udpPort());
            try {
                runRounds(side, () -> await(barrier), round, null);
            } finally {
                printCounters("client", side);
            }
        }
        serverDone.get(SETUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        return 0;
    }

    /** Whether the client has finished the current size (the server serves until it has). */
    static final class Round {
        volatile boolean clientFinished;
        /**
         * The client's bandwidth row of the size just measured, as text ("size messages nanos
         * peak packets/s"), for a server in another process to print; null otherwise.
         */
        volatile String row;
        /** Packets both sides exchanged while sizes were measured (the warm-up excluded), and for how long. */
        long measuredPackets;
        long measuredNanos;
    }

    /**
     * The client's loop over the sizes: a barrier, the measurement, the row, a barrier. With
     * {@code peer} set (the simulated network), the server is stepped on this thread too.
     */
    /** Messages in one warm-up round of a -n run on the simulated network. */
    private static final long WARM_UP_ROUND = 100_000;

    void runRounds(PerfSide side, Runnable sync, Round round, PerfSide peer) {
        runRounds(side, sync, round, peer, config.warmupSecs() > 0);
    }

    /**
     * As above; {@code warmUp} false skips the warm-up, for a peer that counts the messages it
     * receives (perftest's send_bw server).
     */
    void runRounds(PerfSide side, Runnable sync, Round round, PerfSide peer, boolean warmUp) {
        PerfReport report = new PerfReport(out, config.test().command(), config.reportGbits(), config.json());
        try (Progress progress = Progress.on(err)) {
            runRounds(side, sync, round, peer, report, progress, warmUp);
        }
        report.end();
    }

    private void runRounds(PerfSide side, Runnable sync, Round round, PerfSide peer, PerfReport report, Progress progress,
                           boolean warmUp) {
        String name = config.test().command();
        if (config.test().op() == PerfTest.Op.SEND) {
            side.postReceives(config.maxSize());
        }
        if (warmUp) {
            sync.run();
            int size = config.sizes().get(0);
            if (config.test().latency()) {
                drive(side, side.new LatencyClient(size, config.warmupSecs()), peer,
                        peer == null ? null : peer.new LatencyServer(size, true), progress,
                        name + " warm-up");
            } else if (peer != null && config.durationSecs() == 0) {
                // On the simulated network a -n round is timed by its message count: the warm-up
                // runs rounds of that kind, so the JIT compiles the branches the measured round
                // takes. After a timed warm-up the measured round began with a deoptimization
                // and ran part of its course in the JIT's first-tier code.
                long until = System.nanoTime() + config.warmupSecs() * 1_000_000_000L;
                do {
                    PerfSide.BandwidthClient c = side.new BandwidthClient(size, 0, Math.min(config.iterations(), WARM_UP_ROUND));
                    drive(side, c, peer, peer.new BandwidthServer(size), progress, name + " warm-up");
                } while (System.nanoTime() - until < 0);
            } else {
                PerfSide.BandwidthClient c = side.new BandwidthClient(size, config.warmupSecs());
                drive(side, c, peer, peer == null ? null : peer.new BandwidthServer(size), progress, name + " warm-up");
            }
            round.clientFinished = true;
            sync.run();
            round.clientFinished = false;
        }
        for (int size : config.sizes()) {
            sync.run();
            long packets0 = packets(side);
            long t0 = System.nanoTime();
            if (config.test().latency()) {
                PerfSide.LatencyClient c = side.new LatencyClient(size);
                PerfSide.LatencyServer s = peer == null ? null : peer.new LatencyServer(size);
                drive(side, c, peer, s, progress, name + " " + size + " B");
                if (s != null) {
                    s.stop(); // a duration run's client ends on time; its in-process server with it
                }
                reportLatency(report, size, c);
            } else {
                PerfSide.BandwidthClient c = side.new BandwidthClient(size);
                drive(side, c, peer, peer == null ? null : peer.new BandwidthServer(size), progress, name + " " + size + " B");
                long nanos = Math.max(1, c.end - c.start);
                double peak = c.bestWindowNanos == Long.MAX_VALUE ? 0
                        : c.windowMessages() * (double) size / (c.bestWindowNanos / 1e9);
                double pps = (packets(side) - packets0) / (nanos / 1e9);
                report.bandwidth(size, c.messages(), nanos, peak, pps);
                round.row = size + " " + c.messages() + " " + nanos + " " + peak + " " + pps;
            }
            round.measuredNanos += System.nanoTime() - t0;
            round.measuredPackets += packets(side) - packets0;
            round.clientFinished = true;
            sync.run();
            round.clientFinished = false;
            round.row = null;
        }
    }

    /**
     * perftest's write_lat and send_lat between two processes: both sides ping-pong every size
     * (write_lat's server first, send_lat's client first, as perftest's do), with no warm-up (perftest's marks count from the first message), and each
     * prints its own table; {@code beforeSize} is the exchange before each size.
     */
    void pingPongRounds(PerfSide side, boolean client, Runnable beforeSize) {
        PerfReport report = new PerfReport(out, config.test().command(), config.reportGbits(), config.json());
        String name = config.test().command();
        try (Progress progress = Progress.on(err)) {
            if (config.test().op() == PerfTest.Op.SEND) {
                side.postReceives(config.maxSize());
            }
            // Who starts: write_lat's server writes first and its client waits (run_iter_lat_write
            // skips the server's first wait); send_lat's client sends first (run_iter_lat_send).
            boolean starts = config.test().op() == PerfTest.Op.WRITE ? !client : client;
            for (int size : config.sizes()) {
                beforeSize.run();
                if (starts) {
                    PerfSide.LatencyClient c = side.new LatencyClient(size);
                    drive(side, c, null, null, progress, name + " " + size + " B");
                    reportLatency(report, size, c);
                } else {
                    PerfSide.LatencyServer s = side.new LatencyServer(size);
                    drive(side, s, null, null, progress, name + " " + size + " B");
                    if (s.clock != null) {
                        report.latencyDuration(size, s.sampled, s.clock.sampleNanos(), rttFactor());
                    } else {
                        report.latency(size, s.samples, config.iterations());
                    }
                }
            }
        }
        report.end();
    }

    /** The client's latency row: perftest's table, or with {@code -D} its duration row. */
    private void reportLatency(PerfReport report, int size, PerfSide.LatencyClient c) {
        if (c.clock != null) {
            report.latencyDuration(size, c.sampled, c.clock.sampleNanos(), rttFactor());
        } else {
            report.latency(size, c.samples);
        }
    }

    /** perftest's {@code rtt_factor}: a ping-pong's round trip is two latencies, a READ's or atomic's one. */
    private int rttFactor() {
        return config.test().pingPong() ? 2 : 1;
    }

    /** The server's loop over the sizes, stepping until the client says it has finished each. */
    void serveRounds(PerfSide side, Runnable sync, Round round) {
        if (config.test().op() == PerfTest.Op.SEND) {
            side.postReceives(config.maxSize());
        }
        java.util.List<Integer> rounds = new java.util.ArrayList<>(config.sizes());
        if (config.warmupSecs() > 0) {
            rounds.add(0, config.sizes().get(0));
        }
        for (int r = 0; r < rounds.size(); r++) {
            int size = rounds.get(r);
            boolean warmup = r == 0 && config.warmupSecs() > 0;
            PerfSide.Task t = config.test().latency() ? side.new LatencyServer(size, warmup) : side.new BandwidthServer(size);
            sync.run();
            while (!round.clientFinished) {
                if (t.step() == 0) {
                    side.idle();
                }
            }
            sync.run();
        }
    }

    private static void drive(PerfSide side, PerfSide.Task client, PerfSide peer, PerfSide.Task server, Progress progress,
            String label) {
        progress.start(label, client.progressTotal(), client.progressUnit());
        int steps = 0;
        // On the simulated network both sides of a QP test have work only when a completion
        // arrives (a window to refill, receives to repost): until one does, only the network
        // runs, without the two steps between its events. Credit channels offer on credits
        // that arrive without completions, so they step after every event.
        boolean completionsOnly = server != null && side.channels.isEmpty() && peer.channels.isEmpty();
        while (!client.done()) {
            int work = client.step();
            if (server != null) {
                work += server.step();
                if (work == 0) {
                    io.rnic.transport.sim.SimScheduler s = peer.simulator().scheduler();
                    do {
                        if (!s.runNext()) {
                            throw new IllegalStateException("the simulated network went idle before the test finished");
                        }
                    } while (completionsOnly && side.cq.size() == 0 && peer.cq.size() == 0);
                }
            } else if (work == 0) {
                side.idle();
            }
            if ((++steps & 1023) == 0 && progress.enabled()) {
                progress.update(client.progressDone());
            }
        }
        progress.close(); // the report's row follows on the terminal
    }

    /** With {@code --counters}: the side's HCA and wire counters, on stderr (stdout stays perftest's tables). */
    void printCounters(String who, PerfSide side) {
        if (config.counters()) {
            synchronized (err) {
                err.println(who + " HCA " + side.device.counters().nonZero());
                err.println(who + " wire " + side.device.wire().counters());
                for (int q = 0; q < side.channels.size(); q++) {
                    err.println(who + " channel " + q + " " + side.channels.get(q).stats());
                }
            }
        }
    }

    private static long packets(PerfSide side) {
        return side.device.counters().get(io.rnic.verbs.Counter.SENT_PKTS)
                + side.device.counters().get(io.rnic.verbs.Counter.RCVD_PKTS);
    }

    private int runSimulated() {
        try (SimNetwork net = new SimNetwork(config.seed())) {
            PerfSide server = new PerfSide(config, net.attach(new InetSocketAddress(config.serverIp(), config.udpPort())));
            PerfSide client = new PerfSide(config, net.attach(new InetSocketAddress(config.clientIp(), config.udpPort())));
            server.simulator(net);
            client.simulator(net);
            try (server; client) {
                List<ConnectionInfo> si = server.localInfo(0x10000);
                List<ConnectionInfo> ci = client.localInfo(0x20000);
                server.connect(si, ci, config.udpPort());
                client.connect(ci, si, config.udpPort());
                if (config.test().op() == PerfTest.Op.SEND) {
                    server.postReceives(config.maxSize());
                }
                Round round = new Round();
                try {
                    runRounds(client, () -> { }, round, server);
                } finally {
                    printCounters("client", client);
                    printCounters("server", server);
                }
                // The warm-up is left out: it includes the JIT's compilation of the hot path.
                double secs = Math.max(1, round.measuredNanos) / 1e9;
                err.printf(java.util.Locale.ROOT, "simulated network: %,d packets in %.3f s of wall time = %.2f M packets/s"
                        + " (measured sizes only; %.3f ms of virtual time in all)%n", round.measuredPackets, secs,
                        round.measuredPackets / secs / 1e6, net.scheduler().nanoTime() / 1e6);
            }
        }
        return 0;
    }

    private static void await(CyclicBarrier b) {
        try {
            b.await(SETUP_TIMEOUT_SECONDS * 10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the other side did not reach the barrier: " + e, e);
        }
    }
}
