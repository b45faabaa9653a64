package io.rnic.bench.cli;

import io.rnic.bench.rdmacm.Cmatose;
import io.rnic.bench.rdmacm.CmToolConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code rnic ucmatose} and {@code rnic udaddy}: librdmacm's example programs on an emulated HCA,
 * with their options. They share all but the QP type and the port, so the shared options are
 * declared here and each program is a subclass ({@link Ucmatose}, {@link Udaddy}).
 */
public abstract class CmToolCommand extends RnicCommand {
    /** The exit statuses both programs document. */
    static final String EXIT_OK = "0:the test completed";
    /** The failure status both programs document. */
    static final String EXIT_FAILURE = "1:a failure";

    @Option(names = {"-s", "--server"}, paramLabel = "ADDR", description = "the server's address: run as the client")
    String serverAddress;

    @Option(names = {"-b", "--bind"}, paramLabel = "ADDR",
            description = "the address to bind (server) or connect from (client)")
    String bind;

    @Option(names = {"-C", "--count"}, paramLabel = "N", defaultValue = "10",
            description = "messages each way (default: ${DEFAULT-VALUE})")
    int count;

    @Option(names = {"-S", "--size"}, paramLabel = "N", defaultValue = "100",
            description = "message size (default: ${DEFAULT-VALUE})")
    int size;

    @Option(names = {"-f", "--format"}, paramLabel = "ip|name",
            description = "address format (ip or name; gid is not supported)")
    String format;

    @Mixin
    Mixins.Ip ip;

    @Mixin
    Mixins.UdpPort udpPort;

    @Mixin
    Mixins.Icrc icrc;

    @Mixin
    Mixins.Pcap pcap;

    /** librdmacm's ucmatose: RC connections through rdma_cm. */
    @Command(name = "ucmatose", description = {"librdmacm's ucmatose (RC over rdma_cm) on an emulated HCA", "",
        """
            librdmacm's ucmatose: -c RC connections through rdma_cm (REQ/REP/RTU, DREQ/DREP on \
            QP1); the server sends -C messages on each and the client answers them; \
            interoperable with ucmatose. Without -s it is the server.""", "",
        """
            Options follow ucmatose's: -s is the server's address (not rping's server flag), -c the \
            number of connections, -C the count and -S the size; the long options after them are \
            rnic's own. The address of this side's HCA is --ip, or -b if that is given."""},
            exitCodeList = {EXIT_OK, EXIT_FAILURE, RnicCommand.USAGE_ERROR_LINE, RnicCommand.INTERNAL_ERROR_LINE})
    public static final class Ucmatose extends CmToolCommand {
        @Option(names = {"-c", "--connections"}, paramLabel = "N", defaultValue = "1",
                description = "connections (default: ${DEFAULT-VALUE})")
        int connections;

        @Option(names = {"-p", "--port"}, paramLabel = "PORT", defaultValue = "7471",
                description = "rdma_cm port (default: ${DEFAULT-VALUE})")
        int port;

        @Option(names = {"-P", "--port-space"}, paramLabel = "tcp", description = "port space (tcp; ib is not supported)")
        String portSpace;

        @Override
        CmToolConfig config() throws UsageException {
            return config(false, portSpace, range("--connections", connections, 1, 1024), range("--port", port, 0, 65535));
        }

        @Override
        int run(CmToolConfig config) throws InterruptedException {
            return new Cmatose(config, out, err).run();
        }
    }

    /** librdmacm's udaddy: UD QPs resolved through SIDR. */
    @Command(name = "udaddy", description = {"librdmacm's udaddy (UD over rdma_cm, SIDR) on an emulated HCA", "",
        """
            librdmacm's udaddy: UD QPs connected through rdma_cm (SIDR_REQ/SIDR_REP on QP1), the \
            client sending -C datagrams with its QP number as immediate data and the server \
            answering each; interoperable with udaddy. Without -s it is the server, on port 7174.""", "",
        """
            Options follow udaddy's: -s is the server's address, -C the count and -S the size; the \
            long options after them are rnic's own. The address of this side's HCA is --ip, or -b if \
            that is given."""},
            exitCodeList = {EXIT_OK, EXIT_FAILURE, RnicCommand.USAGE_ERROR_LINE, RnicCommand.INTERNAL_ERROR_LINE})
    public static final class Udaddy extends CmToolCommand {
        /** udaddy's rdma_cm port (it has no option for it). */
        private static final int PORT = 7174;

        @Option(names = {"-c", "--connections"}, paramLabel = "N", defaultValue = "1",
                description = "connections (default: ${DEFAULT-VALUE}; udaddy here takes 1)")
        int connections;

        @Option(names = {"-P", "--port-space"}, paramLabel = "udp", description = "port space (udp; ipoib is not supported)")
        String portSpace;

        @Override
        CmToolConfig config() throws UsageException {
            return config(true, portSpace, range("--connections", connections, 1, 1), PORT);
        }

        @Override
        int run(CmToolConfig config) throws InterruptedException {
            return new io.rnic.bench.rdmacm.Udaddy(config, out, err).run();
        }
    }

    @Override
    protected final int execute() throws UsageException {
        CmToolConfig config = config();
        try {
            return run(config);
        } catch (RuntimeException e) {
            err.println("rnic " + spec.name() + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** The run the options describe. */
    abstract CmToolConfig config() throws UsageException;

    /** Runs the program; its exit status. */
    abstract int run(CmToolConfig config) throws InterruptedException;

    /** The run the shared options and the program's own describe. */
    CmToolConfig config(boolean ud, String portSpace, int connections, int port) throws UsageException {
        if (format != null && !format.equals("ip") && !format.equals("name")) {
            throw new UsageException("-f " + format + " is not supported: ip or name");
        }
        String space = portSpace != null ? portSpace : ud ? "udp" : "tcp";
        if (!space.equals(ud ? "udp" : "tcp")) {
            throw new UsageException("-P " + space + " is not supported: " + (ud ? "udp" : "tcp"));
        }
        boolean server = serverAddress == null;
        InetAddress destination = server ? null : address(serverAddress);
        InetAddress bind = this.bind != null ? address(this.bind) : null;
        String ip = this.ip.ip != null ? this.ip.ip
                : bind != null && !bind.isAnyLocalAddress() ? bind.getHostAddress() : server ? "127.0.0.2" : "127.0.0.3";
        int count = range("--count", this.count, 0, 1 << 16);
        int size = range("--size", this.size, 0, 1 << 24);
        return new CmToolConfig(server, destination, server && bind == null ? address("0.0.0.0") : bind, ip, port,
                connections, size == 0 ? 0 : count, size, udpPort.udpPort, icrc.policy(), pcap.pcap);
    }

    private static InetAddress address(String text) throws UsageException {
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new UsageException("rdma_getaddrinfo error: unknown host " + text);
        }
    }
}
