package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Topology builders, ports, addresses, and HPCC's topology file. */
class TopologyTest {
    private static final long G100 = 100_000_000_000L;
    private static final long G400 = 400_000_000_000L;

    /** Nodes reachable from {@code from} without passing through a host (an independent BFS). */
    private static boolean[] reachable(Topology t, int from) {
        boolean[] seen = new boolean[t.nodeCount()];
        ArrayDeque<Integer> q = new ArrayDeque<>();
        seen[from] = true;
        q.add(from);
        while (!q.isEmpty()) {
            int v = q.poll();
            if (v != from && t.isHost(v)) {
                continue;
            }
            for (int w : t.neighbours(v)) {
                if (!seen[w]) {
                    seen[w] = true;
                    q.add(w);
                }
            }
        }
        return seen;
    }

    private static void assertEveryHostReachesEveryOther(Topology t) {
        for (int h : t.hosts()) {
            boolean[] seen = reachable(t, h);
            for (int g : t.hosts()) {
                assertTrue(seen[g], "host " + h + " cannot reach host " + g);
            }
        }
    }

    @Test
    void aStarIsNHostsOnOneSwitchWithSwitchPortIFacingHostI() {
        Topology t = Topology.star(5, G100, 1_000);
        assertEquals(6, t.nodeCount());
        assertArrayEquals(new int[] {0, 1, 2, 3, 4}, t.hosts());
        assertArrayEquals(new int[] {5}, t.switches());
        assertEquals(5, t.links().size());
        assertEquals(5, t.portCount(5));
        for (int i = 0; i < 5; i++) {
            assertEquals(i, t.neighbour(5, i));
            assertEquals(1, t.portCount(i));
            assertEquals(5, t.neighbour(i, 0));
            assertEquals(i, t.peerPort(i, 0), "host i's port 0 arrives on the switch's port i");
            assertEquals(0, t.peerPort(5, i));
        }
        assertEveryHostReachesEveryOther(t);
    }

    @Test
    void aDumbbellJoinsTwoSwitchesByOneBottleneck() {
        Topology t = Topology.dumbbell(3, G100, 25_000_000_000L, 500);
        assertEquals(6, t.hostCount());
        assertArrayEquals(new int[] {6, 7}, t.switches());
        assertEquals(7, t.links().size());
        Topology.Link bottleneck = t.links().get(6);
        assertEquals(new Topology.Link(6, 7, 25_000_000_000L, 500, 0), bottleneck);
        assertEquals(7, t.neighbour(6, 3), "port n of each switch is the bottleneck");
        assertEquals(6, t.neighbour(7, 3));
        assertEquals(6, t.neighbour(0, 0));
        assertEquals(7, t.neighbour(3, 0));
        assertEveryHostReachesEveryOther(t);
    }

    @Test
    void aLeafSpineLinksEveryLeafToEverySpine() {
        Topology t = Topology.leafSpine(4, 2, 3, G100, G400, 1_000);
        assertEquals(12, t.hostCount());
        assertEquals(6, t.switchCount());
        assertEquals(12 + 4 * 2, t.links().size());
        int firstLeaf = 12;
        int firstSpine = 16;
        for (int l = 0; l < 4; l++) {
            int leaf = firstLeaf + l;
            assertEquals(3 + 2, t.portCount(leaf));
            for (int h = 0; h < 3; h++) {
                assertEquals(l * 3 + h, t.neighbour(leaf, h));
            }
            for (int s = 0; s < 2; s++) {
                assertEquals(firstSpine + s, t.neighbour(leaf, 3 + s), "leaf port H + s faces spine s");
                assertEquals(G400, t.links().get(t.linkOf(leaf, 3 + s)).bitsPerSecond());
            }
        }
        for (int s = 0; s < 2; s++) {
            for (int l = 0; l < 4; l++) {
                assertEquals(firstLeaf + l, t.neighbour(firstSpine + s, l), "spine port l faces leaf l");
            }
        }
        assertEquals(G100, t.links().get(0).bitsPerSecond());
        assertEveryHostReachesEveryOther(t);
    }

    @Test
    void aFatTreeOfK4Has16HostsAnd20Switches() {
        Topology t = Topology.fatTree(4, G100, 1_000);
        assertEquals(16, t.hostCount());
        assertEquals(20, t.switchCount());
        assertEquals(3 * 16, t.links().size(), "k^3/4 host links, k^3/4 edge-agg, k^3/4 agg-core");
        for (int s : t.switches()) {
            assertEquals(4, t.portCount(s), "every switch of a k-ary fat tree has k ports");
        }
        assertEveryHostReachesEveryOther(t);
    }

    @Test
    void aFatTreeOfK8Has128HostsAnd80Switches() {
        Topology t = Topology.fatTree(8, G100, 1_000);
        assertEquals(128, t.hostCount());
        assertEquals(80, t.switchCount());
        assertEquals(3 * 128, t.links().size());
        for (int s : t.switches()) {
            assertEquals(8, t.portCount(s));
        }
        assertEveryHostReachesEveryOther(t);
    }

