package io.rnic.transport.fabric;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Shortest-path next hops with every equal-cost choice, as HPCC's ns-3 driver computes them
 * ({@code third.cc}, {@code CalculateRoute}): a breadth-first search from every destination
 * host over the links that are up; a node at distance d+1 from the host gets, as next hops,
 * its ports towards every neighbour at distance d. Hosts are never expanded, so no route
 * passes through a host. The candidates of a (node, destination) are in ascending port order.
 *
 * <p>Stored as flat int arrays (compressed rows over node × destination host). {@link #choose}
 * is the per-packet call and allocates nothing. A link going down is a new table
 * ({@link #without}), built off the per-packet path.
 */
final class RoutingTable {
    private final Topology topology;
    private final BitSet down;
    /** Host index of each node, or -1 for a switch. */
    private final int[] hostIndex;
    private final int hostCount;
    /** Candidates of (node, host h) are ports[start[node*H + h] .. start[node*H + h + 1]). */
    private final int[] start;
    private final int[] ports;
    /** Hop count from each node to each host, or -1 if unreachable. */
    private final int[] distance;

    private RoutingTable(Topology topology, BitSet down) {
        this.topology = topology;
        this.down = (BitSet) down.clone();
        int n = topology.nodeCount();
        int[] hosts = topology.hosts();
        hostCount = hosts.length;
        hostIndex = new int[n];
        Arrays.fill(hostIndex, -1);
        for (int h = 0; h < hosts.length; h++) {
            hostIndex[hosts[h]] = h;
        }
        long cells = (long) n * hostCount;
        if (cells > Integer.MAX_VALUE - 1) {
            throw new IllegalArgumentException(topology + " is too large for one routing table: " + cells + " (node, host) pairs");
        }
        distance = new int[(int) cells];
        Arrays.fill(distance, -1);
        start = new int[(int) cells + 1];
        int[] dist = new int[n];
        int[] queue = new int[n];
        // Pass 1: distances (one BFS per destination host); pass 2 counts then fills ports.
        for (int h = 0; h < hostCount; h++) {
            bfs(hosts[h], dist, queue);
            for (int v = 0; v < n; v++) {
                distance[v * hostCount + h] = dist[v];
            }
        }
        int total = 0;
        for (int v = 0; v < n; v++) {
            for (int h = 0; h < hostCount; h++) {
                start[v * hostCount + h] = total;
                total += countNextHops(v, h);
            }
        }
        start[(int) cells] = total;
        ports = new int[total];
        for (int v = 0; v < n; v++) {
            for (int h = 0; h < hostCount; h++) {
                int at = start[v * hostCount + h];
                int d = distance[v * hostCount + h];
                if (d <= 0) {
                    continue;
                }
                for (int p = 0; p < topology.portCount(v); p++) {
                    if (isNextHop(v, p, h, d)) {
                        ports[at++] = p;
                    }
                }
            }
        }
    }

    /** The routes of {@code topology} with every link up. */
    static RoutingTable build(Topology topology) {
        return new RoutingTable(topology, new BitSet());
    }

    /** The routes of {@code topology} avoiding the links whose indices are set in {@code downLinks}. */
    static RoutingTable build(Topology topology, BitSet downLinks) {
        if (downLinks.length() > topology.links().size()) {
            throw new IllegalArgumentException("link " + (downLinks.length() - 1) + " does not exist: " + topology + " has links 0.." + (topology.links().size() - 1));
        }
        return new RoutingTable(topology, downLinks);
    }

    /** This table's topology with link {@code linkIndex} also down (or back up, if {@code up}). */
    RoutingTable with(int linkIndex, boolean up) {
        if (linkIndex < 0 || linkIndex >= topology.links().size()) {
            throw new IllegalArgumentException("link " + linkIndex + " does not exist: " + topology + " has links 0.." + (topology.links().size() - 1));
        }
        BitSet d = (BitSet) down.clone();
        d.set(linkIndex, !up);
        return new RoutingTable(topology, d);
    }

    /** This table's topology with link {@code linkIndex} also down. */
    RoutingTable without(int linkIndex) {
        return with(linkIndex, false);
    }

    private void bfs(int host, int[] dist, int[] queue) {
        Arrays.fill(dist, -1);
        int head = 0;
        int tail = 0;
        dist[host] = 0;
        queue[tail++] = host;
        while (head < tail) {
            int v = queue[head++];
            for (int p = 0; p < topology.portCount(v); p++) {
                if (down.get(topology.linkOf(v, p))) {
                    continue;
                }
                int w = topology.neighbour(v, p);
                if (dist[w] < 0) {
                    dist[w] = dist[v] + 1;
                    // A host is reached but never expanded: traffic does not transit hosts.
                    if (!topology.isHost(w)) {
                        queue[tail++] = w;
                    }
                }
            }
        }
    }

    private int countNextHops(int v, int h) {
        int d = distance[v * hostCount + h];
        if (d <= 0) {
            return 0;
        }
        int c = 0;
        for (int p = 0; p < topology.portCount(v); p++) {
            if (isNextHop(v, p, h, d)) {
                c++;
            }
        }
        return c;
    }

    /**
     * Whether port {@code p} of {@code v} (at distance {@code d} from host {@code h}) leads one
     * hop closer: the neighbour is at distance d-1 and is the destination or a switch (the BFS
     * never expanded other hosts, so a host at distance d-1 that is not the destination is not
     * on a path).
     */
    private boolean isNextHop(int v, int p, int h, int d) {
        if (down.get(topology.linkOf(v, p))) {
            return false;
        }
        int w = topology.neighbour(v, p);
        int dw = distance[w * hostCount + h];
        return dw == d - 1 && (hostIndex[w] == h || !topology.isHost(w));
    }

    /**
     * The port on which {@code node} forwards a packet for host {@code dstHost}: the
     * candidate at {@code Integer.remainderUnsigned(hash, count)} among the equal-cost next
     * hops, as HPCC's switch picks {@code hash % nexthops.size()}. -1 if the host is
     * unreachable from {@code node}, is {@code node}, or is not a host. Allocation-free.
     *
     * @param node    a switch (or a host, whose candidates are its links towards the destination)
     * @param dstHost the destination's node id
     * @param hash    the flow's hash ({@link Murmur3}), or any value when spraying
     */
    int choose(int node, int dstHost, int hash) {
        int h = hostIndex[dstHost];
        if (h < 0) {
            return -1; // a switch is no destination: the caller drops (and counts) the packet
        }
        int cell = node * hostCount + h;
        int from = start[cell];
        int count = start[cell + 1] - from;
        if (count == 0) {
            return -1;
        }
        return ports[from + Integer.remainderUnsigned(hash, count)];
    }

    /** How many equal-cost next hops {@code node} has towards {@code dstHost} (0: unreachable, or there). */
    int candidateCount(int node, int dstHost) {
        int cell = cell(node, dstHost);
        return start[cell + 1] - start[cell];
    }

    /** The {@code i}th candidate port, in ascending port order. */
    int candidate(int node, int dstHost, int i) {
        int cell = cell(node, dstHost);
        int count = start[cell + 1] - start[cell];
        if (i < 0 || i >= count) {
            throw new IllegalArgumentException("node " + node + " has " + count + " next hops towards host " + dstHost + ", not " + i);
        }
        return ports[start[cell] + i];
    }

    /** Hops from {@code node} to host {@code dstHost}, or -1 if unreachable. */
    int distance(int node, int dstHost) {
        return distance[cell(node, dstHost)];
    }

    /** Whether link {@code linkIndex} is down in this table. */
    boolean isDown(int linkIndex) {
        return down.get(linkIndex);
    }

    Topology topology() {
        return topology;
    }

    private int cell(int node, int dstHost) {
        if (node < 0 || node >= topology.nodeCount()) {
            throw new IllegalArgumentException("node " + node + " does not exist");
        }
        if (dstHost < 0 || dstHost >= topology.nodeCount() || hostIndex[dstHost] < 0) {
            throw new IllegalArgumentException("node " + dstHost + " is not a host");
        }
        return node * hostCount + hostIndex[dstHost];
    }
}
