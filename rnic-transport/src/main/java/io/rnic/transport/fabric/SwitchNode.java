package io.rnic.transport.fabric;

import io.rnic.core.wire.PacketSink;
import io.rnic.transport.sim.SimScheduler;
import java.util.SplittableRandom;

/**
 * An output-queued switch with a shared buffer: a frame arriving on a port is routed (ECMP over
 * the equal-cost next hops, or sprayed), admitted by the buffer ({@link SharedBufferMmu}: lossless
 * priorities into their ingress reserve, shared pool and headroom, lossy ones under the egress
 * dynamic threshold), queued at its egress port, and marked CE by RED on dequeue (or enqueue);
 * an ingress (port, priority) past its XOFF threshold sends its upstream neighbour a PFC PAUSE,
 * refreshed before it expires, and RESUME once it drains below XON.
 */
final class SwitchNode implements Node {
    private final Fabric fabric;
    private final int id;
    private final FabricConfig config;
    final Port[] ports;
    final SharedBufferMmu mmu;
    private final RedMarker[] markers;
    private final int ecmpSeed;
    private final SplittableRandom random;
    private final SimScheduler scheduler;
    /** Per (port, priority): a PAUSE is outstanding towards that port's neighbour. */
    private final boolean[] pauseOutstanding;
    private final PauseRefresh[] refresh;
    private final long[] pauseNanos;
    /** Frames dropped because no route led to their destination (a failed link, an unknown host). */
    long noRouteDrops;
    /** Non-ECT frames of a lossy priority dropped where RED would have marked them (RFC 3168 §5). */
    final long[] ecnDrops;

