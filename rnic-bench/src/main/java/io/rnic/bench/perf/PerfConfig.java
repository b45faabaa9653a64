package io.rnic.bench.perf;

import io.rnic.transport.udp.HcaAgent;
import io.rnic.verbs.IcrcPolicy;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpType;
import io.rnic.verbs.WrOpcode;
import java.util.List;

/**
 * One {@code rnic perf} run, with perftest's meanings.
 *
 * @param test          the program ({@code write_bw}, ...)
 * @param sizes         message sizes, one result row each ({@code -s}, or all of {@code -a})
 * @param iterations    messages per QP and size ({@code -n})
 * @param durationSecs  run for this long instead of {@code iterations} ({@code -D}); 0 if not
 * @param qps           QPs per side ({@code -q})
 * @param txDepth       outstanding send work requests per QP ({@code -t})
 * @param rxDepth       receives posted per QP for SEND tests ({@code -r})
 * @param cqMod         a completion is requested every this many sends ({@code -Q})
 * @param mtu           path MTU ({@code -m})
 * @param type          the connection ({@code -c RC|UC|UD})
 * @param atomic        the atomic tests' operation ({@code -A}): CMP_AND_SWAP (perftest's default),
 *                      FETCH_AND_ADD, or ATOMIC_WRITE (an rnic extension: perftest 4.5 has none)
 * @param reportGbits   bandwidth in Gb/s rather than MB/s ({@code --report_gbits})
 * @param json          print JSON instead of perftest's table
 * @param server        the server to connect to, or null to be the server
 * @param loopback      both sides in this process
 * @param simWire       on the simulated network rather than UDP
 * @param seed          the simulated network's seed
 * @param serverIp      the server HCA's address
 * @param clientIp      the client HCA's address
 * @param udpPort       the RoCE UDP port
 * @param tcpPort       the TCP port of the parameter exchange ({@code -p})
 * @param icrc          ICRC policy
 * @param threading     how the HCA agents run
 * @param idle          how they idle
 * @param gso           whether UDP wires send GSO super-datagrams
 * @param warmupSecs    seconds of unreported traffic of the first size before the measurement
 *                      (the JIT's warm-up; perftest, being C, has none)
 * @param counters      print each side's HCA and wire counters to stderr at the end
 * @param rnrRetry      the RC QPs' RNR retry count ({@code --rnr_retry}; 7 = forever, 0 = an RNR NAK is fatal)
 * @param slowReceiverMicros the server re-posts each completed receive only this long after it
 *                      completed ({@code --slow-receiver}; 0: at once)
 * @param creditChannel SEND tests run on the credit-based Send/Recv channel ({@code --credit-channel})
 * @param rdmaCm        {@code -R}: exchange over an rdma_cm connection and connect the test QPs
 *                      through the connection manager, as perftest's {@code -R} does
 * @param cc            the HCAs' congestion control ({@code --cc}; none by default)
 */
public record PerfConfig(PerfTest test, List<Integer> sizes, int iterations, int durationSecs, int qps, int txDepth,
                         int rxDepth, int cqMod, PathMtu mtu, QpType type, WrOpcode atomic, boolean reportGbits,
                         boolean json, String server, boolean loopback, boolean simWire, long seed, String serverIp,
                         String clientIp, int udpPort, int tcpPort, IcrcPolicy icrc, HcaAgent.Threading threading,
                         HcaAgent.Idle idle, io.rnic.transport.udp.Gso gso, int warmupSecs,
                         boolean counters, int rnrRetry, long slowReceiverMicros, boolean creditChannel,
                         boolean rdmaCm, io.rnic.verbs.CongestionControlScheme cc) {
    public PerfConfig {
        sizes = List.copyOf(sizes);
        java.util.Objects.requireNonNull(cc, "cc");
    }

    /** perftest's sizes for {@code -a}: every power of two from 2 to 2^23. */
    public static List<Integer> allSizes() {
        java.util.ArrayList<Integer> l = new java.util.ArrayList<>();
        for (int s = 2; s <= 1 << 23; s <<= 1) {
            l.add(s);
        }
        return l;
    }

    public int maxSize() {
        return sizes.stream().mapToInt(Integer::intValue).max().orElse(0);
    }
}
