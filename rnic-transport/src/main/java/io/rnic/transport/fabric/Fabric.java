package io.rnic.transport.fabric;

import io.rnic.transport.pcap.PcapWriter;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimScheduler;
import io.rnic.transport.sim.SimWire;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A simulated datacenter fabric on a {@link SimNetwork}: the hosts and switches of a
 * {@link Topology}, with shared-buffer switches that queue, ECN-mark, PFC-pause and
 * ECMP-route (see {@link FabricConfig} for every parameter and where its default comes from).
 * Congestion, incast, PFC's head-of-line blocking and multipath reordering then arise from the
 * traffic instead of being injected.
 *
 * <p>An HCA joins the fabric at a host: {@link #host(int)} gives the host's {@link SimWire}, at
 * the address the topology derives ({@link Topology#hostAddress}), and a device opened on it is an
 * ordinary {@code RdmaDevice}: every verb, transport and tool works unchanged. Everything runs on
 * the network's scheduler in virtual time; the same seed gives the same bytes, captures and
 * counts.
 *
 * <pre>{@code
 * SimNetwork net = new SimNetwork(7);
 * Fabric fabric = Fabric.attach(net, Topology.star(8, 100_000_000_000L, 1_000), FabricConfig.DEFAULT);
 * RdmaDevice receiver = RdmaDevice.open(fabric.host(0));
 * RdmaDevice sender = RdmaDevice.open(fabric.host(1));
 * }</pre>
 *
 * <p>Single-threaded, as the simulated network is.
 */
public final class Fabric {
    private final SimNetwork network;
    private final SimScheduler scheduler;
    private final Topology topology;
    private final FabricConfig config;
    private final Node[] nodes;
    private final FabricLink[] links;
    private RoutingTable routing;
    private final BitSet linksDown = new BitSet();
    private Frame free;
    private long framesMade;
    private final FlowTable flows = new FlowTable();
    private PcapWriter capture;
    private final byte[] pfcBytes = new byte[PfcFrame.LENGTH];
    private final int[] quanta = new int[8];
    /** Multicast groups by IPv4 address, and their member hosts. */
    private final Map<InetAddress, Integer> groups = new HashMap<>();
    private final List<BitSet> members = new ArrayList<>();
    /** Distribution trees per (group, source host), built on first use: per node, the ports to copy to. */
    private final Map<Long, int[][]> trees = new HashMap<>();

    private Fabric(SimNetwork network, Topology topology, FabricConfig config) {
        this.network = network;
        this.scheduler = network.scheduler();
        this.topology = topology;
        this.config = config;
        List<Topology.Link> tl = topology.links();
        this.links = new FabricLink[tl.size()];
        for (int i = 0; i < links.length; i++) {
            Topology.Link l = tl.get(i);
            links[i] = new FabricLink(i, l.bitsPerSecond(), l.delayNanos(), l.lossRate(), mix(network.seed() ^ 0x4C494E4BL, i));
        }
        this.nodes = new Node[topology.nodeCount()];
        for (int n = 0; n < nodes.length; n++) {
            FabricLink[] own = new FabricLink[topology.portCount(n)];
            for (int p = 0; p < own.length; p++) {
                own[p] = links[topology.linkOf(n, p)];
            }
            if (topology.isHost(n)) {
                if (own.length != 1) {
                    throw new IllegalArgumentException("host " + n + " has " + own.length
                            + " links; a host of a fabric has one, to its switch");
                }
                nodes[n] = new HostNic(this, n, own[0], new InetSocketAddress(Topology.hostAddress(n), 4791));
            } else {
                nodes[n] = new SwitchNode(this, n, own, mix(network.seed() ^ 0x53574954L, n));
            }
        }
        for (int n = 0; n < nodes.length; n++) {
            Port[] ports = portsOf(nodes[n]);
            for (int p = 0; p < ports.length; p++) {
                ports[p].peer = nodes[topology.neighbour(n, p)];
                ports[p].peerPort = topology.peerPort(n, p);
            }
        }
        this.routing = RoutingTable.build(topology);
        network.onClose(this::clear);
    }

    /**
     * Builds the fabric of {@code topology} on {@code network}. The network's point-to-point links
     * stay for any wire attached without the fabric.
     *
     * @throws IllegalArgumentException if a host of the topology has more than one link
     */
    public static Fabric attach(SimNetwork network, Topology topology, FabricConfig config) {
        return new Fabric(Objects.requireNonNull(network, "network"), Objects.requireNonNull(topology, "topology"),
                Objects.requireNonNull(config, "config"));
    }

    private static Port[] portsOf(Node n) {
        return n instanceof SwitchNode s ? s.ports : new Port[] {((HostNic) n).port};
    }

    // ---- hosts ----

    /**
     * The wire of host {@code hostId}, attached to the network at the host's address on UDP port
     * 4791 the first time it is asked for; open an {@code RdmaDevice} on it.
     *
     * @throws IllegalArgumentException if {@code hostId} is not a host of the topology
     */
    public SimWire host(int hostId) {
        HostNic h = hostNic(hostId);
        if (h.wire() == null || h.wire().isClosed()) {
            h.wire(network.attach(h.address(), h));
        }
        return h.wire();
    }

    /** The IP address of host {@code hostId}. */
    public InetAddress hostAddress(int hostId) {
        return hostNic(hostId).address().getAddress();
    }

    private HostNic hostNic(int hostId) {
        if (hostId < 0 || hostId >= nodes.length || !(nodes[hostId] instanceof HostNic h)) {
            throw new IllegalArgumentException("node " + hostId + " is not a host of " + topology);
        }
        return h;
    }

    /**
     * Makes host {@code hostId}'s receive side slower than its link: what arrives waits in a queue
     * drained at {@code bitsPerSecond}, and the host sends its switch PAUSE (for the lossless
     * priorities) once the queue holds more than {@code xoffBytes}, RESUME once it drains two
     * frames below that: a slow receiver's congestion spreads back through PFC as from a real NIC.
     */
    public void slowReceiver(int hostId, long bitsPerSecond, long xoffBytes) {
        if (bitsPerSecond <= 0 || xoffBytes <= 0) {
            throw new IllegalArgumentException("a slow receiver needs a positive rate and XOFF threshold, got "
                    + bitsPerSecond + " b/s and " + xoffBytes + " B");
        }
        hostNic(hostId).slowReceiver(bitsPerSecond, xoffBytes);
    }

    /**
     * Makes host {@code hostId} start a PFC storm at {@code atNanos}: from then on its port sends
     * its switch a PAUSE for the lossless priorities before each one expires, as a malfunctioning
     * NIC does, whatever it receives. Its switch stops sending to it; what is queued for it fills
     * the switch's buffer, and the PAUSEs the switch then sends spread the storm (unless the PFC
     * watchdog stops honouring it).
     */
    public void pauseStorm(int hostId, long atNanos) {
        hostNic(hostId).pauseStorm(atNanos);
    }

    /**
     * The cycles of switch ports that have been paused by their neighbours without a break for
     * at least {@code minPausedNanos} while holding frames: each a list of (node, port) pairs, the
     * port leading to the next switch of the cycle. A cycle of three or more is a PFC deadlock:
     * every queue waits on the next, and none will drain. Cycles are listed once, from their
     * lowest node.
     */
    public List<List<int[]>> pausedCycles(long minPausedNanos) {
        long now = scheduler.nanoTime();
        int n = nodes.length;
        int[][] next = new int[n][];
        for (int s = 0; s < n; s++) {
            if (!(nodes[s] instanceof SwitchNode sw)) {
                continue;
            }
            List<Integer> out = new ArrayList<>();
            for (Port p : sw.ports) {
                if (!(p.peer instanceof SwitchNode) || p.queuedFrames() == 0) {
                    continue;
                }
                for (int prio = 0; prio < Port.PRIORITIES; prio++) {
                    long since = p.pause.pausedSince(prio, now);
                    if (since >= 0 && now - since >= minPausedNanos && p.queueBytes(prio) > 0) {
                        out.add(p.index);
                        break;
                    }
                }
            }
            next[s] = out.stream().mapToInt(Integer::intValue).toArray();
        }
        List<List<int[]>> cycles = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int start = 0; start < n; start++) {
            if (next[start] != null) {
                walk(start, start, next, new ArrayList<>(), new boolean[n], cycles, seen);
            }
        }
        return cycles;
    }

    private void walk(int start, int at, int[][] next, List<int[]> path, boolean[] onPath, List<List<int[]>> cycles,
            java.util.Set<String> seen) {
        onPath[at] = true;
        for (int port : next[at]) {
            int to = topology.neighbour(at, port);
            path.add(new int[] {at, port});
            if (to == start && path.size() >= 2) {
                int min = path.stream().mapToInt(e -> e[0]).min().orElse(start);
                if (min == start) {
                    String key = path.stream().map(e -> e[0] + ":" + e[1]).collect(java.util.stream.Collectors.joining(","));
                    if (seen.add(key)) {
                        cycles.add(List.copyOf(path));
                    }
                }
            } else if (to > start && !onPath[to] && next[to] != null) {
                walk(start, to, next, path, onPath, cycles, seen);
            }
            path.remove(path.size() - 1);
        }
        onPath[at] = false;
    }

    // ---- what the fabric is ----

    /** The topology. */
    public Topology topology() {
        return topology;
    }

    /** The switch and host parameters. */
    public FabricConfig config() {
        return config;
    }

    /** The network the fabric runs on. */
    public SimNetwork network() {
        return network;
    }

    SimScheduler scheduler() {
        return scheduler;
    }

    RoutingTable routing() {
        return routing;
    }

    // ---- link failures ----

    /**
     * Takes link {@code link} (its index in {@link Topology#links()}) down at virtual time
     * {@code atNanos}: frames sent onto it or on it then are lost, and once the routes converge
     * ({@link FabricConfig#linkFailureConvergenceNanos}) the switches route around it.
     */
    public void linkDown(int link, long atNanos) {
        FabricLink l = link(link);
        scheduler.schedule(Math.max(0, atNanos - scheduler.nanoTime()), () -> {
            l.up(false);
            scheduler.schedule(config.linkFailureConvergenceNanos(), () -> {
                if (!l.isUp()) {
                    linksDown.set(link);
                    routing = RoutingTable.build(topology, linksDown);
                }
            });
        });
    }

    /** Brings link {@code link} back up at {@code atNanos}; routes take it again after convergence. */
    public void linkUp(int link, long atNanos) {
        FabricLink l = link(link);
        scheduler.schedule(Math.max(0, atNanos - scheduler.nanoTime()), () -> {
            l.up(true);
            scheduler.schedule(config.linkFailureConvergenceNanos(), () -> {
                if (l.isUp()) {
                    linksDown.clear(link);
                    routing = RoutingTable.build(topology, linksDown);
                }
            });
        });
    }

    private FabricLink link(int link) {
        if (link < 0 || link >= links.length) {
            throw new IllegalArgumentException("link " + link + " is not one of the topology's 0.." + (links.length - 1));
        }
        return links[link];
    }

    // ---- multicast ----

    /**
     * Makes host {@code hostId} a member of the IPv4 multicast group {@code group}: switches then
     * copy what is sent to the group onto the ports that lead to its members, over a shortest-path
     * tree from the sender.
     */
    public void join(InetAddress group, int hostId) {
        checkGroup(group);
        hostNic(hostId);
        int g = groups.computeIfAbsent(group, k -> {
            members.add(new BitSet());
            return members.size() - 1;
        });
        members.get(g).set(hostId);
        trees.clear();
    }

    /** Removes host {@code hostId} from the group. */
    public void leave(InetAddress group, int hostId) {
        Integer g = groups.get(group);
        if (g != null) {
            members.get(g).clear(hostId);
            trees.clear();
        }
    }

    private static void checkGroup(InetAddress group) {
        if (!(group instanceof java.net.Inet4Address) || !group.isMulticastAddress()) {
            throw new IllegalArgumentException(group + " is not an IPv4 multicast group (224.0.0.0/4)");
        }
    }

    int groupIndex(InetAddress group) {
        Integer g = groups.get(group);
        return g == null ? Integer.MAX_VALUE : g; // a group nobody joined: no copy goes anywhere
    }

    /** Copies a multicast frame that arrived on {@code inPort} of {@code sw} to the ports of its tree. */
    void replicate(SwitchNode sw, Frame f, int inPort) {
        int[] out = f.group == Integer.MAX_VALUE ? null : tree(f.group, f.srcHost)[sw.id()];
        if (out == null || out.length == 0) {
            free(f);
            return;
        }
        for (int i = 0; i < out.length; i++) {
            Frame copy = i == out.length - 1 ? f : copyOf(f);
            sw.enqueue(copy, inPort, out[i]);
        }
    }

    private Frame copyOf(Frame f) {
        Frame c = newFrame();
        c.kind = f.kind;
        c.packet = f.packet.retainedDuplicate();
        c.source = f.source;
        c.destination = f.destination;
        c.tos = f.tos;
        c.intact = f.intact;
        c.priority = f.priority;
        c.srcHost = f.srcHost;
        c.dstHost = f.dstHost;
        c.group = f.group;
        c.sipBits = f.sipBits;
        c.dipBits = f.dipBits;
        c.portsWord = f.portsWord;
        c.frameBytes = f.frameBytes;
        return c;
    }

    /** The group's distribution tree from {@code source}: a breadth-first shortest-path tree pruned to the members. */
    private int[][] tree(int group, int source) {
        long key = (long) group << 32 | source;
        int[][] t = trees.get(key);
        if (t != null) {
            return t;
        }
        int n = nodes.length;
        int[] parent = new int[n];
        int[] parentPort = new int[n];
        java.util.Arrays.fill(parent, -1);
        boolean[] seen = new boolean[n];
        java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>();
        seen[source] = true;
        queue.add(source);
        while (!queue.isEmpty()) {
            int u = queue.poll();
            if (u != source && topology.isHost(u)) {
                continue; // hosts never forward
            }
            for (int p = 0; p < topology.portCount(u); p++) {
                int v = topology.neighbour(u, p);
                if (!seen[v] && !linksDown.get(topology.linkOf(u, p))) {
                    seen[v] = true;
                    parent[v] = u;
                    parentPort[v] = p;
                    queue.add(v);
                }
            }
        }
        List<java.util.TreeSet<Integer>> ports = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ports.add(new java.util.TreeSet<>());
        }
        BitSet m = members.get(group);
        for (int h = m.nextSetBit(0); h >= 0; h = m.nextSetBit(h + 1)) {
            if (h == source || !seen[h]) {
                continue;
            }
            for (int v = h; parent[v] >= 0 && v != source; v = parent[v]) {
                ports.get(parent[v]).add(parentPort[v]);
            }
        }
        t = new int[n][];
        for (int i = 0; i < n; i++) {
            t[i] = ports.get(i).stream().mapToInt(Integer::intValue).toArray();
        }
        trees.put(key, t);
        return t;
    }

    // ---- frames ----

    Frame newFrame() {
        Frame f = free;
        if (f != null) {
            free = f.nextFree;
            f.nextFree = null;
            return f;
        }
        framesMade++;
        Frame made = new Frame(this);
        made.clear();
        return made;
    }

    void free(Frame f) {
        f.clear();
        f.nextFree = free;
        free = f;
    }

    /** Frames made so far: once the deepest queues have been reached, it stops growing. */
    long framesMade() {
        return framesMade;
    }

    /** A PFC frame from {@code mac} pausing ({@code quanta} &gt; 0) or resuming priority {@code prio}. */
    Frame pfcFrameFor(long mac, int prio, int quantaValue) {
        java.util.Arrays.fill(quanta, 0);
        quanta[prio] = quantaValue;
        return pfcFrame(mac, 1 << prio, quanta);
    }

    /** A PFC frame from {@code mac} with class-enable vector {@code enable} and pause times {@code quanta8}. */
    Frame pfcFrame(long mac, int enable, int[] quanta8) {
        Frame f = newFrame();
        f.kind = Frame.PFC;
        f.priority = config.controlPriority();
        f.frameBytes = Frame.PFC_BYTES;
        f.pfcEnable = enable;
        System.arraycopy(quanta8, 0, f.quanta, 0, 8);
        f.srcMac = mac;
        return f;
    }

    // ---- observation ----

    /**
     * Captures every host link in both directions into {@code writer} (Ethernet, with the IP TOS
     * byte as it travelled), PFC frames included: what a port mirror on each host's cable would see.
     */
    public void capture(PcapWriter writer) {
        this.capture = Objects.requireNonNull(writer, "writer");
    }

    boolean capturing() {
        return capture != null;
    }

    /** A frame a port put on its link: captured if the port is a host's. */
    void transmitted(Port port, Frame f, long now) {
        if (capture != null && port.owner instanceof HostNic) {
            write(f, now);
        }
    }

    /** A frame that arrived at a host. */
    void received(HostNic host, Frame f, long now) {
        if (capture != null) {
            write(f, now);
        }
    }

    private void write(Frame f, long now) {
        if (f.kind == Frame.PFC) {
            PfcFrame.encode(pfcBytes, 0, f.srcMac, f.pfcEnable, f.quanta);
            capture.writeFrame(now, pfcBytes, 0, pfcBytes.length);
        } else {
            capture.write(now, f.packet, f.source, f.destination, f.tos);
        }
    }

    /** A data frame handed to a host's HCA: counted to its flow. */
    void delivered(Frame f, long now) {
        flows.count(FlowTable.key(f.srcHost, f.dstHost < 0 ? 0xFFFF : f.dstHost, f.portsWord & 0xFFFF,
                f.portsWord >>> 16), f.packet.readableBytes(), now);
    }

    /** What each flow delivered, ordered by source host, destination host and ports. */
    public List<FlowStats> flows() {
        return flows.snapshot();
    }

    /** What port {@code port} of node {@code node} counted. */
    public PortStats portStats(int node, int port) {
        if (node < 0 || node >= nodes.length || port < 0 || port >= topology.portCount(node)) {
            throw new IllegalArgumentException("node " + node + " has no port " + port);
        }
        return stats(portsOf(nodes[node])[port]);
    }

    /** What every port of every node counted, node by node. */
    public List<PortStats> portStats() {
        List<PortStats> all = new ArrayList<>();
        for (Node n : nodes) {
            for (Port p : portsOf(n)) {
                all.add(stats(p));
            }
        }
        return all;
    }

    private PortStats stats(Port p) {
        long now = scheduler.nanoTime();
        List<PortStats.QueueStats> q = new ArrayList<>(8);
        for (int i = 0; i < Port.PRIORITIES; i++) {
            q.add(new PortStats.QueueStats(i, p.txFramesByPriority[i], p.drops[i], p.ecnMarks[i], p.pausesSent[i],
                    p.resumesSent[i], p.pause.pausesReceived(i), p.pause.pausedNanos(i, now), p.maxQueueBytes[i],
                    p.watchdogDrops[i]));
        }
        return new PortStats(p.owner.id(), p.index, p.peer.id(), p.owner instanceof HostNic, p.link.bitsPerSecond,
                p.txFrames, p.txBytes, List.copyOf(q));
    }

    /** Bytes queued now at port {@code port} of node {@code node}, over every priority. */
    public long queueBytes(int node, int port) {
        portStats(node, port); // validates
        return portsOf(nodes[node])[port].queueBytes();
    }

    /** Frames dropped because no route led to their destination: a failed link before routes converged, or no such host. */
    public long unroutedDrops() {
        long n = 0;
        for (Node node : nodes) {
            if (node instanceof SwitchNode s) {
                n += s.noRouteDrops;
            } else {
                n += ((HostNic) node).unroutable;
            }
        }
        return n;
    }

    /** Frames lost on links: their error rate, or a link that was down. */
    public long linkLosses() {
        long n = 0;
        for (FabricLink l : links) {
            n += l.randomLosses() + l.downLosses();
        }
        return n;
    }

    /**
     * Samples the queue depth of the given ports every {@code periodNanos} of virtual time and
     * writes a CSV row per port and sample to {@code csv}: {@code time_ns,node,port,bytes,q0..q7}.
     * The header is written at once; sampling runs for as long as the network does.
     *
     * @param nodePorts pairs of (node, port): {@code {5, 0, 5, 1}} samples ports 0 and 1 of node 5
     */
    public QueueTrace traceQueues(long periodNanos, Appendable csv, int... nodePorts) {
        if (periodNanos <= 0 || nodePorts.length == 0 || nodePorts.length % 2 != 0) {
            throw new IllegalArgumentException("a queue trace needs a positive period and (node, port) pairs, got "
                    + periodNanos + " ns and " + nodePorts.length + " numbers");
        }
        Port[] ports = new Port[nodePorts.length / 2];
        for (int i = 0; i < ports.length; i++) {
            portStats(nodePorts[2 * i], nodePorts[2 * i + 1]);
            ports[i] = portsOf(nodes[nodePorts[2 * i]])[nodePorts[2 * i + 1]];
        }
        QueueTrace t = new QueueTrace(scheduler, periodNanos, csv, ports);
        t.start();
        return t;
    }

    private void clear() {
        for (Node n : nodes) {
            if (n instanceof SwitchNode s) {
                s.clear();
            } else {
                ((HostNic) n).clear();
            }
        }
    }

    private static long mix(long seed, long salt) {
        long z = seed + salt * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public String toString() {
        return "Fabric[" + topology + "]";
    }

    /** Rethrows a CSV write failure unchecked (the trace has no caller to return it to). */
    static UncheckedIOException unchecked(IOException e) {
        return new UncheckedIOException("cannot write the queue trace", e);
    }
}
