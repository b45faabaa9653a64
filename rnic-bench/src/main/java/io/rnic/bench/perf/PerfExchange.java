package io.rnic.bench.perf;

import io.rnic.verbs.ConnectionInfo;
import io.rnic.verbs.Gid;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The out-of-band exchange of a perf run between two processes, in perftest's own format
 * (reference §11.5, non-rdma_cm mode): a 16-byte version string, the system data (cycle buffer
 * and cache line size, network order), the MTU as a 2-byte decimal string, then one 108-byte key
 * record per QP ({@code LID:out_reads:QPN:PSN:RKEY:VA:} then the 16 GID bytes and the SRQ
 * number); the client always writes first. Key records are exchanged again as barriers before
 * and after each size, as perftest's handshakes are.
 */
final class PerfExchange {
    /** The version this side announces: perftest 4.5's format family (system data and 2-byte MTU). */
    static final String VERSION = "6.10";
    static final int RECORD = 108;
    /** How a client's end-of-size record that carries its bandwidth row begins. */
    static final String REPORT = "RPT ";
    private static final int CONNECT_TIMEOUT_MILLIS = 60_000;
    private final PerfConfig config;
    private final PrintStream out;
    private final PrintStream err;
    private final PerfRunner runner;

    PerfExchange(PerfConfig config, PrintStream out, PrintStream err, PerfRunner runner) {
        this.config = config;
        this.out = out;
        this.err = err;
        this.runner = runner;
    }

    int run() throws Exception {
        boolean client = config.server() != null;
        String ip = client ? config.clientIp() : config.serverIp();
        if (config.rdmaCm()) {
            try (PerfSide side = new PerfSide(config, runner.udpWire(ip, config.udpPort()));
                 CmExchange cm = client ? CmExchange.client(side, config) : CmExchange.server(side, config)) {
                return exchange(client, side, new DataInputStream(cm.in()), cm.out(), cm);
            }
        }
        try (Socket socket = client ? dial() : accept();
             PerfSide side = new PerfSide(config, runner.udpWire(ip, config.udpPort()))) {
            socket.setTcpNoDelay(true);
            return exchange(client, side, new DataInputStream(socket.getInputStream()), socket.getOutputStream(), null);
        }
    }

    /** The exchange and the run, over TCP or (with {@code -R}, {@code cm} not null) an rdma_cm connection. */
    private int exchange(boolean client, PerfSide side, DataInputStream in, OutputStream o, CmExchange cm)
            throws Exception {
        swapFixed(client, in, o, pad(VERSION, 16), 16);
        // check_sys_data: the cycle buffer and the cache line size, each its own 4-byte exchange
        // (a perftest client writes one and waits for the answer before writing the other).
        int peerCycle = java.nio.ByteBuffer.wrap(swapFixed(client, in, o,
                java.nio.ByteBuffer.allocate(4).putInt(PerfSide.CYCLE_BUFFER).array(), 4)).getInt();
        swapFixed(client, in, o, java.nio.ByteBuffer.allocate(4).putInt(64).array(), 4);
        if (peerCycle > PerfSide.CYCLE_BUFFER) {
            err.printf("rnic perf: the peer's cycle buffer is %d bytes; this side offers %d%n", peerCycle,
                    PerfSide.CYCLE_BUFFER);
            return 1;
        }
        byte[] mtu = swapFixed(client, in, o, pad(Integer.toString(config.mtu().value()), 2), 2);
        int peerMtu = Integer.parseInt(new String(mtu, StandardCharsets.US_ASCII).trim().replace("\0", ""));
        // perftest's check_mtu: both sides take the smaller of the two (a kernel peer offers its port's active MTU).
        io.rnic.verbs.PathMtu pathMtu;
        try {
            pathMtu = io.rnic.verbs.PathMtu.ofValue(Math.min(peerMtu, config.mtu().value()));
        } catch (IllegalArgumentException e) {
            err.printf("rnic perf: the peer sent MTU code %d, which is not 1..5%n", peerMtu);
            return 1;
        }
        if (cm != null) {
            cm.connectTestQps(in, o);
        }
        List<ConnectionInfo> mine = side.localInfo(client ? 0x20000 : 0x10000);
        if (config.test().latency() && config.test().op() != PerfTest.Op.SEND) {
            // write_lat, read_lat and atomic_lat shake hands before the key records (send_lat does not)
            swapFixed(client, in, o, format(mine.get(0), side), RECORD);
        }
        List<ConnectionInfo> peers = new ArrayList<>();
        for (ConnectionInfo ci : mine) {
            peers.add(parse(swapFixed(client, in, o, format(ci, side), RECORD)));
        }
        if (cm != null) {
            // the connection manager connected the QPs
            side.adoptPeers(peers, config.udpPort(), io.rnic.verbs.cm.CmId.UDP_QKEY);
        } else {
            side.connect(mine, peers, config.udpPort(), pathMtu);
        }
        if (halfDuplexBandwidth()) {
            return perftestHalfDuplex(client, side, in, o, mine);
        }
        if (perftestSend()) {
            return perftestSend(client, side, in, o, mine);
        }
        if (oneSidedLatency()) {
            return perftestOneSidedLatency(client, side, in, o, mine);
        }
        if (pingPongLatency()) {
            return perftestPingPong(client, side, in, o, mine);
        }
        byte[] barrier = format(mine.get(0), side);
        PerfRunner.Round round = new PerfRunner.Round();
        try {
            if (client) {
                boolean[] start = {true};
                runner.runRounds(side, () -> {
                    // The barrier that ends a size carries the client's bandwidth row, so that
                    // the server prints the table too, as perftest's does.
                    String row = round.row;
                    swap(true, in, o, !start[0] && row != null ? pad(REPORT + row, RECORD) : barrier);
                    start[0] = !start[0];
                }, round, null);
            } else {
                serve(side, in, o, barrier, round);
            }
        } finally {
            runner.printCounters(client ? "client" : "server", side);
        }
        return 0;
    }

