package io.rnic.bench.cli;

import io.rnic.bench.rdmacm.Cmatose;
import io.rnic.bench.rdmacm.CmToolConfig;
import io.rnic.bench.rdmacm.Udaddy;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * {@code rnic ucmatose} and {@code rnic udaddy}: librdmacm's example programs on an emulated HCA,
 * with their options (one command class: they share all but the QP type and the port).
 */
public final class CmToolCommand extends ParsedCommand {
    private final boolean ud;
    private final ArgParser parser;

    /**
     * The command for one of the two programs.
     *
     * @param ud true for udaddy, false for ucmatose
     */
    public CmToolCommand(boolean ud) {
        this.ud = ud;
        String name = ud ? "udaddy" : "ucmatose";
        ArgParser p = new ArgParser("rnic " + name, "[-s server_address] [options]")
                .description(ud ? """
                        librdmacm's udaddy: UD QPs connected through rdma_cm (SIDR_REQ/SIDR_REP on QP1), the
                        client sending -C datagrams with its QP number as immediate data and the server
                        answering each; interoperable with udaddy. Without -s it is the server, on port 7174."""
                        : """
                        librdmacm's ucmatose: -c RC connections through rdma_cm (REQ/REP/RTU, DREQ/DREP on
                        QP1); the server sends -C messages on each and the client answers them;
                        interoperable with ucmatose. Without -s it is the server.""")
                .option("-s", "--server", "ADDR", "the server's address: run as the client")
                .option("-b", "--bind", "ADDR", "the address to bind (server) or connect from (client)")
                .option("-c", "--connections", "N", "connections (default 1" + (ud ? "; udaddy here takes 1)" : ")"))
                .option("-C", "--count", "N", "messages each way (default 10)")
                .option("-S", "--size", "N", "message size (default 100)")
                .option("-f", "--format", "ip|name", "address format (ip or name; gid is not supported)");
        if (!ud) {
            p.option("-p", "--port", "PORT", "rdma_cm port (default 7471)")
                    .option("-P", "--port-space", "tcp", "port space (tcp; ib is not supported)");
        } else {
            p.option("-P", "--port-space", "udp", "port space (udp; ipoib is not supported)");
        }
        this.parser = p.option(null, "--ip", "A.B.C.D", "address of this emulated HCA (default -b, else 127.0.0.2 as "
                        + "server and 127.0.0.3 as client)")
                .option(null, "--udp-port", "N", "UDP port of the HCA (default 4791)")
                .option(null, "--icrc", "POLICY", "strict (default) or accept-unverifiable (against a kernel peer)")
                .option(null, "--pcap", "FILE", "capture this HCA's packets to FILE (check it with rnic decode)")
                .epilog("Exit status: 0 the test completed, 1 a failure, 2 bad options.");
    }

    @Override
    public String name() {
        return ud ? "udaddy" : "ucmatose";
    }

    @Override
    public String summary() {
        return ud ? "librdmacm's udaddy (UD over rdma_cm, SIDR) on an emulated HCA"
                : "librdmacm's ucmatose (RC over rdma_cm) on an emulated HCA";
    }

    @Override
    protected ArgParser parser() {
        return parser;
    }

    @Override
    protected int execute(ParsedArgs args, PrintStream out, PrintStream err) throws UsageException {
        CmToolConfig config = config(args);
        try {
            return ud ? new Udaddy(config, out, err).run() : new Cmatose(config, out, err).run();
        } catch (RuntimeException e) {
            err.println("rnic " + name() + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private CmToolConfig config(ParsedArgs args) throws UsageException {
        if (args.has("--format") && !args.value("--format").equals("ip") && !args.value("--format").equals("name")) {
            throw new UsageException("-f " + args.value("--format") + " is not supported: ip or name");
        }
        String space = args.has("--port-space") ? args.value("--port-space") : ud ? "udp" : "tcp";
        if (!space.equals(ud ? "udp" : "tcp")) {
            throw new UsageException("-P " + space + " is not supported: " + (ud ? "udp" : "tcp"));
        }
        boolean server = !args.has("--server");
        InetAddress destination = server ? null : address(args.value("--server"));
        InetAddress bind = args.has("--bind") ? address(args.value("--bind")) : null;
        String ip = args.has("--ip") ? args.value("--ip")
                : bind != null && !bind.isAnyLocalAddress() ? bind.getHostAddress() : server ? "127.0.0.2" : "127.0.0.3";
        int connections = args.intValue("--connections", 1, ud ? 1 : 1024).orElse(1);
        int count = args.intValue("--count", 0, 1 << 16).orElse(10);
        int size = args.intValue("--size", 0, 1 << 24).orElse(100);
        int port = ud ? 7174 : args.intValue("--port", 0, 65535).orElse(7471);
        int udpPort = args.intValue("--udp-port", 1, 65535).orElse(4791);
        return new CmToolConfig(server, destination, server && bind == null ? anyAddress() : bind, ip, port, connections, size == 0 ? 0 : count, size, udpPort,
                WireOptions.icrc(args), args.has("--pcap") ? java.nio.file.Path.of(args.value("--pcap")) : null);
    }

    private static InetAddress anyAddress() throws UsageException {
        return address("0.0.0.0");
    }

    private static InetAddress address(String text) throws UsageException {
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new UsageException("rdma_getaddrinfo error: unknown host " + text);
        }
    }
}
