package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Equal-cost shortest paths, as HPCC's third.cc installs them, and ECMP's choice among them. */
class RoutingTableTest {
    private static final long G100 = 100_000_000_000L;

    /** The number of distinct shortest paths from {@code node} to {@code dst}, following every candidate. */
    private static long paths(RoutingTable r, Topology t, int node, int dst) {
        if (node == dst) {
            return 1;
        }
        long n = 0;
        for (int i = 0; i < r.candidateCount(node, dst); i++) {
            n += paths(r, t, t.neighbour(node, r.candidate(node, dst, i)), dst);
        }
        return n;
    }

    /** Follows choose() with a fixed hash from src; returns the hops taken to dst, or -1 if it got stuck. */
    private static int walk(RoutingTable r, Topology t, int src, int dst, int hash) {
        int node = src;
        for (int hops = 0; hops <= t.nodeCount(); hops++) {
            if (node == dst) {
                return hops;
            }
            int port = r.choose(node, dst, hash);
            if (port < 0) {
                return -1;
            }
            node = t.neighbour(node, port);
        }
        return -1;
    }

    @Test
    void everyHostReachesEveryOtherOverAFatTreeByShortestPaths() {
        for (int k : new int[] {4, 8}) {
            Topology t = Topology.fatTree(k, G100, 1_000);
            RoutingTable r = RoutingTable.build(t);
            int half = k / 2;
            for (int a : t.hosts()) {
                for (int b : t.hosts()) {
                    if (a == b) {
                        continue;
                    }
                    boolean sameEdge = a / half == b / half;
                    boolean samePod = a / (half * half) == b / (half * half);
                    int hops = sameEdge ? 2 : samePod ? 4 : 6;
                    assertEquals(hops, r.distance(a, b), a + "->" + b);
                    for (int hash : new int[] {0, 1, -1, 0x9E3779B9, a * 31 + b}) {
                        assertEquals(hops, walk(r, t, a, b, hash), a + "->" + b + " hash " + hash);
                    }
                }
            }
        }
    }

    /** A k-ary fat tree has (k/2)^2 shortest paths between pods, k/2 within a pod, 1 under one edge switch. */
    @Test
    void allEqualCostNextHopsAreInstalledSoAFatTreeHasItsClosedFormPathCounts() {
        for (int k : new int[] {4, 8}) {
            Topology t = Topology.fatTree(k, G100, 1_000);
            RoutingTable r = RoutingTable.build(t);
            int half = k / 2;
            int perPod = half * half;
            assertEquals(1, paths(r, t, 0, 1), "same edge switch");
            assertEquals(half, paths(r, t, 0, half), "same pod, other edge switch");
            assertEquals((long) half * half, paths(r, t, 0, perPod), "other pod");
            assertEquals((long) half * half, paths(r, t, perPod - 1, t.hostCount() - 1));
        }
    }

    @Test
    void aLeafSpineWithAnUplinkDownRoutesAroundIt() {
        // 2 leaves, 2 spines, 2 hosts per leaf: hosts 0,1 on leaf 4; hosts 2,3 on leaf 5; spines 6, 7.
        Topology t = Topology.leafSpine(2, 2, 2, G100, G100, 1_000);
        RoutingTable up = RoutingTable.build(t);
        assertEquals(2, up.candidateCount(4, 2), "both spines lead to leaf 5");
        int leaf5ToSpine6 = t.linkOf(5, 2); // leaf port H + 0 faces spine 0 (node 6)
        assertEquals(6, t.neighbour(5, 2));
        RoutingTable down = up.without(leaf5ToSpine6);
        assertTrue(down.isDown(leaf5ToSpine6));
        assertEquals(1, down.candidateCount(4, 2), "only spine 7 still reaches leaf 5");
        assertEquals(7, t.neighbour(4, down.choose(4, 2, 0)));
        for (int hash = -50; hash < 50; hash++) {
            assertEquals(4, walk(down, t, 0, 2, hash));
            assertEquals(4, walk(down, t, 2, 0, hash), "and back");
        }
        // Spine 6 lost its link to leaf 5: it goes down to leaf 4, up to spine 7, down to leaf 5.
        assertEquals(4, down.distance(6, 2));
        assertEquals(4, t.neighbour(6, down.choose(6, 2, 0)));
        // The link comes back: the original routes return.
        RoutingTable again = down.with(leaf5ToSpine6, true);
        assertEquals(2, again.candidateCount(4, 2));
    }