    /**
     * perftest's write_bw, read_bw and atomic_bw (and their rnic twins): only the client moves
     * data, and the server waits for it to finish every size.
     */
    private boolean halfDuplexBandwidth() {
        PerfTest.Op op = config.test().op();
        return !config.test().latency() && (op == PerfTest.Op.WRITE || op == PerfTest.Op.READ || op == PerfTest.Op.ATOMIC);
    }

    /**
     * The rest of a half-duplex bandwidth test exactly as perftest's {@code write_bw.c},
     * {@code read_bw.c} and {@code atomic_bw.c} run it over the Ethernet exchange, so either side
     * may be perftest: the key records once more per QP, one handshake after RTR; then the client
     * runs every size while the server waits; then a handshake, {@code xchg_bw_reports} (size,
     * iterations, peak and average bandwidth and message rate, each 8 bytes in network order) and
     * the closing handshake. The server prints the client's last row, as perftest's does.
     */
    private int perftestHalfDuplex(boolean client, PerfSide side, DataInputStream in, OutputStream o,
                                   List<ConnectionInfo> mine) throws IOException {
        for (ConnectionInfo ci : mine) {
            swapFixed(client, in, o, format(ci, side), RECORD);
        }
        byte[] barrier = format(mine.get(0), side);
        swapFixed(client, in, o, barrier, RECORD);
        PerfReport report = new PerfReport(out, config.test().command(), config.reportGbits(), config.json());
        double[] mineReport = new double[5];
        double[] peerReport = new double[5];
        try {
            if (client) {
                PerfRunner.Round round = new PerfRunner.Round();
                runner.runRounds(side, () -> {
                    String row = round.row; // "size messages nanos peakBytesPerSecond packetsPerSecond"
                    if (row != null) {
                        String[] f = row.split(" ");
                        long size = Long.parseLong(f[0]);
                        long messages = Long.parseLong(f[1]);
                        double secs = Long.parseLong(f[2]) / 1e9;
                        double avg = report.inUnit(messages * (double) size / secs);
                        mineReport[0] = size;
                        mineReport[1] = messages;
                        mineReport[2] = Math.max(avg, report.inUnit(Double.parseDouble(f[3])));
                        mineReport[3] = avg;
                        mineReport[4] = messages / secs / 1e6;
                    }
                }, round, null);
                endOfRun(true, in, o, barrier, mineReport, peerReport);
            } else {
                report.header();
                serveUntil(side, () -> endOfRun(false, in, o, barrier, mineReport, peerReport));
                report.reported((long) peerReport[0], (long) peerReport[1], peerReport[2], peerReport[3], peerReport[4]);
                report.end();
            }
        } finally {
            runner.printCounters(client ? "client" : "server", side);
        }
        return 0;
    }

