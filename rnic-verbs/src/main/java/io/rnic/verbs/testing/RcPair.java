package io.rnic.verbs.testing;

import io.rnic.core.wire.Wire;
import io.rnic.transport.sim.LinkDirection;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.DeviceConfig;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two emulated HCAs, A and B, each with a protection domain, one completion queue, a 1 MiB
 * buffer registered with every access right, and one RC QP connected to the other's: the set-up
 * most protocol tests and experiments start from, in one line.
 *
 * <pre>{@code
 * try (RcPair pair = RcPair.simulated(42)) {
 *     pair.aToB().fault(Faults.dropNth(PacketMatch.any(), 3));
 *     for (int i = 0; i < 3; i++) {
 *         pair.qpA().postSend(pair.write(i, i * 64, 64));
 *     }
 *     assertEquals(3, pair.awaitA(3).size());
 *     assertEquals(1, pair.a().counters().get(Counter.RETRANSMITTED_PKTS));
 * }
 * }</pre>
 *
 * <p>{@link #await} is the same call on both wires: on the simulated network it runs virtual
 * time (a test of seconds of retransmission timeouts takes milliseconds), on UDP it waits.
 */
public final class RcPair implements AutoCloseable {
    /** Bytes of each side's registered buffer. */
    public static final int BUFFER_BYTES = 1 << 20;
    /** Every access right: local write, remote write, remote read, remote atomic. */
    public static final int ALL_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;
    /** How long {@link #await(CompletionQueue, int)} waits: virtual time on the simulated network. */
    public static final long AWAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final SimNetwork network;
    private final Side a;
    private final Side b;

    /** One HCA of the pair and what the pair made on it. */
    private static final class Side {
        final RdmaDevice device;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
        final MemoryRegion mr;
        final QueuePair qp;

        Side(Wire wire, long keySeed) {
            device = RdmaDevice.open(wire, DeviceConfig.defaults().withKeySeed(keySeed));
            pd = device.allocPd();
            cq = device.createCq(4096);
            mr = pd.registerMemory(buffer, ALL_ACCESS);
            qp = pd.createQp(QpInitAttributes.rc(cq, cq));
        }
    }

    private RcPair(SimNetwork network, Wire wireA, Wire wireB, long seed, RcOptions options) {
        this.network = network;
        Side x = null;
        Side y = null;
        try {
            x = new Side(wireA, seed);
            y = new Side(wireB, seed + 1);
            Connections.connectPair(x.qp, x.mr, 0x100, y.qp, y.mr, 0x200, options);
        } catch (RuntimeException e) {
            closeQuietly(x, wireA);
            closeQuietly(y, wireB);
            throw e;
        }
        this.a = x;
        this.b = y;
    }

    private static void closeQuietly(Side s, Wire w) {
        try {
            if (s != null) {
                s.device.close();
            } else {
                w.close();
            }
        } catch (RuntimeException ignored) {
            // the set-up failure is what the caller needs to see
        }
    }

    /**
     * A pair on a new simulated network (addresses 10.0.0.1 and 10.0.0.2), with default RC options.
     *
     * @param seed fixes the network's faults and the devices' keys: the same seed gives the same bytes
     * @return the connected pair; close it to close the network
     */
    public static RcPair simulated(long seed) {
        return simulated(seed, RcOptions.defaults());
    }

    /**
     * A pair on a new simulated network, connected with the given options.
     *
     * @param seed fixes the network's faults and the devices' keys
     * @param options the RC attributes both QPs are connected with (MTU, timeouts, retry counts)
     * @return the connected pair; close it to close the network
     */
    public static RcPair simulated(long seed, RcOptions options) {
        java.util.Objects.requireNonNull(options, "options");
        SimNetwork net = new SimNetwork(seed);
        try {
            return new RcPair(net, net.attach("10.0.0.1"), net.attach("10.0.0.2"), seed, options);
        } catch (RuntimeException e) {
            net.close();
            throw e;
        }
    }

    /**
     * A pair over UDP on loopback, both on the RoCE port, each with a thread of its own.
     *
     * @param ipA A's address, for example 127.0.0.2
     * @param ipB B's address, for example 127.0.0.3
     * @param options the RC attributes both QPs are connected with
     * @return the connected pair; close it to close both wires
     */
    public static RcPair udp(String ipA, String ipB, RcOptions options) {
        java.util.Objects.requireNonNull(ipA, "ipA");
        java.util.Objects.requireNonNull(ipB, "ipB");
        java.util.Objects.requireNonNull(options, "options");
        UdpWire wa = UdpWire.bind(ipA).open();
        UdpWire wb;
        try {
            wb = UdpWire.bind(ipB).open();
        } catch (RuntimeException e) {
            wa.close();
            throw e;
        }
        return new RcPair(null, wa, wb, System.nanoTime(), options);
    }

    /**
     * The simulated network, for its scheduler and links.
     *
     * @return the network, or {@code null} on UDP
     */
    public SimNetwork network() {
        return network;
    }

    /**
     * The simulated link from A to B, where faults for A's packets go.
     *
     * @return the link direction A to B
     * @throws IllegalStateException on UDP, which has no simulated links
     */
    public LinkDirection aToB() {
        return direction(a, b);
    }

    /**
     * The simulated link from B to A: B's responses and ACKs.
     *
     * @return the link direction B to A
     * @throws IllegalStateException on UDP, which has no simulated links
     */
    public LinkDirection bToA() {
        return direction(b, a);
    }

    private LinkDirection direction(Side from, Side to) {
        if (network == null) {
            throw new IllegalStateException("links and their faults exist on the simulated network only; this pair is on UDP");
        }
        return network.direction((SimWire) from.device.wire(), (SimWire) to.device.wire());
    }

    /**
     * HCA A, the side tests usually post requests on.
     *
     * @return device A
     */
    public RdmaDevice a() {
        return a.device;
    }

    /**
     * HCA B, the side tests usually aim requests at.
     *
     * @return device B
     */
    public RdmaDevice b() {
        return b.device;
    }

    /**
     * A's RC QP, connected to B's.
     *
     * @return A's QP
     */
    public QueuePair qpA() {
        return a.qp;
    }

    /**
     * B's RC QP, connected to A's.
     *
     * @return B's QP
     */
    public QueuePair qpB() {
        return b.qp;
    }

    /**
     * A's completion queue, for both its send and its receive completions.
     *
     * @return A's CQ
     */
    public CompletionQueue cqA() {
        return a.cq;
    }

    /**
     * B's completion queue, for both its send and its receive completions.
     *
     * @return B's CQ
     */
    public CompletionQueue cqB() {
        return b.cq;
    }

    /**
     * A's registered region: {@link #BUFFER_BYTES} bytes with every access right.
     *
     * @return A's memory region
     */
    public MemoryRegion mrA() {
        return a.mr;
    }

    /**
     * B's registered region: {@link #BUFFER_BYTES} bytes with every access right.
     *
     * @return B's memory region
     */
    public MemoryRegion mrB() {
        return b.mr;
    }

    /**
     * The memory behind {@link #mrA()}: write what A sends, read what A received.
     *
     * @return A's buffer (direct, absolute indexing)
     */
    public ByteBuffer bufferA() {
        return a.buffer;
    }

    /**
     * The memory behind {@link #mrB()}: read what landed at B.
     *
     * @return B's buffer (direct, absolute indexing)
     */
    public ByteBuffer bufferB() {
        return b.buffer;
    }

    /**
     * A signaled RDMA WRITE from A's buffer to B's at the same offset, to post on {@link #qpA()}.
     *
     * @param wrId the work request id its completion carries
     * @param offset where in both buffers
     * @param length how many bytes
     * @return a new work request
     */
    public SendWorkRequest write(long wrId, int offset, int length) {
        return new SendWorkRequest().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(a.mr.address() + offset, length, a.mr.lkey()).rdma(b.mr.address() + offset, b.mr.rkey());
    }

    /**
     * A signaled RDMA READ from B's buffer into A's at the same offset, to post on {@link #qpA()}.
     *
     * @param wrId the work request id its completion carries
     * @param offset where in both buffers
     * @param length how many bytes
     * @return a new work request
     */
    public SendWorkRequest read(long wrId, int offset, int length) {
        return new SendWorkRequest().wrId(wrId).opcode(WrOpcode.RDMA_READ).signaled(true)
                .sge(a.mr.address() + offset, length, a.mr.lkey()).rdma(b.mr.address() + offset, b.mr.rkey());
    }

    /**
     * A signaled SEND from A's buffer, to post on {@link #qpA()}; B needs a posted receive.
     *
     * @param wrId the work request id its completion carries
     * @param offset where in A's buffer the message starts
     * @param length how many bytes
     * @return a new work request
     */
    public SendWorkRequest send(long wrId, int offset, int length) {
        return new SendWorkRequest().wrId(wrId).opcode(WrOpcode.SEND).signaled(true)
                .sge(a.mr.address() + offset, length, a.mr.lkey());
    }

    /**
     * A receive into B's buffer, to post on {@link #qpB()}.
     *
     * @param wrId the work request id its completion carries
     * @param offset where in B's buffer the message lands
     * @param length the largest message it takes
     * @return a new receive work request
     */
    public RecvWorkRequest recv(long wrId, int offset, int length) {
        return new RecvWorkRequest().wrId(wrId).sge(b.mr.address() + offset, length, b.mr.lkey());
    }

    /**
     * {@link #await(CompletionQueue, int)} on A's completion queue.
     *
     * @param n how many completions to wait for
     * @return the completions, in order
     */
    public List<WorkCompletion> awaitA(int n) {
        return await(a.cq, n);
    }

    /**
     * {@link #await(CompletionQueue, int)} on B's completion queue.
     *
     * @param n how many completions to wait for
     * @return the completions, in order
     */
    public List<WorkCompletion> awaitB(int n) {
        return await(b.cq, n);
    }

    /**
     * Waits for {@code n} completions on {@code cq} and returns them (copies, in completion
     * order). On the simulated network this runs virtual time; on UDP it waits in real time. Throws
     * {@link IllegalStateException} naming both HCAs' counters if they do not arrive within
     * {@link #AWAIT_NANOS} (or the simulated network runs out of things to do).
     *
     * @param cq the completion queue, {@link #cqA()} or {@link #cqB()}
     * @param n how many completions to wait for
     * @return the completions, in order
     * @throws IllegalStateException if they do not all arrive in time
     */
    public List<WorkCompletion> await(CompletionQueue cq, int n) {
        List<WorkCompletion> out = new ArrayList<>(n);
        WorkCompletion wc = new WorkCompletion();
        long deadline = System.nanoTime() + AWAIT_NANOS;
        try {
            while (out.size() < n) {
                if (cq.poll(wc)) {
                    out.add(new WorkCompletion().set(wc));
                    continue;
                }
                long left = network != null ? AWAIT_NANOS : deadline - System.nanoTime();
                if (left <= 0 || !cq.await(left)) {
                    throw new IllegalStateException("expected " + n + " completions, got " + out.size() + " " + out
                            + "; A: " + a.device.counters().nonZero() + "; B: " + b.device.counters().nonZero());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for completions", e);
        }
        return out;
    }

    /** Closes both devices (their QPs' outstanding work is flushed) and the simulated network. */
    @Override
    public void close() {
        try {
            a.device.close();
        } finally {
            try {
                b.device.close();
            } finally {
                if (network != null) {
                    network.close();
                }
            }
        }
    }
}
