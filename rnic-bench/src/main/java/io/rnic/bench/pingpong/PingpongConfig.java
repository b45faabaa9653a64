package io.rnic.bench.pingpong;

import io.rnic.verbs.IcrcPolicy;
import io.rnic.verbs.PathMtu;

/**
 * One run of {@code rnic pingpong}: the program it behaves as and the options it takes.
 *
 * @param mode      which ibv_*_pingpong
 * @param server    the server to connect to, or {@code null} to be the server
 * @param ip        the address of this emulated HCA
 * @param tcpPort   the exchange's TCP port ({@code -p})
 * @param udpPort   the HCA's RoCEv2 port
 * @param size      bytes per message ({@code -s})
 * @param iters     iterations ({@code -n}; over all QPs for SRQ)
 * @param rxDepth   receives kept posted ({@code -r})
 * @param numQp     QPs ({@code -q}, SRQ only; 1 otherwise)
 * @param mtu       path MTU ({@code -m}; not for UD)
 * @param events    sleep on completion events ({@code -e})
 * @param validate  check the received buffer ({@code -c})
 * @param icrc      how received ICRCs are judged
 */
public record PingpongConfig(PingpongMode mode, String server, String ip, int tcpPort, int udpPort, int size, int iters,
                             int rxDepth, int numQp, PathMtu mtu, boolean events, boolean validate, IcrcPolicy icrc) {
    /** True for the side that waits for the other. */
    public boolean isServer() {
        return server == null;
    }
}