    /**
     * perftest's send_bw over RC, UC or UD with a fixed iteration count and one size: the server
     * counts what it receives, so this side runs it as perftest does (see {@link #perftestSend(boolean,
     * PerfSide, DataInputStream, OutputStream, List)}; perftest's UD flow is RC's, with address
     * handles; a duration run is the same, the server receiving until the closing handshake).
     * Credit-channel and all-sizes runs keep rnic's own exchange.
     */
    private boolean perftestSend() {
        return config.test() == PerfTest.SEND_BW && !config.creditChannel() && config.sizes().size() == 1;
    }

    /**
     * The rest of a send_bw run as perftest's {@code send_bw.c} runs it over the Ethernet exchange:
     * a handshake after RTR, the key records once more per QP, a handshake once the server's
     * receives are posted; then the client sends its iterations while the server receives them
     * all, each printing its own row (the server's measured from its first receive to its last);
     * then the closing handshake.
     */
    private int perftestSend(boolean client, PerfSide side, DataInputStream in, OutputStream o, List<ConnectionInfo> mine)
            throws IOException {
        byte[] barrier = format(mine.get(0), side);
        swapFixed(client, in, o, barrier, RECORD);
        for (ConnectionInfo ci : mine) {
            swapFixed(client, in, o, format(ci, side), RECORD);
        }
        int size = config.sizes().get(0);
        PerfSide.BandwidthServer serve = client ? null : side.new BandwidthServer(size);
        if (!client) {
            side.postReceives(config.maxSize());
        }
        swapFixed(client, in, o, barrier, RECORD);
        try {
            if (client) {
                runner.runRounds(side, () -> { }, new PerfRunner.Round(), null, false);
            } else {
                PerfReport report = new PerfReport(out, config.test().command(), config.reportGbits(), config.json());
                report.header();
                boolean duration = config.durationSecs() > 0;
                long expected = (long) config.iterations() * config.qps();
                if (duration) {
                    // perftest's client ends a duration run with the closing handshake: receive until it comes.
                    serveUntil(serve, side, () -> swapFixed(false, in, o, barrier, RECORD));
                } else {
                    while (serve.received < expected) {
                        if (serve.step() == 0) {
                            side.idle();
                        }
                    }
                }
                long nanos = Math.max(1, serve.lastNanos - serve.firstNanos);
                double bytesPerSecond = serve.received * (double) size / (nanos / 1e9);
                report.reported(size, duration ? serve.received : config.iterations(), report.inUnit(bytesPerSecond),
                        report.inUnit(bytesPerSecond), serve.received / (nanos / 1e9) / 1e6);
                report.end();
                if (duration) {
                    return 0; // the closing handshake has been made
                }
            }
            swapFixed(client, in, o, barrier, RECORD);
        } finally {
            runner.printCounters(client ? "client" : "server", side);
        }
        return 0;
    }

    /** perftest's read_lat and atomic_lat: only the client issues requests. */
    private boolean oneSidedLatency() {
        PerfTest.Op op = config.test().op();
        return config.test().latency() && (op == PerfTest.Op.READ || op == PerfTest.Op.ATOMIC);
    }

    /**
     * The rest of read_lat or atomic_lat as perftest's {@code read_lat.c} and {@code atomic_lat.c}
     * run it: the key records once more per QP and a handshake after RTR; the server then only
     * waits for the closing handshake while the client times its requests, prints its table and
     * closes.
     */
    private int perftestOneSidedLatency(boolean client, PerfSide side, DataInputStream in, OutputStream o,
                                        List<ConnectionInfo> mine) throws IOException {
        byte[] barrier = recordsAgainThenHandshake(client, side, in, o, mine);
        try {
            if (client) {
                runner.runRounds(side, () -> { }, new PerfRunner.Round(), null);
                swapFixed(true, in, o, barrier, RECORD);
            } else {
                serveUntil(side, () -> swapFixed(false, in, o, barrier, RECORD));
            }
        } finally {
            runner.printCounters(client ? "client" : "server", side);
        }
        return 0;
    }