    @Test
    void buildersRejectImpossibleShapesSayingWhy() {
        assertEquals("a fat tree's k must be even and between 2 and 128, got 5",
                assertThrows(IllegalArgumentException.class, () -> Topology.fatTree(5, G100, 1_000)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Topology.star(1, G100, 1_000));
        assertThrows(IllegalArgumentException.class, () -> Topology.dumbbell(0, G100, G100, 1_000));
        assertThrows(IllegalArgumentException.class, () -> Topology.leafSpine(2, 0, 2, G100, G100, 1_000));
        assertThrows(IllegalArgumentException.class, () -> Topology.star(4, 0, 1_000));
        assertThrows(IllegalArgumentException.class, () -> Topology.star(4, G100, -1));
        assertThrows(IllegalArgumentException.class, () -> new Topology.Link(1, 1, G100, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Topology.Link(0, 1, G100, 0, 1.5));
        assertThrows(IllegalArgumentException.class, () -> Topology.of(2, new int[] {2}, List.of()));
        assertThrows(IllegalArgumentException.class, () -> Topology.of(2, new int[] {0, 0}, List.of()));
        assertThrows(IllegalArgumentException.class, () -> Topology.of(2, new int[] {0}, List.of(new Topology.Link(0, 2, G100, 0, 0))));
    }

    @Test
    void hostAddressesAreHpccsElevenDotIdOverAndModulo256DotOne() {
        assertEquals("11.0.0.1", Topology.hostAddress(0).getHostAddress());
        assertEquals("11.0.5.1", Topology.hostAddress(5).getHostAddress());
        assertEquals("11.1.44.1", Topology.hostAddress(300).getHostAddress());
        assertEquals("11.255.255.1", Topology.hostAddress(65_535).getHostAddress());
        assertEquals(0x0B00_0001, Topology.hostAddressBits(0));
        assertEquals(0x0B01_2C01, Topology.hostAddressBits(300));
        assertEquals(300, Topology.nodeOfAddress(0x0B01_2C01));
        assertEquals(-1, Topology.nodeOfAddress(0x0A01_2C01), "10.x is not a host address");
        assertEquals(-1, Topology.nodeOfAddress(0x0B01_2C02), "11.x.y.2 is not a host address");
        assertThrows(IllegalArgumentException.class, () -> Topology.hostAddress(65_536));
        assertThrows(IllegalArgumentException.class, () -> Topology.hostAddress(-1));
    }

    // ---------------------------------------------------------------------------------------
    // HPCC's topology file

    /** In the shape of HPCC's mix/topology.txt: unread links and an explanation after the last link. */
    private static final String SMALL = String.join("\n",
            "4 1 3",
            "0",
            "0 1 100Gbps 0.001ms 0",
            "0 2 25Gbps 1000ns 0.01",
            "0 3 400Gbps 2us 0.000000",
            "0 4 25Gbps 0.001ms 0",
            "",
            "First line: total node #, switch node #, link #",
            "Second line: switch node IDs...",
            "src0 dst0 rate delay error_rate",
            "");

    @Test
    void anHpccFileHonoursAllFiveLinkFieldsAndIgnoresWhatFollowsTheLastLink() throws IOException {
        Topology t = Topology.readHpcc(new StringReader(SMALL));
        assertEquals(4, t.nodeCount());
        assertArrayEquals(new int[] {0}, t.switches());
        assertArrayEquals(new int[] {1, 2, 3}, t.hosts(), "node ids are kept as in the file");
        assertEquals(List.of(
                new Topology.Link(0, 1, G100, 1_000, 0),
                new Topology.Link(0, 2, 25_000_000_000L, 1_000, 0.01),
                new Topology.Link(0, 3, G400, 2_000, 0)), t.links());
    }

    @Test
    void switchIdsMayWrapOntoMoreLines() throws IOException {
        Topology t = Topology.readHpcc(new StringReader("5 2 3\n3\n4\n0 3 1G 1ns 0\n1 3 1G 1ns 0\n3 4 1G 1ns 0\n"));
        assertArrayEquals(new int[] {3, 4}, t.switches());
    }

    private static String error(String file) {
        return assertThrows(IllegalArgumentException.class, () -> Topology.readHpcc(new StringReader(file))).getMessage();
    }

    @Test
    void aBadHpccFileIsRejectedNamingTheLine() {
        assertEquals("line 3: node 7 does not exist: ids are 0..3", error("4 1 2\n0\n0 7 1G 1ns 0\n0 1 1G 1ns 0\n"));
        assertEquals("line 4: link 1-1 joins node 1 to itself", error("4 1 2\n0\n0 1 1G 1ns 0\n1 1 1G 1ns 0\n"));
        assertEquals("the file ends after 1 of the 2 links its first line announces", error("4 1 2\n0\n0 1 1G 1ns 0\n"));
        assertEquals("line 2: switch id 9 is not a node: ids are 0..3", error("4 1 1\n9\n0 1 1G 1ns 0\n"));
        assertEquals("line 2: switch id 0 is listed twice", error("4 2 1\n0 0\n0 1 1G 1ns 0\n"));
        assertEquals("line 2: expected 1 switch ids, found more: '1'", error("4 1 1\n0 1\n0 1 1G 1ns 0\n"));
        assertEquals("line 1: switch count 5 must be between 0 and the node count 4", error("4 5 1\n0\n"));
        assertTrue(error("4 1 1\n0\n0 1 100Xbps 1ns 0\n").startsWith("line 3: '100Xbps' is not a rate"));
        assertTrue(error("4 1 1\n0\n0 1 1G 1 0\n").startsWith("line 3: '1' is not a time"));
        assertEquals("line 3: error rate 2 is not a probability in [0, 1]", error("4 1 1\n0\n0 1 1G 1ns 2\n"));
        assertEquals("line 3: a link is 'src dst rate delay error_rate', found 4 fields: '0 1 1G 1ns'", error("4 1 1\n0\n0 1 1G 1ns\n"));
        assertEquals("line 1: the node count 'x' is not a whole number", error("x 1 1\n"));
        assertEquals("the file ends before the switch count", error("4"));
    }

    /**
     * HPCC's simulation/mix/fat.txt, generated from its structure: 320 hosts (0-319) on 20 ToRs
     * (320-339, 16 hosts each, 100Gbps), 5 pods of 4 ToRs and 4 aggregation switches (340-359),
     * each ToR linked to the 4 aggregations of its pod and aggregation j of a pod to cores
     * 360+4j..363+4j (400Gbps), all 1000ns, error 0.000000, and a blank last line.
     */
    static String hpccFatTxt() {
        StringBuilder b = new StringBuilder("376 56 480\n");
        for (int s = 320; s <= 375; s++) {
            b.append(s).append(s < 375 ? " " : "\n");
        }
        for (int h = 0; h < 320; h++) {
            b.append(h).append(' ').append(320 + h / 16).append(" 100Gbps 1000ns 0.000000\n");
        }
        for (int tor = 0; tor < 20; tor++) {
            for (int j = 0; j < 4; j++) {
                b.append(320 + tor).append(' ').append(340 + 4 * (tor / 4) + j).append(" 400Gbps 1000ns 0.000000\n");
            }
        }
        for (int agg = 0; agg < 20; agg++) {
            for (int c = 0; c < 4; c++) {
                b.append(340 + agg).append(' ').append(360 + 4 * (agg % 4) + c).append(" 400Gbps 1000ns 0.000000\n");
            }
        }
        return b.append('\n').toString();
    }

    /**
     * The SHA-256 of HPCC's simulation/mix/fat.txt at commit 9f4be2a9 of
     * alibaba-edu/High-Precision-Congestion-Control. The file is GPL-2.0 (that repository's
     * simulation/LICENSE), so rnic does not ship it; the test generates it and proves the copy
     * is byte-identical.
     */
    private static final String HPCC_FAT_TXT_SHA256 = "e8e2d965071b33fb29e3b58e9368dd26434aebdc1f90fc40883008a2c76b960e";

    @Test
    void hpccsFatTxtLoadsAs320HostsAnd56SwitchesWith100GAnd400GLinks(@TempDir Path dir) throws IOException, NoSuchAlgorithmException {
        String text = hpccFatTxt();
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII));
        assertEquals(HPCC_FAT_TXT_SHA256, HexFormat.of().formatHex(sha), "the generated copy is HPCC's file, byte for byte");
        Path file = dir.resolve("fat.txt");
        Files.writeString(file, text, StandardCharsets.US_ASCII);
        Topology t = Topology.readHpcc(file);
        assertEquals(376, t.nodeCount());
        assertEquals(320, t.hostCount());
        assertEquals(56, t.switchCount());
        assertEquals(480, t.links().size());
        long hostLinks = t.links().stream().filter(l -> t.isHost(l.a()) || t.isHost(l.b())).count();
        assertEquals(320, hostLinks);
        for (Topology.Link l : t.links()) {
            boolean hostLink = t.isHost(l.a()) || t.isHost(l.b());
            assertEquals(hostLink ? G100 : G400, l.bitsPerSecond());
            assertEquals(1_000, l.delayNanos());
            assertEquals(0.0, l.lossRate());
        }
        for (int tor = 320; tor < 340; tor++) {
            assertEquals(20, t.portCount(tor), "16 hosts and 4 uplinks per ToR");
        }
        for (int core = 360; core < 376; core++) {
            assertEquals(5, t.portCount(core), "each core reaches one aggregation switch per pod");
        }
        assertFalse(t.isHost(320));
        assertEveryHostReachesEveryOther(t);
    }

    @Test
    void aMissingTopologyFileIsAnIoErrorNamingIt(@TempDir Path dir) {
        assertThrows(IOException.class, () -> Topology.readHpcc(dir.resolve("none.txt")));
    }

    @Test
    void anErrorInATopologyFileNamesTheFileAndTheLine(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.txt");
        Files.writeString(file, "4 1 1\n0\n0 0 1G 1ns 0\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Topology.readHpcc(file));
        assertEquals(file + ": line 3: link 0-0 joins node 0 to itself", e.getMessage());
    }
}
