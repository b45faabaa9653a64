package io.rnic.bench.cli;

import io.rnic.bench.perf.PerfConfig;
import io.rnic.bench.perf.PerfRunner;
import io.rnic.bench.perf.PerfTest;
import io.rnic.transport.udp.HcaAgent;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpType;
import io.rnic.verbs.WrOpcode;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rnic perf}: perftest's {@code ib_*_bw} and {@code ib_*_lat} on emulated HCAs, with
 * perftest's option names and report tables; both sides in one process ({@code --loopback}, or
 * {@code --wire sim}) or one per process, exchanging parameters over TCP in perftest's format.
 */
@Command(name = "perf",
        description = {"perftest's ib_*_bw and ib_*_lat on emulated HCAs, with perftest's options and tables", "",
    """
        TEST is write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat, send_lat or atomic_lat, \
        as perftest's ib_write_bw ... ib_atomic_lat. Without SERVER this side is the server and \
        waits on the TCP port; with SERVER it connects to it. --loopback runs both sides in this \
        process (HCAs on 127.0.0.2 and 127.0.0.3 over UDP), --wire sim both on the simulated \
        network. Latency tests report half a round trip for write_lat and send_lat (ping-pong) \
        and the whole round trip for read_lat and atomic_lat, as perftest does.""", "",
    """
        Options follow perftest's (ib_write_bw and its siblings), letters and long names alike, so \
        that a perftest command line runs here unchanged; the options from --loopback on are \
        rnic's own."""},
        exitCodeList = {"0:the test ran", "1:it failed", RnicCommand.USAGE_ERROR_LINE, RnicCommand.INTERNAL_ERROR_LINE})
