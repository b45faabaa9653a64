package io.rnic.bench.cli;

import io.rnic.bench.pingpong.Pingpong;
import io.rnic.bench.pingpong.PingpongConfig;
import io.rnic.bench.pingpong.PingpongMode;
import io.rnic.bench.pingpong.XsrqPingpong;
import io.rnic.verbs.IcrcPolicy;
import io.rnic.verbs.PathMtu;
import java.io.IOException;
import java.io.PrintStream;

/**
 * {@code rnic pingpong}: rdma-core's {@code ibv_rc_pingpong} on an emulated HCA, or with
 * {@code --uc}, {@code --ud} or {@code --srq} its {@code ibv_uc_pingpong},
 * {@code ibv_ud_pingpong} and {@code ibv_srq_pingpong}: the same options, the same out-of-band
 * exchange over TCP, the same traffic and the same report, so either side can be ours or
 * rdma-core's (reference §11.2, §11.3).
 */
public final class PingpongCommand extends ParsedCommand {
    private final ArgParser parser = new ArgParser("rnic pingpong", "[options] [SERVER]")
            .description("""
                    Ping-pong SENDs the way rdma-core's libibverbs examples do, interoperable with them (for
                    example against Linux Soft-RoCE: ibv_rc_pingpong -d rxe0 -g 1). By default it is
                    ibv_rc_pingpong; --uc, --ud, --srq and --xrc make it ibv_uc_pingpong, ibv_ud_pingpong,
                    ibv_srq_pingpong and ibv_xsrq_pingpong (XRC; rnic against rnic only: Soft-RoCE has no
                    XRC). Without SERVER it waits for a client on the TCP port; with SERVER it
                    connects to it. The HCA binds --ip on UDP port 4791.""")
            .option(null, "--ip", "A.B.C.D", "address of this emulated HCA (default 127.0.0.2 as server, 127.0.0.3 as client)")
            .option("-p", "--port", "PORT", "TCP port of the exchange (default 18515)")
            .option(null, "--transport", "rc|uc|ud|xrc", "the QP type (default rc)")
            .flag(null, "--uc", "ibv_uc_pingpong (--transport uc)")
            .flag(null, "--ud", "ibv_ud_pingpong (--transport ud): sizes up to the port MTU, 40-byte GRH area")
            .flag(null, "--srq", "ibv_srq_pingpong: -q RC QPs sharing one shared receive queue")
            .flag(null, "--xrc", "ibv_xsrq_pingpong (--transport xrc): XRC initiator and target QPs, one XRC SRQ")
            .option(null, "--clients", "N", "with --xrc: clients the server waits for (its -c); on a client, that many "
                    + "client processes sharing this HCA and XRC domain (default 1)")
            .option("-q", "--num-qp", "NUM", "number of QPs with --srq (default 16, below 256)")
            .option("-s", "--size", "SIZE", "size of each message (default 4096; 1024 with --ud)")
            .option("-n", "--iters", "ITERS", "number of exchanges (default 1000; over all QPs with --srq; messages each "
                    + "way per client, default 5, with --xrc)")
            .option("-m", "--mtu", "MTU", "path MTU (default 1024; not with --ud)")
            .option("-r", "--rx-depth", "DEPTH", "number of receives to post at a time (default 500)")
            .flag("-e", "--events", "sleep on completion-channel events instead of polling")
            .flag("-c", "--chk", "validate the received buffer")
            .option(null, "--udp-port", "N", "UDP port of the HCA (default 4791)")
            .option(null, "--icrc", "POLICY", "strict (default) or accept-unverifiable: use the latter against a kernel "
                    + "peer, whose IPv4 identification (covered by the ICRC) a UDP socket cannot see")
            .positionals("SERVER", 0, 1)
            .epilog("Exit status: 0 all iterations completed, 1 a failure, 2 bad options.");

    @Override
    public String name() {
        return "pingpong";
    }

    @Override
    public String summary() {
        return "ibv_rc/uc/ud/srq/xsrq_pingpong on an emulated HCA, interoperable with rdma-core's";
    }

    @Override
    protected ArgParser parser() {
        return parser;
    }

