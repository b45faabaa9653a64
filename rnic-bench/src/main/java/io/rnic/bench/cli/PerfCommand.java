package io.rnic.bench.cli;

import io.rnic.bench.perf.PerfConfig;
import io.rnic.bench.perf.PerfRunner;
import io.rnic.bench.perf.PerfTest;
import io.rnic.transport.udp.HcaAgent;
import io.rnic.verbs.IcrcPolicy;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpType;
import io.rnic.verbs.WrOpcode;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * {@code rnic perf}: perftest's {@code ib_*_bw} and {@code ib_*_lat} on emulated HCAs, with
 * perftest's option names and report tables; both sides in one process ({@code --loopback}, or
 * {@code --wire sim}) or one per process, exchanging parameters over TCP in perftest's format.
 */
public final class PerfCommand extends ParsedCommand {
    private final ArgParser parser = new ArgParser("rnic perf", "TEST [options] [SERVER]")
            .description("""
                    TEST is write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat, send_lat or atomic_lat,
                    as perftest's ib_write_bw ... ib_atomic_lat. Without SERVER this side is the server and
                    waits on the TCP port; with SERVER it connects to it. --loopback runs both sides in this
                    process (HCAs on 127.0.0.2 and 127.0.0.3 over UDP), --wire sim both on the simulated
                    network. Latency tests report half a round trip for write_lat and send_lat (ping-pong)
                    and the whole round trip for read_lat and atomic_lat, as perftest does.""")
            .option("-s", "--size", "SIZE", "message size (default 65536 for bandwidth, 2 for latency, 8 for atomics)")
            .flag("-a", "--all", "every size from 2 to 2^23 (not for atomics)")
            .option("-n", "--iters", "ITERS", "messages per QP and size (default 5000 bandwidth, 1000 latency)")
            .option("-D", "--duration", "SECS", "run for SECS seconds instead of -n (a latency test reports perftest's "
                    + "duration row: the iterations inside the middle half, their average and rate)")
            .option("-q", "--qp", "NUM", "QPs per side (default 1)")
            .option("-t", "--tx-depth", "DEPTH", "send work requests in flight per QP (default 128; 1 for latency)")
            .option("-r", "--rx-depth", "DEPTH", "receives posted per QP for SEND tests (default 512)")
            .option("-Q", "--cq-mod", "N", "request a completion every N sends (default 100)")
            .option("-m", "--mtu", "MTU", "path MTU: 256, 512, 1024, 2048 or 4096 (default 4096)")
            .option("-c", "--connection", "RC|UC|UD", "connection type (default RC)")
            .option("-A", "--atomic_type", "TYPE", "CMP_AND_SWAP (default), FETCH_AND_ADD, or ATOMIC_WRITE (IBTA 1.5; an "
                    + "rnic extension, rnic to rnic: perftest 4.5 has no such type)")
            .option("-p", "--port", "PORT", "TCP port of the exchange (default 18515); with -R the rdma_cm port")
            .flag("-R", "--rdma_cm", "connect through rdma_cm: the exchange over an rdma_cm connection and the test QPs "
                    + "connected by the connection manager, as perftest's -R")
            .flag(null, "--report_gbits", "bandwidth in Gb/s instead of MB/s")
            .flag("-F", "--CPU-freq", "accepted for perftest compatibility (rnic times with the monotonic clock)")
            .option("-d", "--ib-dev", "DEV", "accepted for perftest compatibility (one device per process)")
            .option("-i", "--ib-port", "PORT", "accepted for perftest compatibility (port 1)")
            .option("-x", "--gid-index", "INDEX", "accepted for perftest compatibility (GID 0, the RoCEv2 GID)")
            .flag(null, "--loopback", "both sides in this process, over UDP on loopback")
            .option(null, "--wire", "sim|udp", "the wire (default udp); sim implies both sides in this process")
            .option(null, "--seed", "N", "seed of the simulated network (default 1)")
            .option(null, "--ip", "A.B.C.D", "address of this side's HCA (default 127.0.0.2 server, 127.0.0.3 client)")
            .option(null, "--udp-port", "N", "UDP port of the HCAs (default 4791)")
            .option(null, "--icrc", "POLICY", "strict (default) or accept-unverifiable (against a kernel peer)")
            .option(null, "--threading", "MODE", "dedicated (default: an agent thread per HCA), shared (one for all) "
                    + "or invoker (the test's own thread drives its HCA)")
            .option(null, "--idle", "MODE", "spin, backoff (default) or block: what an agent does when idle")
            .option(null, "--gso", "on|off|auto", "UDP GSO super-datagrams: auto (default) toward rnic wires of this "
                    + "process, on toward any peer (an rnic peer only: a kernel peer drops them), off")
            .option(null, "--warmup", "SECS", "unreported traffic before the measurement, for the JIT (default 2; 0 none)")
            .flag(null, "--counters", "print each side's HCA and wire counters to stderr at the end")
            .option(null, "--rnr_retry", "N", "RNR retries of the RC QPs, 0 to 7 (default 7 = forever; 0: an RNR NAK is fatal)")
            .option(null, "--slow-receiver", "MICROS", "the server re-posts each receive only MICROS after it completed (SEND tests)")
            .flag(null, "--credit-channel", "send_bw/send_lat on seed 004's credit channel: no SEND meets a missing receive")
            .flag(null, "--json", "one JSON object per size instead of perftest's table")
            .positionals("TEST [SERVER]", 1, 2)
            .epilog("Exit status: 0 the test ran, 1 it failed, 2 bad options.");

