package io.rnic.transport.fabric;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An immutable datacenter topology: nodes {@code 0..n-1}, each a {@link Kind#HOST} (one HCA
 * port) or a {@link Kind#SWITCH}, joined by full-duplex {@link Link}s that each have a rate, a
 * one-way propagation delay and a per-packet loss probability.
 *
 * <p><b>Ports.</b> A node's ports are its links in the order they appear in {@link #links()}:
 * port 0 is the first link that names the node, port 1 the next. So a topology file or builder
 * fixes every port number, and a run that names a port (a counter, a failed link) names the
 * same port every time.
 *
 * <p><b>Builders</b> number hosts first ({@code 0..H-1}), then switches, and list host links
 * first, so a host's only port is 0 and a switch's host-facing ports come before its uplinks.
 * {@link #readHpcc} keeps the node ids of the file.
 *
 * <p><b>Addresses.</b> {@link #hostAddress} numbers hosts as HPCC's ns-3 simulator does
 * ({@code simulation/scratch/third.cc}, {@code node_id_to_ip}): node {@code id} is
 * {@code 11.(id/256).(id%256).1}.
 */
public final class Topology {
    /** What a node is. */
    public enum Kind {
        /** An HCA port: traffic starts and ends here, and never passes through. */
        HOST,
        /** A switch: forwards between its ports. */
        SWITCH
    }

    /**
     * A full-duplex link between nodes {@code a} and {@code b}.
     *
     * @param a             one end
     * @param b             the other end
     * @param bitsPerSecond rate of each direction
     * @param delayNanos    one-way propagation delay
     * @param lossRate      probability that a packet crossing either direction is lost (HPCC's
     *                      {@code error_rate} column), in [0, 1]
     */
    public record Link(int a, int b, long bitsPerSecond, long delayNanos, double lossRate) {
        // Validates the values that need no topology: a link to itself, rates, delay, loss.
        public Link {
            if (a < 0 || b < 0) {
                throw new IllegalArgumentException("link " + a + "-" + b + ": node ids must not be negative");
            }
            if (a == b) {
                throw new IllegalArgumentException("link " + a + "-" + b + " joins node " + a + " to itself");
            }
            if (bitsPerSecond <= 0) {
                throw new IllegalArgumentException("link " + a + "-" + b + ": rate " + bitsPerSecond + " b/s must be more than 0");
            }
            if (delayNanos < 0) {
                throw new IllegalArgumentException("link " + a + "-" + b + ": delay " + delayNanos + " ns is negative");
            }
            if (!(lossRate >= 0 && lossRate <= 1)) {
                throw new IllegalArgumentException("link " + a + "-" + b + ": loss rate " + lossRate + " is not a probability in [0, 1]");
            }
        }

        /** The end that is not {@code node}. */
        public int other(int node) {
            if (node == a) {
                return b;
            }
            if (node == b) {
                return a;
            }
            throw new IllegalArgumentException("node " + node + " is not an end of link " + a + "-" + b);
        }
    }

    /** The most nodes a topology may have: far beyond any run a heap holds. */
    public static final int MAX_NODES = 1 << 20;

    private final Kind[] kinds;
    private final List<Link> links;
    private final int[] hosts;
    private final int[] switches;
    /** Ports of node n are portLink[portStart[n] .. portStart[n+1]). */
    private final int[] portStart;
    private final int[] portLink;
    private final int[] portNeighbour;
    /** The port number at the other end of each port. */
    private final int[] portPeerPort;

    private Topology(Kind[] kinds, List<Link> links) {
        this.kinds = kinds;
        this.links = List.copyOf(links);
        int n = kinds.length;
        int hostCount = 0;
        for (Kind k : kinds) {
            if (k == Kind.HOST) {
                hostCount++;
            }
        }
        hosts = new int[hostCount];
        switches = new int[n - hostCount];
        for (int i = 0, h = 0, s = 0; i < n; i++) {
            if (kinds[i] == Kind.HOST) {
                hosts[h++] = i;
            } else {
                switches[s++] = i;
            }
        }
        int[] degree = new int[n];
        for (Link l : this.links) {
            degree[l.a()]++;
            degree[l.b()]++;
        }
        portStart = new int[n + 1];
        for (int i = 0; i < n; i++) {
            portStart[i + 1] = portStart[i] + degree[i];
        }
        portLink = new int[portStart[n]];
        portNeighbour = new int[portStart[n]];
        portPeerPort = new int[portStart[n]];
        int[] next = new int[n];
        for (int li = 0; li < this.links.size(); li++) {
            Link l = this.links.get(li);
            int pa = next[l.a()]++;
            int pb = next[l.b()]++;
            int ia = portStart[l.a()] + pa;
            int ib = portStart[l.b()] + pb;
            portLink[ia] = li;
            portLink[ib] = li;
            portNeighbour[ia] = l.b();
            portNeighbour[ib] = l.a();
            portPeerPort[ia] = pb;
            portPeerPort[ib] = pa;
        }
    }

    /**
     * A topology of {@code nodeCount} nodes in which {@code switchIds} are switches and every
     * other node is a host, joined by {@code links} (which fix the port numbers, see the class
     * comment). Parallel links between the same two nodes are allowed (each is a port).
     *
     * @throws IllegalArgumentException if a switch id or link end is out of range, a switch is
     *         named twice, or there are no nodes
     */
    public static Topology of(int nodeCount, int[] switchIds, List<Link> links) {
        if (nodeCount <= 0 || nodeCount > MAX_NODES) {
            throw new IllegalArgumentException("a topology needs between 1 and " + MAX_NODES + " nodes, got " + nodeCount);
        }
        Kind[] kinds = new Kind[nodeCount];
        Arrays.fill(kinds, Kind.HOST);
        for (int s : switchIds) {
            if (s < 0 || s >= nodeCount) {
                throw new IllegalArgumentException("switch id " + s + " is not a node: ids are 0.." + (nodeCount - 1));
            }
            if (kinds[s] == Kind.SWITCH) {
                throw new IllegalArgumentException("switch id " + s + " is listed twice");
            }
            kinds[s] = Kind.SWITCH;
        }
        for (Link l : links) {
            if (l.a() >= nodeCount || l.b() >= nodeCount) {
                throw new IllegalArgumentException("link " + l.a() + "-" + l.b() + " names a node that does not exist: ids are 0.." + (nodeCount - 1));
            }
        }
        return new Topology(kinds, links);
    }

    // ---------------------------------------------------------------------------------------
    // Builders

    /**
     * {@code n} hosts on one switch: the incast topology. Hosts {@code 0..n-1}, switch {@code n},
     * whose port {@code i} faces host {@code i}.
     */
    public static Topology star(int n, long bitsPerSecond, long delayNanos) {
        if (n < 2 || n > MAX_NODES - 1) {
            throw new IllegalArgumentException("a star needs at least 2 hosts (and fewer than " + MAX_NODES + "), got " + n);
        }
        List<Link> links = new ArrayList<>(n);
        for (int h = 0; h < n; h++) {
            links.add(new Link(h, n, bitsPerSecond, delayNanos, 0));
        }
        return of(n + 1, new int[] {n}, links);
    }

    /**
     * Two switches joined by one bottleneck link, {@code n} hosts on each: hosts {@code 0..n-1}
     * on switch {@code 2n}, hosts {@code n..2n-1} on switch {@code 2n+1}. Each switch's port
     * {@code n} is the bottleneck.
     */
    public static Topology dumbbell(int n, long hostBitsPerSecond, long bottleneckBitsPerSecond, long delayNanos) {
        if (n < 1 || n > MAX_NODES / 2 - 1) {
            throw new IllegalArgumentException("a dumbbell needs at least 1 host on each side, got " + n);
        }
        int left = 2 * n;
        int right = 2 * n + 1;
        List<Link> links = new ArrayList<>(2 * n + 1);
        for (int h = 0; h < 2 * n; h++) {
            links.add(new Link(h, h < n ? left : right, hostBitsPerSecond, delayNanos, 0));
        }
        links.add(new Link(left, right, bottleneckBitsPerSecond, delayNanos, 0));
        return of(2 * n + 2, new int[] {left, right}, links);
    }

    /**
     * A two-tier Clos: {@code leaves} leaf switches with {@code hostsPerLeaf} hosts each, every
     * leaf linked to every one of {@code spines} spine switches. Hosts {@code 0..L·H-1} (host
     * {@code h} on leaf {@code h / H}), then the leaves, then the spines. A leaf's ports
     * {@code 0..H-1} face its hosts and port {@code H + s} faces spine {@code s}; a spine's
     * port {@code l} faces leaf {@code l}.
     */
    public static Topology leafSpine(int leaves, int spines, int hostsPerLeaf, long hostBitsPerSecond,
            long fabricBitsPerSecond, long delayNanos) {
        if (leaves < 1 || spines < 1 || hostsPerLeaf < 1) {
            throw new IllegalArgumentException("a leaf-spine needs at least 1 leaf, 1 spine and 1 host per leaf, got "
                    + leaves + " leaves, " + spines + " spines, " + hostsPerLeaf + " hosts per leaf");
        }
        long nodes = (long) leaves * hostsPerLeaf + leaves + spines;
        if (nodes > MAX_NODES) {
            throw new IllegalArgumentException("a leaf-spine of " + nodes + " nodes is more than " + MAX_NODES);
        }
        int hostCount = leaves * hostsPerLeaf;
        int firstLeaf = hostCount;
        int firstSpine = hostCount + leaves;
        List<Link> links = new ArrayList<>();
        for (int h = 0; h < hostCount; h++) {
            links.add(new Link(h, firstLeaf + h / hostsPerLeaf, hostBitsPerSecond, delayNanos, 0));
        }
        for (int l = 0; l < leaves; l++) {
            for (int s = 0; s < spines; s++) {
                links.add(new Link(firstLeaf + l, firstSpine + s, fabricBitsPerSecond, delayNanos, 0));
            }
        }
        int[] switchIds = new int[leaves + spines];
        for (int i = 0; i < switchIds.length; i++) {
            switchIds[i] = firstLeaf + i;
        }
        return of((int) nodes, switchIds, links);
    }

    /** {@link #fatTree(int, long, long, long)} with one rate for every link. */
    public static Topology fatTree(int k, long bitsPerSecond, long delayNanos) {
        return fatTree(k, bitsPerSecond, bitsPerSecond, delayNanos);
    }

    /**
     * The k-ary fat tree (Al-Fares, Loukissas and Vahdat, SIGCOMM 2008): {@code k} pods, each
     * with {@code k/2} edge and {@code k/2} aggregation switches; {@code (k/2)^2} core switches;
     * {@code k/2} hosts on each edge switch, so {@code k^3/4} hosts and {@code 5k^2/4} switches
     * (k=4: 16 and 20; k=8: 128 and 80). Every edge switch links to every aggregation switch
     * of its pod, and aggregation switch {@code j} of every pod links to cores
     * {@code j·k/2 .. j·k/2 + k/2 - 1}. Node ids: hosts (host {@code h} on edge {@code h/(k/2)}),
     * then edge switches pod by pod, then aggregation switches pod by pod, then cores.
     * Host links run at {@code hostBitsPerSecond}, the others at {@code fabricBitsPerSecond}.
     */
    public static Topology fatTree(int k, long hostBitsPerSecond, long fabricBitsPerSecond, long delayNanos) {
        if (k < 2 || k % 2 != 0 || k > 128) {
            throw new IllegalArgumentException("a fat tree's k must be even and between 2 and 128, got " + k);
        }
        int half = k / 2;
        int hostCount = k * half * half;
        int edges = k * half;
        int aggs = k * half;
        int cores = half * half;
        int firstEdge = hostCount;
        int firstAgg = firstEdge + edges;
        int firstCore = firstAgg + aggs;
        int nodes = firstCore + cores;
        List<Link> links = new ArrayList<>(3 * hostCount);
        for (int h = 0; h < hostCount; h++) {
            links.add(new Link(h, firstEdge + h / half, hostBitsPerSecond, delayNanos, 0));
        }
        for (int pod = 0; pod < k; pod++) {
            for (int e = 0; e < half; e++) {
                for (int a = 0; a < half; a++) {
                    links.add(new Link(firstEdge + pod * half + e, firstAgg + pod * half + a, fabricBitsPerSecond, delayNanos, 0));
                }
            }
        }
        for (int pod = 0; pod < k; pod++) {
            for (int a = 0; a < half; a++) {
                for (int c = 0; c < half; c++) {
                    links.add(new Link(firstAgg + pod * half + a, firstCore + a * half + c, fabricBitsPerSecond, delayNanos, 0));
                }
            }
        }
        int[] switchIds = new int[edges + aggs + cores];
        for (int i = 0; i < switchIds.length; i++) {
            switchIds[i] = firstEdge + i;
        }
        return of(nodes, switchIds, links);
    }

    // ---------------------------------------------------------------------------------------
    // HPCC's topology file

    /** {@link #readHpcc(Reader)} of a file, read as UTF-8 (the files are ASCII). */
    public static Topology readHpcc(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return readHpcc(r);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads the topology file format of HPCC's ns-3 simulator ({@code simulation/mix/topology.txt},
     * {@code fat.txt}; parsed by {@code third.cc}):
     * <ol>
     *   <li>{@code total_nodes switch_count link_count};</li>
     *   <li>the {@code switch_count} switch ids (every other id is a host), which may wrap onto
     *       more lines;</li>
     *   <li>{@code link_count} lines {@code src dst rate delay error_rate}, rate and delay with
     *       ns-3 units ({@code 100Gbps}, {@code 1000ns}, {@code 0.001ms}).</li>
     * </ol>
     * All five link fields are honoured: {@code error_rate} becomes the link's
     * {@link Link#lossRate()}. Blank lines are skipped; text after the last link line is ignored,
     * as {@code third.cc} ignores it (HPCC's own files end with an explanation). Node ids are
     * kept as in the file.
     *
     * @throws IllegalArgumentException naming the line, if a count or id is out of range, a
     *         switch is listed twice, a link joins a node to itself, a rate or delay does not
     *         parse, or the file ends early
     */
    public static Topology readHpcc(Reader reader) throws IOException {
        LineTokens in = new LineTokens(reader instanceof BufferedReader b ? b : new BufferedReader(reader));
        int nodes = in.nextInt("the node count");
        int headerLine = in.line;
        int switchCount = in.nextInt("the switch count");
        int linkCount = in.nextInt("the link count");
        if (nodes <= 0 || nodes > MAX_NODES) {
            throw new IllegalArgumentException("line " + headerLine + ": node count " + nodes + " must be between 1 and " + MAX_NODES);
        }
        if (switchCount < 0 || switchCount > nodes) {
            throw new IllegalArgumentException("line " + headerLine + ": switch count " + switchCount + " must be between 0 and the node count " + nodes);
        }
        if (linkCount < 0) {
            throw new IllegalArgumentException("line " + headerLine + ": link count " + linkCount + " is negative");
        }
        if (in.hasMoreOnLine()) {
            throw new IllegalArgumentException("line " + headerLine + ": expected 3 numbers (nodes, switches, links), found more: '" + in.restOfLine() + "'");
        }
        int[] switchIds = new int[switchCount];
        boolean[] isSwitch = new boolean[nodes];
        for (int i = 0; i < switchCount; i++) {
            int id = in.nextInt("switch id " + (i + 1) + " of " + switchCount);
            if (id < 0 || id >= nodes) {
                throw new IllegalArgumentException("line " + in.line + ": switch id " + id + " is not a node: ids are 0.." + (nodes - 1));
            }
            if (isSwitch[id]) {
                throw new IllegalArgumentException("line " + in.line + ": switch id " + id + " is listed twice");
            }
            isSwitch[id] = true;
            switchIds[i] = id;
        }
        if (in.hasMoreOnLine()) {
            throw new IllegalArgumentException("line " + in.line + ": expected " + switchCount + " switch ids, found more: '" + in.restOfLine() + "'");
        }
        List<Link> links = new ArrayList<>(linkCount);
        for (int i = 0; i < linkCount; i++) {
            String[] f = in.nextLine();
            if (f == null) {
                throw new IllegalArgumentException("the file ends after " + i + " of the " + linkCount + " links its first line announces");
            }
            int line = in.line;
            if (f.length != 5) {
                throw new IllegalArgumentException("line " + line + ": a link is 'src dst rate delay error_rate', found " + f.length + " fields: '" + String.join(" ", f) + "'");
            }
            int a = parseId(f[0], nodes, line);
            int b = parseId(f[1], nodes, line);
            if (a == b) {
                throw new IllegalArgumentException("line " + line + ": link " + a + "-" + b + " joins node " + a + " to itself");
            }
            long rate;
            long delay;
            double loss;
            try {
                rate = Rates.parseRate(f[2]);
                delay = Rates.parseTimeNanos(f[3]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("line " + line + ": " + e.getMessage(), e);
            }
            try {
                loss = Double.parseDouble(f[4]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("line " + line + ": error rate '" + f[4] + "' is not a number");
            }
            if (!(loss >= 0 && loss <= 1)) {
                throw new IllegalArgumentException("line " + line + ": error rate " + f[4] + " is not a probability in [0, 1]");
            }
            links.add(new Link(a, b, rate, delay, loss));
        }
        return of(nodes, switchIds, links);
    }

    private static int parseId(String s, int nodes, int line) {
        int id;
        try {
            id = Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("line " + line + ": node id '" + s + "' is not a whole number");
        }
        if (id < 0 || id >= nodes) {
            throw new IllegalArgumentException("line " + line + ": node " + id + " does not exist: ids are 0.." + (nodes - 1));
        }
        return id;
    }

    /** Whitespace-separated tokens with the line each came from. */
    private static final class LineTokens {
        private final BufferedReader reader;
        private String[] fields = new String[0];
        private int next;
        int line;

        LineTokens(BufferedReader reader) {
            this.reader = reader;
        }

        /** The next token, reading on over blank lines and line ends. */
        int nextInt(String what) throws IOException {
            while (next >= fields.length) {
                if (readLine() == null) {
                    throw new IllegalArgumentException("the file ends before " + what);
                }
            }
            String s = fields[next++];
            try {
                return Integer.parseInt(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("line " + line + ": " + what + " '" + s + "' is not a whole number");
            }
        }

        boolean hasMoreOnLine() {
            return next < fields.length;
        }

        String restOfLine() {
            return String.join(" ", Arrays.asList(fields).subList(next, fields.length));
        }

        /** The fields of the next non-blank line, all consumed, or null at the end. */
        String[] nextLine() throws IOException {
            String[] f = readLine();
            next = fields.length;
            return f;
        }

        /** Reads the next non-blank line, its tokens not yet consumed; null at the end. */
        private String[] readLine() throws IOException {
            String s;
            do {
                s = reader.readLine();
                if (s == null) {
                    return null;
                }
                line++;
            } while (s.isBlank());
            fields = s.strip().split("\\s+");
            next = 0;
            return fields;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Accessors

    /** Number of nodes, hosts and switches together. */
    public int nodeCount() {
        return kinds.length;
    }

    /** What node {@code node} is. */
    public Kind kind(int node) {
        return kinds[checkNode(node)];
    }

    /** Whether node {@code node} is a host. */
    public boolean isHost(int node) {
        return kinds[checkNode(node)] == Kind.HOST;
    }

    /** The host node ids, ascending (a copy). */
    public int[] hosts() {
        return hosts.clone();
    }

    /** The switch node ids, ascending (a copy). */
    public int[] switches() {
        return switches.clone();
    }

    /** Number of hosts. */
    public int hostCount() {
        return hosts.length;
    }

    /** Number of switches. */
    public int switchCount() {
        return switches.length;
    }

    /** The links, in order; a link's index here is its id. */
    public List<Link> links() {
        return links;
    }

    /** Number of ports of {@code node}: the links that name it. */
    public int portCount(int node) {
        checkNode(node);
        return portStart[node + 1] - portStart[node];
    }

    /** The node at the other end of {@code node}'s port {@code port}. */
    public int neighbour(int node, int port) {
        return portNeighbour[portIndex(node, port)];
    }

    /** The index in {@link #links()} of {@code node}'s port {@code port}. */
    public int linkOf(int node, int port) {
        return portLink[portIndex(node, port)];
    }

    /** The port number, at the neighbour, of the far end of {@code node}'s port {@code port}. */
    public int peerPort(int node, int port) {
        return portPeerPort[portIndex(node, port)];
    }

    /** The neighbours of {@code node} in port order (a neighbour appears once per parallel link). */
    public int[] neighbours(int node) {
        checkNode(node);
        return Arrays.copyOfRange(portNeighbour, portStart[node], portStart[node + 1]);
    }

    /** The port of {@code node} on link {@code linkIndex}, or -1 if that link does not end at {@code node}. */
    public int portOfLink(int node, int linkIndex) {
        checkNode(node);
        for (int i = portStart[node]; i < portStart[node + 1]; i++) {
            if (portLink[i] == linkIndex) {
                return i - portStart[node];
            }
        }
        return -1;
    }

    /** The most ports any node has. */
    public int maxPortCount() {
        int max = 0;
        for (int i = 0; i < kinds.length; i++) {
            max = Math.max(max, portStart[i + 1] - portStart[i]);
        }
        return max;
    }

    private int portIndex(int node, int port) {
        checkNode(node);
        int count = portStart[node + 1] - portStart[node];
        if (port < 0 || port >= count) {
            throw new IllegalArgumentException("node " + node + " has ports 0.." + (count - 1) + ", not " + port);
        }
        return portStart[node] + port;
    }

    private int checkNode(int node) {
        if (node < 0 || node >= kinds.length) {
            throw new IllegalArgumentException("node " + node + " does not exist: ids are 0.." + (kinds.length - 1));
        }
        return node;
    }

    // ---------------------------------------------------------------------------------------
    // Addresses

    /** The most nodes {@link #hostAddress} can number: the id must fit the two middle octets. */
    public static final int MAX_ADDRESSED_NODE = 65_535;

    /**
     * The IPv4 address of host node {@code nodeId} as HPCC's simulator numbers hosts
     * ({@code third.cc}, {@code node_id_to_ip}): {@code 11.(id/256).(id%256).1}, so node 0 is
     * {@code 11.0.0.1} and node 300 is {@code 11.1.44.1}.
     *
     * @throws IllegalArgumentException if {@code nodeId} is outside 0..65,535
     */
    public static Inet4Address hostAddress(int nodeId) {
        int bits = hostAddressBits(nodeId);
        byte[] b = {(byte) (bits >>> 24), (byte) (bits >>> 16), (byte) (bits >>> 8), (byte) bits};
        try {
            return (Inet4Address) InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
    }

    /**
     * {@link #hostAddress} as a 32-bit number, first octet most significant ({@code 11.0.0.1} is
     * {@code 0x0B000001}): the form the ECMP hash takes (HPCC hashes {@code Ipv4Address::Get()}).
     */
    public static int hostAddressBits(int nodeId) {
        if (nodeId < 0 || nodeId > MAX_ADDRESSED_NODE) {
            throw new IllegalArgumentException("node " + nodeId + " has no address: 11.x.y.1 numbers nodes 0.." + MAX_ADDRESSED_NODE);
        }
        return 0x0B00_0001 + (nodeId / 256) * 0x1_0000 + (nodeId % 256) * 0x100;
    }

    /**
     * The node id a {@link #hostAddressBits} address names, or -1 if {@code address} is not of
     * the form {@code 11.x.y.1} (HPCC's inverse, {@code ip_to_node_id}, is {@code (ip >> 8) & 0xffff}).
     */
    public static int nodeOfAddress(int address) {
        if ((address >>> 24) != 11 || (address & 0xFF) != 1) {
            return -1;
        }
        return (address >>> 8) & 0xFFFF;
    }

    @Override
    public String toString() {
        return "Topology[" + hosts.length + " hosts, " + switches.length + " switches, " + links.size() + " links]";
    }
}
