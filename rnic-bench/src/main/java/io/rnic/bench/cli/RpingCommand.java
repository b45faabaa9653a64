package io.rnic.bench.cli;

import io.rnic.bench.rdmacm.Rping;
import io.rnic.bench.rdmacm.RpingConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code rnic rping}: rdma-core's {@code rping} on an emulated HCA, connecting through the
 * connection manager (rdma_cm over QP1), interoperable with rdma-core's in both roles.
 */
@Command(name = "rping", description = {"rdma-core's rping over rdma_cm on an emulated HCA, interoperable with rping", "",
    """
        rdma-core's rping: a client and a server connect through rdma_cm (REQ/REP/RTU on QP1) and \
        ping with SEND, RDMA READ and RDMA WRITE, interoperable with rping (for example against \
        Linux Soft-RoCE). The server binds -a (its HCA's address unless --ip says otherwise); the \
        client connects to -a from --ip (or -I).""", "",
    """
        Options follow rping's: -s and -c choose the side, -a is the server's address, -C the count \
        and -S the size (not -n and -s as in the ibv_*_pingpong programs); the long options after \
        them are rnic's own."""},
        exitCodeList = {"0:every ping done (a server: its client disconnected)", "1:a failure", RnicCommand.USAGE_ERROR_LINE,
            RnicCommand.INTERNAL_ERROR_LINE})
public final class RpingCommand extends RnicCommand {
    @Option(names = {"-s", "--server"}, description = "server side")
    boolean server;

    @Option(names = {"-c", "--client"}, description = "client side")
    boolean client;

    @Option(names = {"-a", "--addr"}, paramLabel = "ADDR", description = "the server's address")
    String addr;

    @Option(names = {"-I", "--source"}, paramLabel = "ADDR",
            description = "the client's source address (its HCA's, unless --ip is given)")
    String source;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", defaultValue = "7174",
            description = "rdma_cm port (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = {"-C", "--count"}, paramLabel = "COUNT", defaultValue = "0",
            description = "ping count (default: ${DEFAULT-VALUE}: until interrupted)")
    int count;

    @Option(names = {"-S", "--size"}, paramLabel = "SIZE", defaultValue = "64",
            description = "ping data size (default: ${DEFAULT-VALUE}; " + RpingConfig.MIN_SIZE + " to "
                    + RpingConfig.MAX_SIZE + ")")
    int size;

    @Option(names = {"-v", "--verbose"}, description = "display ping data to stdout")
    boolean verbose;

    @Option(names = {"-V", "--validate"}, description = "validate ping data")
    boolean validate;

    @Option(names = {"-d", "--debug"}, description = "debug printfs")
    boolean debug;

    @Option(names = {"-P", "--persistent"}, description = "persistent server (not supported)")
    boolean persistent;

    @Option(names = {"-q", "--self-qp"},
            description = "self-created, self-modified QP (the same here: the ID's QP is the application's)")
    boolean selfQp;

    @Mixin
    Mixins.Ip ip;

    @Mixin
    Mixins.UdpPort udpPort;

    @Mixin
    Mixins.Icrc icrc;

    @Mixin
    Mixins.Pcap pcap;

    @Override
    protected int execute() throws UsageException {
        RpingConfig config = config();
        try {
            return new Rping(config, out, err).run();
        } catch (RuntimeException e) {
            err.println("rnic rping: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    RpingConfig config() throws UsageException {
        if (server == client) {
            throw new UsageException("choose -s (server) or -c (client)");
        }
        if (persistent) {
            throw new UsageException("-P (persistent server) is not supported");
        }
        if (!server && addr == null) {
            throw new UsageException("a client needs -a, the server's address");
        }
        InetAddress address = address(addr != null ? addr : "0.0.0.0");
        InetAddress source = this.source != null ? address(this.source) : null;
        String ip = this.ip.ip != null ? this.ip.ip
                : server ? (address.isAnyLocalAddress() ? "127.0.0.2" : address.getHostAddress())
                : source != null ? source.getHostAddress() : "127.0.0.3";
        int port = range("--port", this.port, 0, 65535);
        int count = range("--count", this.count, 0, Integer.MAX_VALUE);
        int size = range("--size", this.size, RpingConfig.MIN_SIZE, RpingConfig.MAX_SIZE);
        return new RpingConfig(server, address, source, ip, port, count, size, verbose, validate, debug,
                udpPort.udpPort, icrc.policy(), pcap.pcap);
    }

    private static InetAddress address(String text) throws UsageException {
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new UsageException("getaddrinfo failed - invalid hostname or IP address: " + text);
        }
    }
}