    @Override
    protected int execute(ParsedArgs args, PrintStream out, PrintStream err) throws UsageException {
        PingpongConfig config = config(args, err);
        if (config == null) {
            return 1;
        }
        try {
            return config.mode() == PingpongMode.XRC ? new XsrqPingpong(config, out, err).run()
                    : new Pingpong(config, out, err).run();
        } catch (IOException | RuntimeException e) {
            err.println("rnic pingpong: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** The run the options describe; {@code null} after printing a program's own refusal. */
    static PingpongConfig config(ParsedArgs args, PrintStream err) throws UsageException {
        PingpongMode mode = mode(args);
        String server = args.positionals().isEmpty() ? null : args.positionals().get(0);
        String ip = args.has("--ip") ? args.value("--ip") : server == null ? "127.0.0.2" : "127.0.0.3";
        int tcpPort = args.intValue("--port", 1, 65535).orElse(18515);
        int size = args.intValue("--size", 1, 1 << 24).orElse(mode.defaultSize());
        int iters = args.intValue("--iters", 1, Integer.MAX_VALUE).orElse(mode == PingpongMode.XRC ? 5 : 1000);
        int rxDepth = args.intValue("--rx-depth", 1, 1 << 15).orElse(500);
        int udpPort = args.intValue("--udp-port", 1, 65535).orElse(4791);
        if (args.has("--num-qp") && mode != PingpongMode.SRQ) {
            throw new UsageException("-q is ibv_srq_pingpong's option: add --srq");
        }
        if (args.has("--mtu") && mode == PingpongMode.UD) {
            throw new UsageException("ibv_ud_pingpong has no -m: a datagram is at most the port MTU");
        }
        if (args.has("--clients") && mode != PingpongMode.XRC) {
            throw new UsageException("--clients is ibv_xsrq_pingpong's -c: add --xrc");
        }
        int numQp = mode == PingpongMode.SRQ ? args.intValue("--num-qp", 1, Integer.MAX_VALUE).orElse(16)
                : mode == PingpongMode.XRC ? args.intValue("--clients", 1, 255).orElse(1) : 1;
        if (numQp > rxDepth) {
            err.printf("rx_depth %d is too small for %d QPs -- must have at least one receive per QP.%n", rxDepth, numQp);
            return null;
        }
        if (numQp >= PingpongMode.MAX_QP) {
            err.printf("num_qp %d must be less than %d%n", numQp, PingpongMode.MAX_QP - 1);
            return null;
        }
        PathMtu mtu;
        try {
            mtu = PathMtu.ofBytes(args.intValue("--mtu", 256, 4096).orElse(1024));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--mtu must be 256, 512, 1024, 2048 or 4096");
        }
        IcrcPolicy icrc = WireOptions.icrc(args);
        return new PingpongConfig(mode, server, ip, tcpPort, udpPort, size, iters, rxDepth, numQp, mtu,
                args.flag("--events"), args.flag("--chk"), icrc);
    }

    /** --transport, or the aliases that mirror the program names. */
    private static PingpongMode mode(ParsedArgs args) throws UsageException {
        String transport = args.has("--transport") ? args.value("--transport") : null;
        int aliases = (args.flag("--uc") ? 1 : 0) + (args.flag("--ud") ? 1 : 0) + (args.flag("--srq") ? 1 : 0)
                + (args.flag("--xrc") ? 1 : 0);
        if (aliases > 1 || (aliases == 1 && transport != null && !transport.equals(args.flag("--uc") ? "uc"
                : args.flag("--ud") ? "ud" : args.flag("--xrc") ? "xrc" : "rc"))) {
            throw new UsageException("choose one of --transport, --uc, --ud, --srq and --xrc (--srq is RC)");
        }
        if (args.flag("--xrc")) {
            return PingpongMode.XRC;
        }
        if (args.flag("--srq")) {
            return PingpongMode.SRQ;
        }
        if (args.flag("--uc")) {
            return PingpongMode.UC;
        }
        if (args.flag("--ud")) {
            return PingpongMode.UD;
        }
        if (transport == null) {
            return PingpongMode.RC;
        }
        return switch (transport) {
            case "rc" -> PingpongMode.RC;
            case "uc" -> PingpongMode.UC;
            case "ud" -> PingpongMode.UD;
            case "xrc" -> PingpongMode.XRC;
            default -> throw new UsageException("pingpong's --transport must be rc, uc, ud or xrc (rd has no libibverbs "
                    + "example), not " + transport);
        };
    }
}