public final class PerfCommand extends RnicCommand {
    /** The tests, for completion. */
    static final class Tests implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.Arrays.stream(PerfTest.values()).map(PerfTest::command).iterator();
        }
    }

    @Parameters(index = "0", paramLabel = "TEST", completionCandidates = Tests.class,
            description = "the test: ${COMPLETION-CANDIDATES}")
    String testName;

    @Parameters(index = "1", arity = "0..1", paramLabel = "SERVER", description = "the server to connect to; none: be the server")
    String server;

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE",
            description = "message size (default 65536 for bandwidth, 2 for latency, 8 for atomics)")
    Integer size;

    @Option(names = {"-a", "--all"}, description = "every size from 2 to 2^23 (not for atomics)")
    boolean all;

    @Option(names = {"-n", "--iters"}, paramLabel = "ITERS",
            description = "messages per QP and size (default 5000 bandwidth, 1000 latency)")
    Integer iters;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECS", description = "run for SECS seconds instead of -n (a latency "
            + "test reports perftest's duration row: the iterations inside the middle half, their average and rate)")
    Integer duration;

    @Option(names = {"-q", "--qp"}, paramLabel = "NUM", defaultValue = "1", description = "QPs per side (default: ${DEFAULT-VALUE})")
    int qps;

    @Option(names = {"-t", "--tx-depth"}, paramLabel = "DEPTH",
            description = "send work requests in flight per QP (default 128; 1 for latency)")
    Integer txDepth;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "DEPTH", defaultValue = "512",
            description = "receives posted per QP for SEND tests (default: ${DEFAULT-VALUE})")
    int rxDepth;

    @Option(names = {"-Q", "--cq-mod"}, paramLabel = "N", description = "request a completion every N sends (default 100; "
            + "every send for a message over 8 KiB unless given)")
    Integer cqMod;

    @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", defaultValue = "4096",
            description = "path MTU: 256, 512, 1024, 2048 or 4096 (default: ${DEFAULT-VALUE})")
    int mtu;

    @Option(names = {"-c", "--connection"}, paramLabel = "RC|UC|UD", defaultValue = "RC",
            description = "connection type (default: ${DEFAULT-VALUE})")
    String connection;

    @Option(names = {"-A", "--atomic_type"}, paramLabel = "TYPE", description = "CMP_AND_SWAP (default), FETCH_AND_ADD, "
            + "or ATOMIC_WRITE (IBTA 1.5; an rnic extension, rnic to rnic: perftest 4.5 has no such type)")
    String atomicType;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", defaultValue = "18515", converter = Mixins.Port.class,
            description = "TCP port of the exchange (default: ${DEFAULT-VALUE}); with -R the rdma_cm port")
    int tcpPort;

    @Option(names = {"-R", "--rdma_cm"}, description = "connect through rdma_cm: the exchange over an rdma_cm connection "
            + "and the test QPs connected by the connection manager, as perftest's -R")
    boolean rdmaCm;

    @Option(names = "--report_gbits", description = "bandwidth in Gb/s instead of MB/s")
    boolean reportGbits;

    @Option(names = {"-F", "--CPU-freq"}, description = "accepted for perftest compatibility (rnic times with the "
            + "monotonic clock)")
    boolean cpuFreq;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "accepted for perftest compatibility (one device "
            + "per process)")
    String ibDev;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "accepted for perftest compatibility (port 1)")
    String ibPort;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "INDEX", description = "accepted for perftest compatibility (GID "
            + "0, the RoCEv2 GID)")
    String gidIndex;

    @Option(names = "--loopback", description = "both sides in this process, over UDP on loopback")
    boolean loopback;

    @Mixin
    Mixins.Wire wire;

    @Mixin
    Mixins.Seed seed;

    @Mixin
    Mixins.Cc cc;

    @Mixin
    Mixins.Ip ip;

    @Mixin
    Mixins.UdpPort udpPort;

    @Mixin
    Mixins.Icrc icrc;

    @Option(names = "--threading", paramLabel = "MODE", description = "dedicated (default: an agent thread per HCA), "
            + "shared (one for all) or invoker (the test's own thread drives its HCA)")
    String threading;

    @Option(names = "--idle", paramLabel = "MODE", description = "spin, backoff (default) or block: what an agent does "
            + "when idle")
    String idle;

    @Mixin
    Mixins.GsoOption gso;

    @Option(names = "--warmup", paramLabel = "SECS", defaultValue = "2",
            description = "unreported traffic before the measurement, for the JIT (default: ${DEFAULT-VALUE}; 0 none)")
    int warmup;

    @Option(names = "--counters", description = "print each side's HCA and wire counters to stderr at the end")
    boolean counters;

    @Option(names = "--rnr_retry", paramLabel = "N", defaultValue = "7", description = "RNR retries of the RC QPs, 0 to 7 "
            + "(default: ${DEFAULT-VALUE} = forever; 0: an RNR NAK is fatal)")
    int rnrRetry;

    @Option(names = "--slow-receiver", paramLabel = "MICROS", defaultValue = "0",
            description = "the server re-posts each receive only MICROS after it completed (SEND tests)")
    int slowReceiver;

    @Option(names = "--credit-channel", description = "send_bw/send_lat on the credit-based Send/Recv channel: no SEND "
            + "meets a missing receive")
    boolean creditChannel;

    @Option(names = "--json", description = "one JSON object per size instead of perftest's table")
    boolean json;

    @Override
    protected int execute() throws UsageException {
        PerfConfig config = config();
        try {
            return new PerfRunner(config, out, err).run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } catch (Exception e) {
            Throwable c = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            err.println("rnic perf: " + c.getMessage());
            return 1;
        }
    }

    PerfConfig config() throws UsageException {
        PerfTest test = PerfTest.byCommand(testName);
        if (test == null) {
            throw new UsageException("unknown test '" + testName + "': write_bw, read_bw, send_bw, atomic_bw, "
                    + "write_lat, read_lat, send_lat or atomic_lat");
        }
        boolean sim = wire.sim();
        boolean loopback = this.loopback || sim;
        if (loopback && server != null) {
            throw new UsageException("--loopback and --wire sim run both sides here: give no SERVER");
        }
        QpType type = switch (connection.toUpperCase(Locale.ROOT)) {
            case "RC" -> QpType.RC;
            case "UC" -> QpType.UC;
            case "UD" -> QpType.UD;
            default -> throw new UsageException("-c must be RC, UC or UD");
        };
        if (type == QpType.UC && (test.op() == PerfTest.Op.READ || test.op() == PerfTest.Op.ATOMIC)) {
            throw new UsageException(test.command() + " needs RC: UC has no READ or atomics");
        }
        if (type == QpType.UD && test.op() != PerfTest.Op.SEND) {
            throw new UsageException(test.command() + " cannot run on UD: UD has SEND only");
        }
        WrOpcode atomic = WrOpcode.ATOMIC_CMP_AND_SWP;
        if (atomicType != null) {
            if (test.op() != PerfTest.Op.ATOMIC) {
                throw new UsageException("-A is for atomic_bw and atomic_lat");
            }
            atomic = switch (atomicType) {
                case "CMP_AND_SWAP" -> WrOpcode.ATOMIC_CMP_AND_SWP;
                case "FETCH_AND_ADD" -> WrOpcode.ATOMIC_FETCH_AND_ADD;
                case "ATOMIC_WRITE" -> WrOpcode.ATOMIC_WRITE;
                default -> throw new UsageException("-A must be CMP_AND_SWAP, FETCH_AND_ADD or ATOMIC_WRITE");
            };
        }
        PathMtu mtu;
        try {
            mtu = PathMtu.ofBytes(range("--mtu", this.mtu, 256, 4096));
        } catch (IllegalArgumentException e) {
            throw new UsageException("-m must be 256, 512, 1024, 2048 or 4096");
        }
        List<Integer> sizes;
        if (all) {
            if (test.op() == PerfTest.Op.ATOMIC) {
                throw new UsageException("-a is not offered for atomics (their size is 8)");
            }
            if (size != null) {
                throw new UsageException("give -s or -a, not both");
            }
            sizes = PerfConfig.allSizes();
            if (type == QpType.UD) {
                sizes = sizes.stream().filter(s -> s <= mtu.bytes()).toList();
            }
        } else {
            int size = range("--size", this.size, 1, 1 << 30, test.defaultSize());
            if (test.op() == PerfTest.Op.ATOMIC && size != 8) {
                throw new UsageException("atomics move 8 bytes: -s must be 8");
            }
            if (type == QpType.UD && size > mtu.bytes()) {
                throw new UsageException("a UD message is at most the MTU (" + mtu.bytes() + "): -s " + size);
            }
            sizes = List.of(size);
        }
        int duration = range("--duration", this.duration, 1, 3600, 0);
        if (duration > 0 && test.latency() && all) {
            throw new UsageException("-D runs one size: not with -a");
        }
        int iters = range("--iters", this.iters, 1, Integer.MAX_VALUE, test.defaultIterations());
        int qps = range("--qp", this.qps, 1, 1024);
        if (qps > 1 && test.latency()) {
            throw new UsageException("latency tests run on one QP");
        }
        int tx = range("--tx-depth", txDepth, 1, 8192, test.latency() ? 1 : 128);
        int rx = range("--rx-depth", rxDepth, 1, 8192);
        int cqMod = cqMod(sizes, type, tx);
        String ip = this.ip.ip;
        if (loopback && ip != null) {
            throw new UsageException("--ip names one side; in one process the HCAs are 127.0.0.2 and 127.0.0.3");
        }
        String serverIp = ip != null && server == null ? ip : "127.0.0.2";
        String clientIp = ip != null && server != null ? ip : "127.0.0.3";
        HcaAgent.Threading threading = switch (this.threading != null ? this.threading : "dedicated") {
            case "dedicated" -> HcaAgent.Threading.DEDICATED;
            case "shared" -> HcaAgent.Threading.SHARED;
            case "invoker" -> HcaAgent.Threading.INVOKER;
            default -> throw new UsageException("--threading must be dedicated, shared or invoker");
        };
        HcaAgent.Idle idle = switch (this.idle != null ? this.idle : "backoff") {
            case "spin" -> HcaAgent.Idle.SPIN;
            case "backoff" -> HcaAgent.Idle.BACKOFF;
            case "block" -> HcaAgent.Idle.BLOCK;
            default -> throw new UsageException("--idle must be spin, backoff or block");
        };
        if (sim && (this.threading != null || this.idle != null)) {
            throw new UsageException("--threading and --idle are for UDP: the simulated network runs on this thread");
        }
        if (creditChannel && (test.op() != PerfTest.Op.SEND || type != QpType.RC)) {
            throw new UsageException("--credit-channel is for send_bw and send_lat on RC");
        }
        long slow = range("--slow-receiver", slowReceiver, 0, 10_000_000);
        if (slow > 0 && test.op() != PerfTest.Op.SEND) {
            throw new UsageException("--slow-receiver is for SEND tests: only receives are re-posted");
        }
        return new PerfConfig(test, sizes, iters, duration, qps, tx, rx, cqMod, mtu, type, atomic,
                reportGbits, json, server, loopback, sim, seed.seed, serverIp, clientIp,
                udpPort.udpPort, tcpPort, icrc.policy(), threading, idle, gso.value(),
                range("--warmup", warmup, 0, 600), counters, range("--rnr_retry", rnrRetry, 0, 7),
                slow, creditChannel, rdmaCm(loopback), cc.cc);
    }

    /**
     * {@code -Q} as perftest settles it (perftest_parameters.c): a message larger than 8 KiB is
     * signaled every time unless {@code -Q} was given (one size, not UD), and the moderation never
     * exceeds {@code -t}: the send queue would fill before the first signaled request was posted.
     */
    int cqMod(List<Integer> sizes, QpType type, int txDepth) throws UsageException {
        int cqMod = range("--cq-mod", this.cqMod, 1, 1024, 100);
        if (this.cqMod == null && sizes.size() == 1 && sizes.get(0) > 8192 && type != QpType.UD) {
            cqMod = 1;
        }
        return Math.min(cqMod, txDepth);
    }

    /** {@code -R}: perftest over rdma_cm, two processes. */
    private boolean rdmaCm(boolean loopback) throws UsageException {
        if (!rdmaCm) {
            return false;
        }
        if (loopback) {
            throw new UsageException("-R is for a server and a client in two processes, not --loopback or --wire sim");
        }
        if (creditChannel) {
            throw new UsageException("-R does not take --credit-channel");
        }
        return true;
    }
}