    /** perftest's write_lat and send_lat: both sides ping-pong. */
    private boolean pingPongLatency() {
        PerfTest.Op op = config.test().op();
        return config.test().latency() && (op == PerfTest.Op.WRITE || op == PerfTest.Op.SEND) && !config.creditChannel();
    }

    /**
     * The key records once more per QP and the handshake after RTR, as every perftest latency
     * program exchanges them; returns the handshake record for the exchanges that follow.
     */
    private byte[] recordsAgainThenHandshake(boolean client, PerfSide side, DataInputStream in, OutputStream o,
                                             List<ConnectionInfo> mine) throws IOException {
        for (ConnectionInfo ci : mine) {
            swapFixed(client, in, o, format(ci, side), RECORD);
        }
        byte[] barrier = format(mine.get(0), side);
        swapFixed(client, in, o, barrier, RECORD);
        return barrier;
    }

    /**
     * The rest of write_lat or send_lat as perftest's {@code write_lat.c} and {@code send_lat.c}
     * run it: the key records once more per QP and a handshake after RTR; then, for every size,
     * both sides ping-pong (send_lat first posts its receives and shakes hands, so no SEND finds
     * the peer unready) and print their own tables; send_lat ends with a closing handshake,
     * write_lat with none.
     */
    private int perftestPingPong(boolean client, PerfSide side, DataInputStream in, OutputStream o,
                                 List<ConnectionInfo> mine) throws IOException {
        byte[] barrier = recordsAgainThenHandshake(client, side, in, o, mine);
        boolean send = config.test().op() == PerfTest.Op.SEND;
        try {
            runner.pingPongRounds(side, client, () -> {
                if (send) {
                    try {
                        swapFixed(client, in, o, barrier, RECORD);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            });
            if (send) {
                swapFixed(client, in, o, barrier, RECORD);
            }
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        } finally {
            runner.printCounters(client ? "client" : "server", side);
        }
        return 0;
    }

    /** An exchange step that may block on the socket. */
    @FunctionalInterface
    private interface Step {
        void run() throws IOException;
    }

    /** Runs {@code step} on another thread while this one keeps the server's side going, until it is done. */
    private static void serveUntil(PerfSide side, Step step) throws IOException {
        serveUntil(side.new BandwidthServer(8), side, step);
    }

    /** As {@link #serveUntil(PerfSide, Step)}, stepping {@code serve}. */
    private static void serveUntil(PerfSide.Task serve, PerfSide side, Step step) throws IOException {
        boolean[] done = {false};
        IOException[] failed = {null};
        Thread t = new Thread(() -> {
            try {
                step.run();
            } catch (IOException | RuntimeException e) {
                failed[0] = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
            }
            synchronized (done) {
                done[0] = true;
            }
        }, "perf-exchange");
        t.setDaemon(true);
        t.start();
        while (true) {
            synchronized (done) {
                if (done[0]) {
                    break;
                }
            }
            if (serve.step() == 0) {
                side.idle();
            }
        }
        if (failed[0] != null) {
            throw failed[0];
        }
    }

    /** The handshake, {@code xchg_bw_reports} and the closing handshake that end a perftest run. */
    private static void endOfRun(boolean client, DataInputStream in, OutputStream o, byte[] barrier, double[] mine,
                                 double[] peer) throws IOException {
        swapFixed(client, in, o, barrier, RECORD);
        for (int i = 0; i < 5; i++) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8); // network order, as perftest's hton_64/hton_double
            if (i < 2) {
                b.putLong((long) mine[i]);
            } else {
                b.putDouble(mine[i]);
            }
            java.nio.ByteBuffer r = java.nio.ByteBuffer.wrap(swapFixed(client, in, o, b.array(), 8));
            peer[i] = i < 2 ? r.getLong() : r.getDouble();
        }
        swapFixed(client, in, o, barrier, RECORD);
    }

