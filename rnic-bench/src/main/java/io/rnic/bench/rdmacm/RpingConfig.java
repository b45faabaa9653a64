package io.rnic.bench.rdmacm;

import io.rnic.verbs.IcrcPolicy;
import java.net.InetAddress;

/**
 * What an {@code rnic rping} run does: rdma-core's {@code rping} options.
 *
 * @param server    {@code -s} (else {@code -c})
 * @param address   {@code -a}: the server's address (the one it binds on, the one a client connects to)
 * @param source    {@code -I}: the client's source address, or {@code null}
 * @param hcaIp     the emulated HCA's address ({@code --ip})
 * @param port      {@code -p}: the rdma_cm port (default 7174)
 * @param count     {@code -C}: pings (0: until interrupted)
 * @param size      {@code -S}: the ping buffer's size
 * @param verbose   {@code -v}: print the ping data
 * @param validate  {@code -V}: check the echoed data
 * @param debug     {@code -d}: debug lines
 * @param udpPort   the HCA's RoCE UDP port
 * @param icrc      the ICRC policy toward a kernel peer
 * @param pcap      where to capture the HCA's packets ({@code --pcap}), or {@code null}
 */
public record RpingConfig(boolean server, InetAddress address, InetAddress source, String hcaIp, int port, int count,
                          int size, boolean verbose, boolean validate, boolean debug, int udpPort, IcrcPolicy icrc,
                          java.nio.file.Path pcap) {
    /** rping's {@code RPING_MIN_BUFSIZE}: room for "rdma-ping-%d: " with the largest int. */
    public static final int MIN_SIZE = 26;
    /** rping's {@code RPING_BUFSIZE - 1}. */
    public static final int MAX_SIZE = 64 * 1024 - 1;
}