    @Test
    void aStarWithAHostLinkDownCannotReachThatHost() {
        Topology t = Topology.star(4, G100, 1_000);
        BitSet down = new BitSet();
        down.set(2); // host 2's link
        RoutingTable r = RoutingTable.build(t, down);
        assertEquals(-1, r.choose(4, 2, 7), "the switch has no port to host 2");
        assertEquals(-1, r.choose(0, 2, 7), "nor has host 0");
        assertEquals(-1, r.distance(0, 2));
        assertEquals(-1, r.choose(2, 2, 0), "a host is no hop from itself");
        assertEquals(3, r.choose(4, 3, 7), "the others are still reachable");
        assertEquals(-1, r.choose(0, 4, 7), "a switch is not a destination");
    }

    /**
     * HPCC's third.cc never expands a host in its search ("we do not want packets to go through
     * host as middle point"): a host with links to two switches does not join them.
     */
    @Test
    void trafficNeverTransitsAHost() {
        // Switches 3 and 4; host 0 on both; host 1 on switch 3; host 2 on switch 4.
        Topology t = Topology.of(5, new int[] {3, 4}, List.of(
                new Topology.Link(0, 3, G100, 1_000, 0),
                new Topology.Link(0, 4, G100, 1_000, 0),
                new Topology.Link(1, 3, G100, 1_000, 0),
                new Topology.Link(2, 4, G100, 1_000, 0)));
        RoutingTable r = RoutingTable.build(t);
        assertEquals(-1, r.choose(1, 2, 0), "1 cannot reach 2 through host 0");
        assertEquals(-1, r.choose(3, 2, 0));
        assertEquals(2, r.distance(1, 0), "but host 0 itself is reachable");
        assertEquals(2, r.candidateCount(0, 1) + r.candidateCount(0, 2), "host 0 reaches each side on its own link");
    }

    /** HPCC picks hash % nexthops.size() on an unsigned hash; Java's % of a negative int would be negative. */
    @Test
    void theChoiceIsTheUnsignedHashModuloTheCandidateCount() {
        // 2 leaves, 4 spines, 1 host each: leaf 2 reaches host 1 over ports 1..4 (spines 0..3).
        Topology t = Topology.leafSpine(2, 4, 1, G100, G100, 1_000);
        RoutingTable r = RoutingTable.build(t);
        assertEquals(4, r.candidateCount(2, 1));
        for (int i = 0; i < 4; i++) {
            assertEquals(1 + i, r.candidate(2, 1, i), "candidates in ascending port order");
        }
        assertEquals(1 + 0, r.choose(2, 1, 0));
        assertEquals(1 + 1, r.choose(2, 1, 5));
        assertEquals(1 + 3, r.choose(2, 1, -1), "0xFFFFFFFF mod 4 = 3");
        assertEquals(1 + 2, r.choose(2, 1, -2), "0xFFFFFFFE mod 4 = 2");
        assertEquals(1 + 0, r.choose(2, 1, Integer.MIN_VALUE), "0x80000000 mod 4 = 0");
    }

    @Test
    void chooseAllocatesNothing() {
        Topology t = Topology.fatTree(4, G100, 1_000);
        RoutingTable r = RoutingTable.build(t);
        int[] sink = new int[1];
        Allocations.assertNonePerCall(200_000, () -> sink[0] += r.choose(16, sink[0] & 15, sink[0]));
    }
}
