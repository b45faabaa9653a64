package io.rnic.transport.sim;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A deterministic simulated network: any number of HCAs ({@link SimWire}s) connected by
 * point-to-point links, all driven by one {@link SimScheduler} in virtual time. Links are made
 * on first use with the default {@link LinkConfig}, or explicitly with {@link #link}. Each link
 * direction's faults draw from a random generator seeded from the network seed and the two
 * endpoint addresses, so a run depends only on the seed and the scenario.
 */
public final class SimNetwork implements AutoCloseable {
    private final long seed;
    private final SimScheduler scheduler = new SimScheduler();
    private final Map<InetSocketAddress, SimWire> wires = new HashMap<>();
    private final Map<java.util.Set<SimWire>, Link> links = new HashMap<>();
    private LinkConfig defaults = LinkConfig.DEFAULT;
    private boolean icrcOffload = true;
    private final List<Runnable> onClose = new ArrayList<>();

    /** A network whose faults are fixed by {@code seed}. */
    public SimNetwork(long seed) {
        this.seed = seed;
    }

    public long seed() {
        return seed;
    }

    public SimScheduler scheduler() {
        return scheduler;
    }

    /** Sets the properties of links made from now on. */
    public SimNetwork defaults(LinkConfig config) {
        this.defaults = java.util.Objects.requireNonNull(config, "link config");
        return this;
    }

    /** The configuration new links get. */
    /**
     * Turns the wires' ICRC offload on (the default) or off. With it on, an HCA hands its packets
     * over unsealed and a packet's ICRC is computed only where its bytes are seen (a tap, a
     * capture) or may change (a link with fault models), and the receiving HCA does not check
     * the ICRC of a packet nothing touched: the way Linux's loopback skips checksums. The bytes
     * anyone sees, and so a seed's captures, are the same either way.
     */
    public SimNetwork icrcOffload(boolean on) {
        this.icrcOffload = on;
        return this;
    }

    /** True if the wires offload the ICRC ({@link #icrcOffload(boolean)}). */
    public boolean icrcOffload() {
        return icrcOffload;
    }

    public LinkConfig linkDefaults() {
        return defaults;
    }

    /** Attaches an HCA at {@code ip} on UDP port 4791. */
    public SimWire attach(String ip) {
        try {
            return attach(new InetSocketAddress(InetAddress.getByName(ip), 4791));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + ip, e);
        }
    }

    /** Attaches an HCA at {@code address}, which must be a concrete IP address and port. */
    public SimWire attach(InetSocketAddress address) {
        return attach(address, null);
    }

    /**
     * Attaches an HCA at {@code address} whose packets go through {@code uplink} (a fabric's host
     * port) instead of the network's point-to-point links; null means those links.
     */
    public SimWire attach(InetSocketAddress address, SimUplink uplink) {
        if (address.isUnresolved() || address.getAddress().isAnyLocalAddress()) {
            throw new IllegalArgumentException("an HCA needs a concrete IP address (the ICRC covers it), got " + address);
        }
        if (wires.containsKey(address)) {
            throw new IllegalArgumentException(address + " is already attached to this network");
        }
        SimWire w = new SimWire(this, address, uplink);
        wires.put(address, w);
        return w;
    }

    /** The link between {@code a} and {@code b}, made with the defaults if it does not exist. */
    public Link link(SimWire a, SimWire b) {
        if (a.network() != this || b.network() != this) {
            throw new IllegalArgumentException("both wires must belong to this network");
        }
        if (a == b) {
            throw new IllegalArgumentException("a wire cannot be linked to itself: " + a);
        }
        java.util.Set<SimWire> key = java.util.Set.of(a, b);
        Link link = links.get(key);
        if (link == null) {
            LinkDirection ab = new LinkDirection(scheduler, a, b, directionSeed(a, b), defaults);
            LinkDirection ba = new LinkDirection(scheduler, b, a, directionSeed(b, a), defaults);
            link = new Link(ab, ba);
            links.put(key, link);
            a.outgoing(b, ab);
            b.outgoing(a, ba);
        }
        return link;
    }

    /** The direction of the link that carries packets from {@code from} to {@code to}. */
    public LinkDirection direction(SimWire from, SimWire to) {
        return link(from, to).from(from);
    }

    SimWire wireAt(InetSocketAddress address) {
        return wires.get(address);
    }

    void detach(SimWire w) {
        wires.remove(w.localAddress(), w);
    }

    /** Every wire still attached. */
    public List<SimWire> wires() {
        return new ArrayList<>(wires.values());
    }

    /**
     * The seed of everything random in the device attached at {@code address} (its memory keys):
     * the network seed mixed with the address, so that a seeded run gives the same bytes every time
     * and two devices on one network still get different keys.
     */
    public long deviceSeed(InetSocketAddress address) {
        return mix(mix(seed ^ 0x5DEECE66DL) ^ hash(address));
    }

    private long directionSeed(SimWire from, SimWire to) {
        long h = seed;
        h = mix(h ^ hash(from.localAddress()));
        h = mix(h ^ (hash(to.localAddress()) * 0x9E3779B97F4A7C15L));
        return h;
    }

    private static long hash(InetSocketAddress a) {
        long h = a.getPort();
        for (byte b : a.getAddress().getAddress()) {
            h = h * 131 + (b & 0xFF);
        }
        return h;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /**
     * Closes every wire and discards pending events, releasing the buffers of packets still in
     * flight. Timers are dropped without running.
     */
    /** Runs {@code task} when the network closes, after its wires: a fabric releases what its queues hold. */
    public void onClose(Runnable task) {
        onClose.add(java.util.Objects.requireNonNull(task, "task"));
    }

    @Override
    public void close() {
        for (SimWire w : wires()) {
            w.close();
        }
        scheduler.drain();
        for (Runnable r : onClose) {
            r.run();
        }
        for (Link l : links.values()) {
            l.releaseHeldOnClose();
        }
    }
}
