package io.rnic.bench.cli;

import io.rnic.bench.pingpong.Pingpong;
import io.rnic.bench.pingpong.PingpongConfig;
import io.rnic.bench.pingpong.PingpongMode;
import io.rnic.bench.pingpong.XsrqPingpong;
import io.rnic.verbs.PathMtu;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rnic pingpong}: rdma-core's {@code ibv_rc_pingpong} on an emulated HCA, or with
 * {@code --uc}, {@code --ud} or {@code --srq} its {@code ibv_uc_pingpong},
 * {@code ibv_ud_pingpong} and {@code ibv_srq_pingpong}: the same options, the same out-of-band
 * exchange over TCP, the same traffic and the same report, so either side can be ours or
 * rdma-core's (reference §11.2, §11.3).
 */
@Command(name = "pingpong",
        description = {"ibv_rc/uc/ud/srq/xsrq_pingpong on an emulated HCA, interoperable with rdma-core's", "",
    """
        Ping-pong SENDs the way rdma-core's libibverbs examples do, interoperable with them (for \
        example against Linux Soft-RoCE: ibv_rc_pingpong -d rxe0 -g 1). By default it is \
        ibv_rc_pingpong; --uc, --ud, --srq and --xrc make it ibv_uc_pingpong, ibv_ud_pingpong, \
        ibv_srq_pingpong and ibv_xsrq_pingpong (XRC; rnic against rnic only: Soft-RoCE has no \
        XRC). Without SERVER it waits for a client on the TCP port; with SERVER it \
        connects to it. The HCA binds --ip on UDP port 4791.""", "",
    """
        Options follow ibv_rc_pingpong and its siblings (-p, -s, -n, -m, -r, -e, -c, and -q of \
        ibv_srq_pingpong), so that a command line works for either program; --transport and the \
        other long options are rnic's own, as in every rnic command."""},
        exitCodeList = {"0:all iterations completed", "1:a failure (including the refusals the C program makes)",
            RnicCommand.USAGE_ERROR_LINE, RnicCommand.INTERNAL_ERROR_LINE})
public final class PingpongCommand extends RnicCommand {
    @Mixin
    Mixins.Ip ip;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", defaultValue = "18515", converter = Mixins.Port.class,
            description = "TCP port of the exchange (default: ${DEFAULT-VALUE})")
    int tcpPort;

    @Mixin
    Mixins.Transport transport;

    @Option(names = "--uc", description = "ibv_uc_pingpong (--transport uc)")
    boolean uc;

    @Option(names = "--ud", description = "ibv_ud_pingpong (--transport ud): sizes up to the port MTU, 40-byte GRH area")
    boolean ud;

    @Option(names = "--srq", description = "ibv_srq_pingpong: -q RC QPs sharing one shared receive queue")
    boolean srq;

    @Option(names = "--xrc", description = "ibv_xsrq_pingpong (--transport xrc): XRC initiator and target QPs, one XRC SRQ")
    boolean xrc;

    @Option(names = "--clients", paramLabel = "N", description = "with --xrc: clients the server waits for (its -c); on a "
            + "client, that many client processes sharing this HCA and XRC domain (default 1)")
    Integer clients;

    @Option(names = {"-q", "--num-qp"}, paramLabel = "NUM", description = "number of QPs with --srq (default 16, below 256)")
    Integer numQp;

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", description = "size of each message (default 4096; 1024 with --ud)")
    Integer size;

    @Option(names = {"-n", "--iters"}, paramLabel = "ITERS", description = "number of exchanges (default 1000; over all QPs "
            + "with --srq; messages each way per client, default 5, with --xrc)")
    Integer iters;

    @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", description = "path MTU (default 1024; not with --ud)")
    Integer mtu;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "DEPTH", defaultValue = "500",
            description = "number of receives to post at a time (default: ${DEFAULT-VALUE})")
    int rxDepth;

    @Option(names = {"-e", "--events"}, description = "sleep on completion-channel events instead of polling")
    boolean events;

    @Option(names = {"-c", "--chk"}, description = "validate the received buffer")
    boolean chk;

    @Mixin
    Mixins.UdpPort udpPort;

    @Mixin
    Mixins.Icrc icrc;

    @Parameters(paramLabel = "SERVER", arity = "0..1", description = "the server to connect to; none: be the server")
    String server;

    @Override
    protected int execute() throws UsageException {
        PingpongConfig config = config();
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
    PingpongConfig config() throws UsageException {
        PingpongMode mode = mode();
        String ip = this.ip.ip != null ? this.ip.ip : server == null ? "127.0.0.2" : "127.0.0.3";
        int size = range("--size", this.size, 1, 1 << 24, mode.defaultSize());
        int iters = range("--iters", this.iters, 1, Integer.MAX_VALUE, mode == PingpongMode.XRC ? 5 : 1000);
        int rxDepth = range("--rx-depth", this.rxDepth, 1, 1 << 15);
        if (numQp != null && mode != PingpongMode.SRQ) {
            throw new UsageException("-q is ibv_srq_pingpong's option: add --srq");
        }
        if (mtu != null && mode == PingpongMode.UD) {
            throw new UsageException("ibv_ud_pingpong has no -m: a datagram is at most the port MTU");
        }
        if (clients != null && mode != PingpongMode.XRC) {
            throw new UsageException("--clients is ibv_xsrq_pingpong's -c: add --xrc");
        }
        int numQp = mode == PingpongMode.SRQ ? range("--num-qp", this.numQp, 1, Integer.MAX_VALUE, 16)
                : mode == PingpongMode.XRC ? range("--clients", clients, 1, 255, 1) : 1;
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
            mtu = PathMtu.ofBytes(range("--mtu", this.mtu, 256, 4096, 1024));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--mtu must be 256, 512, 1024, 2048 or 4096");
        }
        return new PingpongConfig(mode, server, ip, tcpPort, udpPort.udpPort, size, iters, rxDepth, numQp, mtu,
                events, chk, icrc.policy());
    }

    /** --transport, or the aliases that mirror the program names. */
    private PingpongMode mode() throws UsageException {
        Choices.QpKind given = transport.transport;
        int aliases = (uc ? 1 : 0) + (ud ? 1 : 0) + (srq ? 1 : 0) + (xrc ? 1 : 0);
        Choices.QpKind alias = uc ? Choices.QpKind.UC : ud ? Choices.QpKind.UD : xrc ? Choices.QpKind.XRC : Choices.QpKind.RC;
        if (aliases > 1 || (aliases == 1 && given != null && given != alias)) {
            throw new UsageException("choose one of --transport, --uc, --ud, --srq and --xrc (--srq is RC)");
        }
        if (xrc) {
            return PingpongMode.XRC;
        }
        if (srq) {
            return PingpongMode.SRQ;
        }
        if (uc) {
            return PingpongMode.UC;
        }
        if (ud) {
            return PingpongMode.UD;
        }
        return switch (given == null ? Choices.QpKind.RC : given) {
            case RC -> PingpongMode.RC;
            case UC -> PingpongMode.UC;
            case UD -> PingpongMode.UD;
            case XRC -> PingpongMode.XRC;
            default -> throw new UsageException("pingpong's --transport must be rc, uc, ud or xrc (rd has no libibverbs "
                    + "example), not " + given);
        };
    }
}