    /** The server's rounds: the handshake that ends a size is read on another thread while this one serves. */
    private void serve(PerfSide side, DataInputStream in, OutputStream o, byte[] barrier, PerfRunner.Round round) {
        boolean[] start = {true};
        PerfReport report = new PerfReport(out, config.test().command(), config.reportGbits(), config.json());
        runner.serveRounds(side, () -> {
            if (start[0]) {
                swap(false, in, o, barrier);
                Thread reader = new Thread(() -> {
                    printRow(readFully(in, RECORD), report);
                    round.clientFinished = true;
                }, "perf-barrier");
                reader.setDaemon(true);
                reader.start();
            } else {
                write(o, barrier);
                round.clientFinished = false;
            }
            start[0] = !start[0];
        }, round);
        report.end();
    }

    /** Prints the bandwidth row a client's end-of-size record carries, if it carries one. */
    private static void printRow(byte[] record, PerfReport report) {
        String s = new String(record, StandardCharsets.US_ASCII);
        if (!s.startsWith(REPORT)) {
            return;
        }
        String[] f = s.substring(REPORT.length(), s.indexOf('\0') < 0 ? s.length() : s.indexOf('\0')).split(" ");
        report.bandwidth(Integer.parseInt(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Double.parseDouble(f[3]),
                Double.parseDouble(f[4]));
    }

    /** Connects to the server, trying again while it is not listening yet (as perftest's client does). */
    private Socket dial() throws IOException {
        long deadline = System.nanoTime() + CONNECT_TIMEOUT_MILLIS * 1_000_000L;
        for (;;) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(config.server(), config.tcpPort()), CONNECT_TIMEOUT_MILLIS);
                return s;
            } catch (java.net.ConnectException e) {
                s.close();
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while connecting to " + config.server(), ie);
                }
            }
        }
    }

    private Socket accept() throws IOException {
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(config.tcpPort()));
            ss.setSoTimeout(0);
            return ss.accept();
        }
    }

    private static byte[] swapFixed(boolean client, DataInputStream in, OutputStream o, byte[] mine, int length)
            throws IOException {
        if (client) {
            o.write(mine);
            o.flush();
            return readFully(in, length);
        }
        byte[] peer = readFully(in, length);
        o.write(mine);
        o.flush();
        return peer;
    }

    private static void swap(boolean client, DataInputStream in, OutputStream o, byte[] mine) {
        try {
            swapFixed(client, in, o, mine, mine.length);
        } catch (IOException e) {
            throw new IllegalStateException("the peer left the exchange: " + e.getMessage(), e);
        }
    }

    private static void write(OutputStream o, byte[] b) {
        try {
            o.write(b);
            o.flush();
        } catch (IOException e) {
            throw new IllegalStateException("the peer left the exchange: " + e.getMessage(), e);
        }
    }

    private static byte[] readFully(DataInputStream in, int length) {
        byte[] b = new byte[length];
        try {
            in.readFully(b);
        } catch (IOException e) {
            throw new IllegalStateException("the peer left the exchange: " + e.getMessage(), e);
        }
        return b;
    }

    private static byte[] pad(String s, int length) {
        byte[] b = new byte[length];
        byte[] t = s.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, b, 0, Math.min(t.length, length - 1));
        return b;
    }

    /** A key record with the GID, as perftest writes it with {@code -x}. */
    static byte[] format(ConnectionInfo ci, PerfSide side) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x:", 0,
                side.device.queryDevice().maxQpRdAtom(), ci.qpn(), ci.psn(), ci.rkey(), ci.address()));
        for (byte g : ci.gid().bytes()) {
            s.append(String.format(Locale.ROOT, "%02x:", g & 0xFF));
        }
        s.append(String.format(Locale.ROOT, "%08x:", 0));
        return pad(s.toString(), RECORD);
    }

    /** Parses a key record written by {@link #format} (or by perftest). */
    static ConnectionInfo parse(byte[] record) {
        String s = new String(record, StandardCharsets.US_ASCII);
        int nul = s.indexOf('\0');
        String[] f = (nul >= 0 ? s.substring(0, nul) : s).split(":");
        if (f.length < 22) {
            throw new IllegalStateException("malformed key record from the peer: " + s.trim());
        }
        byte[] gid = new byte[16];
        for (int i = 0; i < 16; i++) {
            gid[i] = (byte) Integer.parseInt(f[6 + i], 16);
        }
        return new ConnectionInfo(Gid.of(gid), Integer.parseInt(f[2], 16), Integer.parseInt(f[3], 16),
                Long.parseUnsignedLong(f[5], 16), (int) Long.parseLong(f[4], 16));
    }
}