    SwitchNode(Fabric fabric, int id, FabricLink[] links, long seed) {
        this.fabric = fabric;
        this.id = id;
        this.config = fabric.config();
        this.ports = new Port[links.length];
        long[] headroomPerPort = new long[links.length];
        for (int p = 0; p < links.length; p++) {
            ports[p] = new Port(fabric, this, p, links[p], PfcFrame.portMac(id, p));
            // The bytes that still arrive after a PAUSE leaves this port: its link's round trip at its rate.
            headroomPerPort[p] = config.headroomBytes(links[p].delayNanos, links[p].bitsPerSecond);
        }
        this.mmu = config.newMmu(headroomPerPort);
        this.markers = new RedMarker[ports.length];
        for (int p = 0; p < ports.length; p++) {
            markers[p] = config.ecnThresholds().marker(ports[p].link.bitsPerSecond);
        }
        this.ecmpSeed = config.switchEcmpSeed(id);
        this.random = new SplittableRandom(seed);
        this.scheduler = fabric.scheduler();
        this.pauseOutstanding = new boolean[ports.length * Port.PRIORITIES];
        this.refresh = new PauseRefresh[ports.length * Port.PRIORITIES];
        this.pauseNanos = new long[ports.length];
        for (int p = 0; p < ports.length; p++) {
            pauseNanos[p] = PfcFrame.quantaToNanos(config.pauseQuanta(), ports[p].link.bitsPerSecond);
        }
        this.ecnDrops = new long[ports.length * Port.PRIORITIES];
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public void receive(Frame f, int inPort) {
        if (f.kind == Frame.PFC) {
            ports[inPort].applyPause(f); // the neighbour on inPort asks this port to stop sending
            fabric.free(f);
            return;
        }
        long delay = config.forwardingDelayNanos();
        if (delay > 0) {
            f.forwarding = true;
            f.at = this;
            f.inPort = inPort;
            scheduler.activate(f, scheduler.nanoTime() + delay);
            return;
        }
        forward(f, inPort);
    }

    /** Routes, admits and queues a data frame that arrived on {@code inPort}. */
    void forward(Frame f, int inPort) {
        if (f.group >= 0) {
            fabric.replicate(this, f, inPort);
            return;
        }
        int hash = config.sprayPerPacket() ? random.nextInt() : Murmur3.hash32(f.sipBits, f.dipBits, f.portsWord, ecmpSeed);
        int out = fabric.routing().choose(id, f.dstHost, hash);
        if (out < 0) {
            noRouteDrops++;
            fabric.free(f);
            return;
        }
        enqueue(f, inPort, out);
    }

    /** Admits a frame from {@code inPort} to {@code out}'s queue, or drops it; then checks PFC. */
    void enqueue(Frame f, int inPort, int out) {
        int prio = f.priority;
        Port port = ports[out];
        if (!mmu.admit(inPort, prio, out, f.frameBytes)) {
            port.drops[prio]++;
            fabric.free(f);
            return;
        }
        f.switchInPort = inPort;
        if (config.ecnEnabled() && !config.ecnMarkOnDequeue() && !ecn(f, port, prio, port.queueBytes(prio))) {
            mmu.release(inPort, prio, out, f.frameBytes);
            fabric.free(f);
            return;
        }
        port.enqueue(f);
        if (config.pfcEnabled() && mmu.shouldPause(inPort, prio, pauseOutstanding[cell(inPort, prio)])) {
            sendPfc(inPort, prio, config.pauseQuanta());
        }
    }

    @Override
    public boolean departing(Port port, Frame f) {
        if (f.kind == Frame.PFC) {
            return true;
        }
        int prio = f.priority;
        int in = f.switchInPort;
        mmu.release(in, prio, port.index, f.frameBytes);
        boolean keep = !config.ecnEnabled() || !config.ecnMarkOnDequeue() || ecn(f, port, prio, port.queueBytes(prio));
        resumeIfDrained(in, prio);
        if (!keep) {
            fabric.free(f);
        }
        return keep;
    }

    @Override
    public void dropQueued(Port port, Frame f) {
        if (f.kind != Frame.PFC) {
            mmu.release(f.switchInPort, f.priority, port.index, f.frameBytes);
            resumeIfDrained(f.switchInPort, f.priority);
        }
        fabric.free(f);
    }

    private void resumeIfDrained(int in, int prio) {
        int c = cell(in, prio);
        if (pauseOutstanding[c] && mmu.shouldResume(in, prio, true)) {
            sendPfc(in, prio, 0);
        }
    }

    /**
     * RED on the egress queue ({@code queueBytes}): marks an ECN-capable frame CE, leaves a
     * non-ECT frame of a lossless priority unmarked, and says to drop a non-ECT frame of a lossy
     * priority where it would have been marked (RFC 3168 §5). The control priority is never
     * marked. Returns false to drop.
     */
    private boolean ecn(Frame f, Port port, int prio, long queueBytes) {
        if (prio == config.controlPriority()) {
            return true;
        }
        double p = markers[port.index].probability(queueBytes);
        if (p <= 0 || (p < 1 && random.nextDouble() >= p)) {
            return true;
        }
        if ((f.tos & PacketSink.ECN_MASK) != 0) {
            f.tos |= PacketSink.CE;
            port.ecnMarks[prio]++;
            return true;
        }
        if (config.pfcEnabled() && config.isLossless(prio)) {
            return true;
        }
        ecnDrops[cell(port.index, prio)]++;
        port.drops[prio]++;
        return false;
    }

    /**
     * Sends the neighbour on {@code port} a PFC frame for {@code prio}: a PAUSE of {@code quanta}
     * (refreshed at half its time while the congestion lasts), or a RESUME (0).
     */
    void sendPfc(int port, int prio, int quanta) {
        int c = cell(port, prio);
        Port p = ports[port];
        Frame pf = fabric.pfcFrameFor(p.mac, prio, quanta);
        if (quanta > 0) {
            p.pausesSent[prio]++;
            pauseOutstanding[c] = true;
            PauseRefresh r = refresh[c];
            if (r == null) {
                r = refresh[c] = new PauseRefresh(port, prio);
            }
            if (!r.isQueued()) {
                scheduler.activate(r, scheduler.nanoTime() + Math.max(1, pauseNanos[port] / 2));
            }
        } else {
            p.resumesSent[prio]++;
            pauseOutstanding[c] = false;
        }
        p.enqueue(pf);
    }

    /** Re-sends a PAUSE before it expires while its (port, priority) is still over XON. */
    private final class PauseRefresh extends SimScheduler.Activation {
        private final int port;
        private final int prio;

        PauseRefresh(int port, int prio) {
            this.port = port;
            this.prio = prio;
        }

        @Override
        protected void fire() {
            if (pauseOutstanding[cell(port, prio)]) {
                sendPfc(port, prio, config.pauseQuanta());
            }
        }
    }

    private static int cell(int port, int prio) {
        return port * Port.PRIORITIES + prio;
    }

    /** Releases every queued frame (the network is closing). */
    void clear() {
        for (Port p : ports) {
            p.clear();
        }
    }
}
