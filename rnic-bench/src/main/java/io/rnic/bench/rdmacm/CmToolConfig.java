package io.rnic.bench.rdmacm;

import io.rnic.verbs.IcrcPolicy;
import java.net.InetAddress;

/**
 * What an {@code rnic ucmatose} or {@code rnic udaddy} run does: librdmacm's example programs'
 * options.
 *
 * @param server      no {@code -s}: wait for clients
 * @param destination {@code -s}: the server's address (a client), else {@code null}
 * @param bind        {@code -b}: the address to bind or resolve from, or {@code null}
 * @param hcaIp       the emulated HCA's address ({@code --ip})
 * @param port        the rdma_cm port (ucmatose {@code -p}, default 7471; udaddy's is 7174)
 * @param connections {@code -c}: connections
 * @param count       {@code -C}: messages each way per connection
 * @param size        {@code -S}: message size
 * @param udpPort     the HCA's RoCE UDP port
 * @param icrc        the ICRC policy toward a kernel peer
 * @param pcap        where to capture the HCA's packets ({@code --pcap}), or {@code null}
 */
public record CmToolConfig(boolean server, InetAddress destination, InetAddress bind, String hcaIp, int port,
                           int connections, int count, int size, int udpPort, IcrcPolicy icrc,
                           java.nio.file.Path pcap) {
}