    @Override
    public String name() {
        return "perf";
    }

    @Override
    public String summary() {
        return "perftest's ib_*_bw and ib_*_lat on emulated HCAs, with perftest's options and tables";
    }

    @Override
    protected ArgParser parser() {
        return parser;
    }

    @Override
    protected int execute(ParsedArgs args, PrintStream out, PrintStream err) throws UsageException {
        PerfConfig config = config(args);
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

    static PerfConfig config(ParsedArgs args) throws UsageException {
        List<String> pos = args.positionals();
        PerfTest test = PerfTest.byCommand(pos.get(0));
        if (test == null) {
            throw new UsageException("unknown test '" + pos.get(0) + "': write_bw, read_bw, send_bw, atomic_bw, "
                    + "write_lat, read_lat, send_lat or atomic_lat");
        }
        String server = pos.size() > 1 ? pos.get(1) : null;
        String wire = args.has("--wire") ? args.value("--wire") : "udp";
        if (!wire.equals("udp") && !wire.equals("sim")) {
            throw new UsageException("--wire must be sim or udp, not " + wire);
        }
        boolean sim = wire.equals("sim");
        boolean loopback = args.flag("--loopback") || sim;
        if (loopback && server != null) {
            throw new UsageException("--loopback and --wire sim run both sides here: give no SERVER");
        }
        QpType type = switch (args.has("--connection") ? args.value("--connection").toUpperCase(Locale.ROOT) : "RC") {
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
        if (args.has("--atomic_type")) {
            if (test.op() != PerfTest.Op.ATOMIC) {
                throw new UsageException("-A is for atomic_bw and atomic_lat");
            }
            atomic = switch (args.value("--atomic_type")) {
                case "CMP_AND_SWAP" -> WrOpcode.ATOMIC_CMP_AND_SWP;
                case "FETCH_AND_ADD" -> WrOpcode.ATOMIC_FETCH_AND_ADD;
                case "ATOMIC_WRITE" -> WrOpcode.ATOMIC_WRITE;
                default -> throw new UsageException("-A must be CMP_AND_SWAP, FETCH_AND_ADD or ATOMIC_WRITE");
            };
        }
        PathMtu mtu;
        try {
            mtu = PathMtu.ofBytes(args.intValue("--mtu", 256, 4096).orElse(4096));
        } catch (IllegalArgumentException e) {
            throw new UsageException("-m must be 256, 512, 1024, 2048 or 4096");
        }
        List<Integer> sizes;
        if (args.flag("--all")) {
            if (test.op() == PerfTest.Op.ATOMIC) {
                throw new UsageException("-a is not offered for atomics (their size is 8)");
            }
            if (args.has("--size")) {
                throw new UsageException("give -s or -a, not both");
            }
            sizes = PerfConfig.allSizes();
            if (type == QpType.UD) {
                sizes = sizes.stream().filter(s -> s <= mtu.bytes()).toList();
            }
        } else {
            int size = args.intValue("--size", 1, 1 << 30).orElse(test.defaultSize());
            if (test.op() == PerfTest.Op.ATOMIC && size != 8) {
                throw new UsageException("atomics move 8 bytes: -s must be 8");
            }
            if (type == QpType.UD && size > mtu.bytes()) {
                throw new UsageException("a UD message is at most the MTU (" + mtu.bytes() + "): -s " + size);
            }
            sizes = List.of(size);
        }
        int duration = args.intValue("--duration", 1, 3600).orElse(0);
        if (duration > 0 && test.latency() && args.flag("--all")) {
            throw new UsageException("-D runs one size: not with -a");
        }
        int iters = args.intValue("--iters", 1, Integer.MAX_VALUE).orElse(test.defaultIterations());
        int qps = args.intValue("--qp", 1, 1024).orElse(1);
        if (qps > 1 && test.latency()) {
            throw new UsageException("latency tests run on one QP");
        }
        int tx = args.intValue("--tx-depth", 1, 8192).orElse(test.latency() ? 1 : 128);
        int rx = args.intValue("--rx-depth", 1, 8192).orElse(512);
        int cqMod = cqMod(args, sizes, type, tx);
        int udpPort = args.intValue("--udp-port", 1, 65535).orElse(4791);
        int tcpPort = args.intValue("--port", 1, 65535).orElse(18515);
        long seed = args.has("--seed") ? ParsedArgs.parseInt("--seed", args.value("--seed"), 0, Integer.MAX_VALUE) : 1;
        String ip = args.has("--ip") ? args.value("--ip") : null;
        if (loopback && ip != null) {
            throw new UsageException("--ip names one side; in one process the HCAs are 127.0.0.2 and 127.0.0.3");
        }
        String serverIp = ip != null && server == null ? ip : "127.0.0.2";
        String clientIp = ip != null && server != null ? ip : "127.0.0.3";
        IcrcPolicy icrc = WireOptions.icrc(args);
        HcaAgent.Threading threading = switch (args.has("--threading") ? args.value("--threading") : "dedicated") {
            case "dedicated" -> HcaAgent.Threading.DEDICATED;
            case "shared" -> HcaAgent.Threading.SHARED;
            case "invoker" -> HcaAgent.Threading.INVOKER;
            default -> throw new UsageException("--threading must be dedicated, shared or invoker");
        };
        HcaAgent.Idle idle = switch (args.has("--idle") ? args.value("--idle") : "backoff") {
            case "spin" -> HcaAgent.Idle.SPIN;
            case "backoff" -> HcaAgent.Idle.BACKOFF;
            case "block" -> HcaAgent.Idle.BLOCK;
            default -> throw new UsageException("--idle must be spin, backoff or block");
        };
        if (sim && (args.has("--threading") || args.has("--idle"))) {
            throw new UsageException("--threading and --idle are for UDP: the simulated network runs on this thread");
        }
        boolean channel = args.flag("--credit-channel");
        if (channel && (test.op() != PerfTest.Op.SEND || type != QpType.RC)) {
            throw new UsageException("--credit-channel is for send_bw and send_lat on RC");
        }
        long slow = args.intValue("--slow-receiver", 0, 10_000_000).orElse(0);
        if (slow > 0 && test.op() != PerfTest.Op.SEND) {
            throw new UsageException("--slow-receiver is for SEND tests: only receives are re-posted");
        }
        return new PerfConfig(test, sizes, iters, duration, qps, tx, rx, cqMod, mtu, type, atomic,
                args.flag("--report_gbits"), args.flag("--json"), server, loopback, sim, seed, serverIp, clientIp,
                udpPort, tcpPort, icrc, threading, idle, WireOptions.gso(args, io.rnic.transport.udp.Gso.AUTO),
                args.intValue("--warmup", 0, 600).orElse(2), args.flag("--counters"), args.intValue("--rnr_retry", 0, 7).orElse(7),
                slow, channel, rdmaCm(args, loopback, type, channel));
    }

    /** {@code -R}: perftest over rdma_cm, two processes. */
    /**
     * {@code -Q} as perftest settles it (perftest_parameters.c): a message larger than 8 KiB is
     * signaled every time unless {@code -Q} was given (one size, not UD), and the moderation never
     * exceeds {@code -t}: the send queue would fill before the first signaled request was posted.
     */
    static int cqMod(ParsedArgs args, List<Integer> sizes, QpType type, int txDepth) throws UsageException {
        int cqMod = args.intValue("--cq-mod", 1, 1024).orElse(100);
        if (!args.has("--cq-mod") && sizes.size() == 1 && sizes.get(0) > 8192 && type != QpType.UD) {
            cqMod = 1;
        }
        return Math.min(cqMod, txDepth);
    }

    private static boolean rdmaCm(ParsedArgs args, boolean loopback, QpType type, boolean channel)
            throws UsageException {
        if (!args.flag("--rdma_cm")) {
            return false;
        }
        if (loopback) {
            throw new UsageException("-R is for a server and a client in two processes, not --loopback or --wire sim");
        }
        if (channel) {
            throw new UsageException("-R does not take --credit-channel");
        }
        return true;
    }
}
