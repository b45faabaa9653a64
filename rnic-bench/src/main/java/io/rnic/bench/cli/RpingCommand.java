package io.rnic.bench.cli;

import io.rnic.bench.rdmacm.Rping;
import io.rnic.bench.rdmacm.RpingConfig;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * {@code rnic rping}: rdma-core's {@code rping} on an emulated HCA, connecting through the
 * connection manager (rdma_cm over QP1), interoperable with rdma-core's in both roles.
 */
public final class RpingCommand extends ParsedCommand {
    private final ArgParser parser = new ArgParser("rnic rping", "-s|-c [options]")
            .description("""
                    rdma-core's rping: a client and a server connect through rdma_cm (REQ/REP/RTU on QP1) and
                    ping with SEND, RDMA READ and RDMA WRITE, interoperable with rping (for example against
                    Linux Soft-RoCE). The server binds -a (its HCA's address unless --ip says otherwise); the
                    client connects to -a from --ip (or -I).""")
            .flag("-s", "--server", "server side")
            .flag("-c", "--client", "client side")
            .option("-a", "--addr", "ADDR", "the server's address")
            .option("-I", "--source", "ADDR", "the client's source address (its HCA's, unless --ip is given)")
            .option("-p", "--port", "PORT", "rdma_cm port (default 7174)")
            .option("-C", "--count", "COUNT", "ping count (default 0: until interrupted)")
            .option("-S", "--size", "SIZE", "ping data size (default 64, " + RpingConfig.MIN_SIZE + " to "
                    + RpingConfig.MAX_SIZE + ")")
            .flag("-v", "--verbose", "display ping data to stdout")
            .flag("-V", "--validate", "validate ping data")
            .flag("-d", "--debug", "debug printfs")
            .flag("-P", "--persistent", "persistent server (not supported)")
            .flag("-q", "--self-qp", "self-created, self-modified QP (the same here: the ID's QP is the application's)")
            .option(null, "--ip", "A.B.C.D", "address of this emulated HCA (default: -a on a server, -I or 127.0.0.3 on a "
                    + "client)")
            .option(null, "--udp-port", "N", "UDP port of the HCA (default 4791)")
            .option(null, "--icrc", "POLICY", "strict (default) or accept-unverifiable (against a kernel peer)")
            .option(null, "--pcap", "FILE", "capture this HCA's packets to FILE (check it with rnic decode)")
            .epilog("Exit status: 0 every ping done (a server: its client disconnected), 1 a failure, 2 bad options.");

    @Override
    public String name() {
        return "rping";
    }

    @Override
    public String summary() {
        return "rdma-core's rping over rdma_cm on an emulated HCA, interoperable with rping";
    }

    @Override
    protected ArgParser parser() {
        return parser;
    }

    @Override
    protected int execute(ParsedArgs args, PrintStream out, PrintStream err) throws UsageException {
        RpingConfig config = config(args);
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

    static RpingConfig config(ParsedArgs args) throws UsageException {
        boolean server = args.flag("--server");
        if (server == args.flag("--client")) {
            throw new UsageException("choose -s (server) or -c (client)");
        }
        if (args.flag("--persistent")) {
            throw new UsageException("-P (persistent server) is not supported");
        }
        if (!server && !args.has("--addr")) {
            throw new UsageException("a client needs -a, the server's address");
        }
        InetAddress address = address(args.has("--addr") ? args.value("--addr") : "0.0.0.0");
        InetAddress source = args.has("--source") ? address(args.value("--source")) : null;
        String ip = args.has("--ip") ? args.value("--ip")
                : server ? (address.isAnyLocalAddress() ? "127.0.0.2" : address.getHostAddress())
                : source != null ? source.getHostAddress() : "127.0.0.3";
        int port = args.intValue("--port", 0, 65535).orElse(7174);
        int count = args.intValue("--count", 0, Integer.MAX_VALUE).orElse(0);
        int size = args.intValue("--size", RpingConfig.MIN_SIZE, RpingConfig.MAX_SIZE).orElse(64);
        int udpPort = args.intValue("--udp-port", 1, 65535).orElse(4791);
        return new RpingConfig(server, address, source, ip, port, count, size, args.flag("--verbose"),
                args.flag("--validate"), args.flag("--debug"), udpPort, WireOptions.icrc(args),
                args.has("--pcap") ? java.nio.file.Path.of(args.value("--pcap")) : null);
    }

    private static InetAddress address(String text) throws UsageException {
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new UsageException("getaddrinfo failed - invalid hostname or IP address: " + text);
        }
    }
}
