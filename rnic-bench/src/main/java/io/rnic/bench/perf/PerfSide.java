package io.rnic.bench.perf;

import io.rnic.core.wire.Wire;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.WrOpcode;
import io.rnic.verbs.AddressHandle;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.ConnectionInfo;
import io.rnic.verbs.Connections;
import io.rnic.verbs.DeviceConfig;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.channel.CreditChannel;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One side of a perf run: a device, its QPs, one completion queue, one registered buffer, and
 * the step functions of the client and server roles. Every method runs on the thread that
 * opened the side (an invoker agent's thread drives the device from them).
 *
 * <p>The buffer holds, per QP, a send area and a receive area of the largest size: a
 * ping-pong side writes from one and polls the other, as perftest's write_lat does.
 */
final class PerfSide implements AutoCloseable {
    /** The Q_Key of UD QPs (perftest's DEFAULT_QKEY). */
    static final int QKEY = 0x11111111;
    private static final int QP_SHIFT = 40;
    private static final long SEQ_MASK = (1L << QP_SHIFT) - 1;

    final PerfConfig config;
    final RdmaDevice device;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    private final ByteBuffer buffer;
    final MemoryRegion mr;
    final List<QueuePair> qps = new ArrayList<>();
    private final int area;
    /** perftest's cycle buffer (its page size): this side offers it and sizes each QP's area to it. */
    static final int CYCLE_BUFFER = 4096;
    private final List<ConnectionInfo> remote = new ArrayList<>();
    private final List<AddressHandle> handles = new ArrayList<>();
    /** The Q_Key UD sends carry: perftest's, or rdma_cm's once the connection manager readied the QPs. */
    private int udQkey = QKEY;
    /** Each QP's work request for the current size, built once (perftest's ctx->wr), and that size. */
    private SendWorkRequest[] prepared;
    private int[] preparedSize;
    private final RecvWorkRequest rwr = new RecvWorkRequest();
    private final WorkCompletion[] wcs = new WorkCompletion[64];
    private io.rnic.transport.sim.SimNetwork simulator;
    /** With {@code --credit-channel}: one channel per QP (the QPs above are theirs); empty otherwise. */
    final List<CreditChannel> channels = new ArrayList<>();
    /** Views of each QP's send area, one per size, for the channel's {@code offer}. */
    private ByteBuffer[] sendViews;
    /** Messages the channels delivered to this side. */
    private long channelDelivered;
    /** Raw SEND tests with {@code --slow-receiver}: receives waiting for their late re-post (due time, QP). */
    private final java.util.ArrayDeque<long[]> lateReposts = new java.util.ArrayDeque<>();
    /** Marks continue from round to round, so that a stale mark of the last round never matches. */
    private long markBase;

    PerfSide(PerfConfig config, Wire wire) {
        this.config = config;
        // A bandwidth test runs the receiver at its limit, and RNR NAKs are then the flow control
        // perftest relies on too (RNR retry 7): counted (rcvd_rnr_err, --counters), not warned about.
        this.device = RdmaDevice.open(wire, DeviceConfig.defaults().withIcrcPolicy(config.icrc())
                .withCongestionControl(config.cc()).withPitfallWarningsOff(io.rnic.verbs.Pitfall.RNR_NAKS_REPEATED));
        try {
            this.pd = device.allocPd();
            int depth = Math.max(config.txDepth(), config.test().op() == PerfTest.Op.SEND ? config.rxDepth() : 1);
            // Every QP's send and receive queues complete here: room for all of them (RNIC-W003).
            int cqe = Math.min(device.queryDevice().maxCqe(), (config.txDepth() + 64 + Math.max(depth, 1)) * config.qps() + 16);
            this.cq = device.createCq(cqe);
            // Room for a UD receive's GRH, and at least perftest's cycle buffer: a perftest peer
            // spreads small messages over that much of the remote buffer.
            this.area = Math.max(Math.max(8, config.maxSize()) + 40, CYCLE_BUFFER);
            this.buffer = ByteBuffer.allocateDirect(2 * area * config.qps());
            int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
                    | AccessFlags.REMOTE_ATOMIC;
            this.mr = pd.registerMemory(buffer, access);
            // Room beyond the window: a ping-pong side posts its answer before the last one's ACK is in.
            QpCaps caps = new QpCaps(config.txDepth() + 64, Math.max(depth, 1), 1, 1, 0);
            for (int i = 0; i < config.qps(); i++) {
                if (config.creditChannel()) {
                    CreditChannel ch = CreditChannel.create(pd, channelConfig(config));
                    ch.onMessage(m -> channelDelivered++);
                    channels.add(ch);
                    qps.add(ch.qp());
                } else {
                    qps.add(pd.createQp(new QpInitAttributes(config.type(), cq, cq, caps, false, true)));
                }
            }
            this.sendViews = new ByteBuffer[config.qps()];
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new WorkCompletion();
            }
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
    }

    /**
     * The channel of a {@code --credit-channel} run: {@code -r} Send(data) in flight (the
     * receives perftest posts; the peer posts as many, plus the acknowledgements'), 8 Send(ack)
     * (acknowledging when more than half of either has arrived, as the credit channel's rule is), messages of the
     * largest size, {@code -t} more queued, and receives re-posted late by {@code --slow-receiver}.
     */
    static CreditChannel.Config channelConfig(PerfConfig config) {
        return CreditChannel.Config.defaults().withCredits(Math.min(config.rxDepth(), 0xFFFF), 8).withReadWrite(0, 0)
                .withMessages(Math.max(1, config.maxSize()), config.txDepth())
                .withRepostDelay(config.slowReceiverMicros() * 1000);
    }

    /** The simulated network both sides are on (stepped by the runner), or null. */
    io.rnic.transport.sim.SimNetwork simulator() {
        return simulator;
    }

    void simulator(io.rnic.transport.sim.SimNetwork net) {
        this.simulator = net;
    }

    /** What the peer needs to reach QP {@code i}: its number, PSN, and the receive area. */
    List<ConnectionInfo> localInfo(int firstPsn) {
        List<ConnectionInfo> l = new ArrayList<>();
        for (int i = 0; i < qps.size(); i++) {
            QueuePair qp = qps.get(i);
            l.add(new ConnectionInfo(device.gid(), qp.qpn(), (firstPsn + i * 0x1000) & 0xFFFFFF,
                    mr.address() + receiveArea(i), mr.rkey()));
        }
        return l;
    }

    /** Brings every QP to RTS toward the peer's QPs (UD: ready, with an address handle each). */
    void connect(List<ConnectionInfo> mine, List<ConnectionInfo> peers, int peerUdpPort) {
        connect(mine, peers, peerUdpPort, config.mtu());
    }

    /** As above, at path MTU {@code mtu} (the smaller of the two sides', as perftest settles it). */
    void connect(List<ConnectionInfo> mine, List<ConnectionInfo> peers, int peerUdpPort, io.rnic.verbs.PathMtu mtu) {
        if (peers.size() != qps.size()) {
            throw new IllegalStateException("the peer has " + peers.size() + " QPs, this side " + qps.size());
        }
        RcOptions o = RcOptions.defaults().withMtu(mtu)
                .withRdAtomic(device.queryDevice().maxQpRdAtom(), device.queryDevice().maxQpRdAtom());
        o = o.withRetry(o.timeout(), o.retryCnt(), config.rnrRetry());
        for (int i = 0; i < qps.size(); i++) {
            QueuePair qp = qps.get(i);
            if (config.type() == QpType.UD) {
                Connections.readyDatagram(qp, QKEY, mine.get(i).psn());
                handles.add(pd.createAddressHandle(AddressVector.of(peers.get(i).gid().toInetAddress())
                        .withPort(peerUdpPort)));
            } else if (!channels.isEmpty()) {
                channels.get(i).connect(mine.get(i), peers.get(i), o, peerUdpPort);
            } else {
                Connections.connect(qp, mine.get(i), peers.get(i), o, peerUdpPort);
            }
            remote.add(peers.get(i));
        }
    }

    /**
     * Records the peer's QPs without connecting this side's: with {@code -R} the connection
     * manager has connected them, and the records only tell where the peer's buffers are.
     */
    void adoptPeers(List<ConnectionInfo> peers, int peerUdpPort, int qkey) {
        if (peers.size() != qps.size()) {
            throw new IllegalStateException("the peer has " + peers.size() + " QPs, this side " + qps.size());
        }
        remote.addAll(peers);
        if (config.type() == QpType.UD) { // SIDR readied the QPs with rdma_cm's Q_Key; address the peer's
            udQkey = qkey;
            for (ConnectionInfo peer : peers) {
                handles.add(pd.createAddressHandle(AddressVector.of(peer.gid().toInetAddress()).withPort(peerUdpPort)));
            }
        }
    }

    private long sendArea(int qp) {
        return 2L * area * qp;
    }

    private long receiveArea(int qp) {
        return 2L * area * qp + area;
    }

    /** Posts {@code rxDepth} receives of {@code size} bytes on every QP (SEND tests; a channel posts its own). */
    void postReceives(int size) {
        if (!channels.isEmpty()) {
            return;
        }
        for (int q = 0; q < qps.size(); q++) {
            for (int i = 0; i < config.rxDepth(); i++) {
                postReceive(q, size);
            }
        }
    }

    /** Receives take the largest size, so that they stay valid from one size of {@code -a} to the next. */
    private void postReceive(int q, int size) {
        rwr.reset().wrId((long) q << QP_SHIFT).sge(mr.address() + receiveArea(q), area, mr.lkey());
        qps.get(q).postRecv(rwr);
    }

    /**
     * A server's re-post of a receive that completed: at once, or {@code --slow-receiver}
     * microseconds later in the device's time (virtual on the simulated network, where a no-op
     * timer keeps the network's time running until then).
     */
    private void repost(int q, int size) {
        if (config.slowReceiverMicros() == 0) {
            postReceive(q, size);
        } else {
            long delay = config.slowReceiverMicros() * 1000;
            lateReposts.add(new long[] {device.wire().scheduler().nanoTime() + delay, q});
            device.wire().scheduler().schedule(delay, NOTHING);
        }
    }

    private static final Runnable NOTHING = () -> { };

    /** Posts the late receives whose time has come; returns how many. */
    private int repostDue(int size) {
        int n = 0;
        long now = lateReposts.isEmpty() ? 0 : device.wire().scheduler().nanoTime();
        while (!lateReposts.isEmpty() && lateReposts.peek()[0] - now <= 0) {
            postReceive((int) lateReposts.poll()[1], size);
            n++;
        }
        return n;
    }

    /** Queues one message on channel {@code q}; false if its queue is full. */
    private boolean offer(int q, int size) {
        ByteBuffer v = sendViews[q];
        if (v == null || v.capacity() != size) {
            v = buffer.slice((int) sendArea(q), size);
            sendViews[q] = v;
        }
        return channels.get(q).offer(v);
    }

    /** Lets every channel do its work; returns the completions they took. */
    private int pollChannels() {
        int n = 0;
        for (int q = 0; q < channels.size(); q++) {
            n += channels.get(q).poll();
        }
        return n;
    }

    /** Posts one send work request of the test's operation on QP {@code q}. */
    private void post(int q, long seq, int size, boolean signaled) {
        // As perftest does: each QP's work request is built once per size, and a post sets only
        // its wr_id and whether it is signaled.
        if (prepared == null) {
            prepared = new SendWorkRequest[qps.size()];
            preparedSize = new int[qps.size()];
        }
        SendWorkRequest wr = prepared[q];
        if (wr == null || preparedSize[q] != size) {
            wr = prepared[q] = new SendWorkRequest();
            preparedSize[q] = size;
            build(wr, q, size);
        }
        qps.get(q).postSend(wr.wrId(((long) q << QP_SHIFT) | seq).signaled(signaled));
    }

    /** The work request of QP {@code q} for messages of {@code size} bytes, but its wr_id and signaling. */
    private void build(SendWorkRequest wr, int q, int size) {
        ConnectionInfo peer = remote.get(q);
        wr.reset().opcode(config.test().wrOpcode(config.atomic())).sge(mr.address() + sendArea(q), size, mr.lkey());
        switch (config.test().op()) {
            case WRITE, READ -> wr.rdma(peer.address(), peer.rkey());
            case ATOMIC -> {
                if (config.atomic() == WrOpcode.ATOMIC_WRITE) {
                    wr.atomicWrite(peer.address(), peer.rkey());
                } else {
                    wr.atomic(peer.address(), peer.rkey(), config.atomic() == WrOpcode.ATOMIC_FETCH_AND_ADD ? 1 : 0, 1);
                }
            }
            case SEND -> {
                if (config.type() == QpType.UD) {
                    wr.ud(handles.get(q), peer.qpn(), udQkey);
                }
            }
        }
    }

    private int pollChecked() {
        int n = cq.poll(wcs);
        for (int i = 0; i < n; i++) {
            if (!wcs[i].isSuccess()) {
                throw new IllegalStateException("completion with status " + wcs[i].status().text() + ": " + wcs[i]);
            }
        }
        return n;
    }

    /**
     * Waits a little for work when a step found none: runs the device's duty cycle if the
     * application drives it; otherwise spins with {@code --idle spin} (as perftest busy-polls
     * its CQ), and waits on the CQ with the other idle strategies.
     */
    void idle() {
        if (device.isCallerDriven()) {
            device.progress(1_000_000); // the agent's idle strategy decides whether this spins or blocks
        } else if (config.idle() == io.rnic.transport.udp.HcaAgent.Idle.SPIN) {
            Thread.onSpinWait();
        } else if (config.test().pingPong() && config.test().op() == PerfTest.Op.WRITE) {
            // write_lat watches memory, which no completion announces: poll it, as perftest does,
            // but let the agent threads have the core between looks.
            Thread.yield();
        } else {
            // Park until a completion (the CQ wakes an announced waiter): two spinning pollers
            // and two agents would not fit this machine's cores.
            try {
                (channels.isEmpty() ? cq : channels.get(0).cq()).await(1_000_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    /** A measurement in progress, advanced by {@link #step} until {@link #done}. */
    interface Task {
        /** Does what is ready; returns how much (0 if nothing). */
        int step();

        boolean done();

        /** How much work the task has to do, in {@link #progressUnit()}s, for a progress line. */
        default double progressTotal() {
            return 0;
        }

        /** How much of {@link #progressTotal()} is done. */
        default double progressDone() {
            return 0;
        }

        default String progressUnit() {
            return "messages";
        }
    }

    // ---------------------------------------------------------------- bandwidth

    /** The client of a bandwidth test: keeps {@code txDepth} messages in flight on every QP. */
    final class BandwidthClient implements Task {
        private final int size;
        private final long iterations;
        private final long deadline;
        private final long[] posted = new long[qps.size()];
        private final long[] completed = new long[qps.size()];
        private final long[] lastSignaled = new long[qps.size()];
        private final int window;
        private long total;
        private long nextMark;
        private long lastMarkTime;
        long start;
        long end;
        long bestWindowNanos = Long.MAX_VALUE;
        private boolean stopPosting;
        private int steps;

        BandwidthClient(int size) {
            this(size, config.durationSecs());
        }

        /** A client that runs for {@code seconds} (0: for {@code -n} messages). */
        BandwidthClient(int size, int seconds) {
            this(size, seconds, config.iterations());
        }

        /** A client that runs for {@code seconds}, or (0) for {@code iterations} messages. */
        BandwidthClient(int size, int seconds, long iterations) {
            this.size = size;
            this.iterations = seconds > 0 ? Long.MAX_VALUE : iterations;
            this.start = System.nanoTime();
            this.deadline = seconds > 0 ? start + seconds * 1_000_000_000L : Long.MAX_VALUE;
            this.window = Math.max(config.txDepth(), config.cqMod()) * qps.size();
            this.lastMarkTime = start;
            this.nextMark = window;
        }

        private final long[] sentBefore = new long[qps.size()];

        {
            for (int q = 0; q < channels.size(); q++) {
                sentBefore[q] = channels.get(q).messagesSent();
            }
        }

        @Override
        public int step() {
            int work = 0;
            // The clock once every 64 steps: a read costs about 25 ns here, a 64-byte message not much more.
            if (!stopPosting && deadline != Long.MAX_VALUE && (++steps & 63) == 0 && System.nanoTime() - deadline >= 0) {
                stopPosting = true;
            }
            if (!channels.isEmpty()) {
                return work + stepChannels();
            }
            for (int q = 0; q < posted.length; q++) {
                while (!stopPosting && posted[q] - completed[q] < config.txDepth() && posted[q] < iterations) {
                    long seq = posted[q]++;
                    boolean signaled = seq + 1 == iterations || (seq + 1) % config.cqMod() == 0;
                    post(q, seq, size, signaled);
                    if (signaled) {
                        lastSignaled[q] = seq + 1;
                    }
                    work++;
                }
            }
            int n = pollChecked();
            for (int i = 0; i < n; i++) {
                long id = wcs[i].wrId();
                int q = (int) (id >>> QP_SHIFT);
                long done = (id & SEQ_MASK) + 1;
                total += done - completed[q];
                completed[q] = done;
            }
            if (n > 0) {
                marks();
            }
            return work + n;
        }

        /** The peak window and the end time, after completions moved {@link #total}. */
        private void marks() {
            long now = System.nanoTime();
            if (total >= nextMark) {
                bestWindowNanos = Math.min(bestWindowNanos, (now - lastMarkTime) * window / Math.max(1, total - (nextMark - window)));
                lastMarkTime = now;
                nextMark = total + window;
            }
            end = now;
        }

        /** The same loop on credit channels: messages wait in the channel's queue, every one is signaled. */
        private int stepChannels() {
            int work = 0;
            for (int q = 0; q < posted.length; q++) {
                while (!stopPosting && posted[q] - completed[q] < 2L * config.txDepth() && posted[q] < iterations
                        && offer(q, size)) {
                    posted[q]++;
                    lastSignaled[q] = posted[q];
                    work++;
                }
            }
            int n = pollChannels();
            long before = total;
            for (int q = 0; q < posted.length; q++) {
                long done = channels.get(q).messagesSent() - sentBefore[q];
                total += done - completed[q];
                completed[q] = done;
            }
            if (total > before) {
                marks();
            }
            return work + n;
        }

        @Override
        public boolean done() {
            for (int q = 0; q < posted.length; q++) {
                // In a timed run the last posted request may be unsignaled: what counts is the last signaled one.
                if (completed[q] < lastSignaled[q] || (!stopPosting && posted[q] < iterations)) {
                    return false;
                }
            }
            return true;
        }

        long messages() {
            return total;
        }

        @Override
        public double progressTotal() {
            return deadline != Long.MAX_VALUE ? (deadline - start) / 1e9 : (double) iterations * posted.length;
        }

        @Override
        public double progressDone() {
            return deadline != Long.MAX_VALUE ? Math.max(0, System.nanoTime() - start) / 1e9 : total;
        }

        @Override
        public String progressUnit() {
            return deadline != Long.MAX_VALUE ? "s of traffic" : "messages";
        }

        int windowMessages() {
            return window;
        }
    }

    /**
     * The server of a bandwidth test: for SEND it keeps receives posted and counts what
     * arrives; for WRITE, READ and atomics it only lets its device run. It ends when told.
     */
    final class BandwidthServer implements Task {
        private final int size;
        private volatile boolean stop;
        long received;
        /** When the first and the last message arrived (perftest's server measures between them). */
        long firstNanos;
        long lastNanos;

        BandwidthServer(int size) {
            this.size = size;
        }

        @Override
        public int step() {
            if (!channels.isEmpty()) {
                return pollChannels();
            }
            int n = pollChecked();
            if (n > 0) {
                // One clock read per poll, not per completion: the clock is a tenth of the cost of
                // a 64-byte SEND on the receiving side, and a poll's completions arrived together.
                long now = System.nanoTime();
                if (received == 0) {
                    firstNanos = now;
                }
                received += n;
                lastNanos = now;
            }
            for (int i = 0; i < n; i++) {
                repost((int) (wcs[i].wrId() >>> QP_SHIFT), size);
            }
            return n + repostDue(size);
        }

        void stop() {
            stop = true;
        }

        @Override
        public boolean done() {
            return stop;
        }
    }

    // ---------------------------------------------------------------- latency

    /**
     * Marks iteration {@code i} (from 0) in the last byte of a message, as perftest's write_lat
     * does: the count of messages sent, as a byte (1, 2, ..., 255, 0, 1, ...). Consecutive marks
     * always differ, which is all the receiver needs.
     */
    private static byte mark(long i) {
        return (byte) (i + 1);
    }

    private byte receivedMark(int q, int size) {
        VarHandle.acquireFence(); // the protocol thread wrote it: read memory, not a register
        return buffer.get((int) receiveArea(q) + size - 1);
    }

    /**
     * perftest's timing of a duration run ({@code -D}; its SIGALRM states): a margin of a quarter
     * of the duration (whole seconds), then the sample window, then the margin again; only what
     * completes inside the window counts, and the run ends at the duration whatever is in flight.
     */
    record DurationClock(long start, long sampleStart, long sampleEnd, long end) {
        static DurationClock of(int seconds) {
            long now = System.nanoTime();
            long margin = (seconds / 4) * 1_000_000_000L;
            long d = seconds * 1_000_000_000L;
            return new DurationClock(now, now + margin, now + d - margin, now + d);
        }

        boolean inSample(long now) {
            return now - sampleStart >= 0 && now - sampleEnd < 0;
        }

        boolean over(long now) {
            return now - end >= 0;
        }

        long sampleNanos() {
            return sampleEnd - sampleStart;
        }
    }

    /**
     * The client of a latency test: one message at a time on QP 0, timed from post to the
     * answer (ping-pong: the peer's message; READ and atomics: the completion).
     */
    final class LatencyClient implements Task {
        private final int size;
        private final long base;
        final long[] samples;
        private int i;
        private boolean inFlight;
        private long t0;
        private long delivered;
        /**
         * A warm-up runs until this time (a measurement: in a year), and keeps its samples in a
         * small ring. Warm-up and measurement take the same branches, so that the code the JIT
         * compiled during the warm-up is the code the measurement runs (a branch first taken in
         * the measurement would deoptimize it there).
         */
        private final long deadline;
        private final long limit;
        /** With {@code -D}: perftest's window, and the answers that came inside it. */
        final DurationClock clock;
        long sampled;

        LatencyClient(int size) {
            this(size, 0);
        }

        /**
         * A client that measures {@code -n} iterations, or with {@code warmupSecs} > 0 a warm-up
         * that ping-pongs for that long (the JIT compiles what the measurement will run) and keeps
         * no samples.
         */
        LatencyClient(int size, int warmupSecs) {
            this.size = size;
            this.base = markBase;
            if (warmupSecs > 0) {
                this.deadline = System.nanoTime() + warmupSecs * 1_000_000_000L;
                this.limit = Long.MAX_VALUE;
                this.samples = new long[1024];
                this.clock = null;
            } else if (config.durationSecs() > 0) {
                this.clock = DurationClock.of(config.durationSecs());
                this.deadline = clock.end();
                this.limit = Long.MAX_VALUE;
                this.samples = new long[1024];
            } else {
                this.clock = null;
                this.deadline = System.nanoTime() + 365L * 86_400 * 1_000_000_000L;
                this.limit = config.iterations();
                markBase += config.iterations();
                this.samples = new long[config.iterations()];
            }
        }

        @Override
        public int step() {
            if (done()) {
                return 0;
            }
            if (!inFlight) {
                if (config.test().op() == PerfTest.Op.WRITE) {
                    buffer.put((int) sendArea(0) + size - 1, mark(base + i));
                }
                t0 = System.nanoTime();
                delivered = channelDelivered;
                if (!channels.isEmpty()) {
                    if (!offer(0, size)) {
                        throw new IllegalStateException("the channel refused a ping-pong message: " + channels.get(0));
                    }
                } else {
                    post(0, i, size, true);
                }
                inFlight = true;
                return 1;
            }
            boolean answered;
            int n = channels.isEmpty() ? pollChecked() : pollChannels();
            switch (config.test().op()) {
                case SEND -> answered = !channels.isEmpty() ? channelDelivered > delivered : receivedSend(n, size);
                case WRITE -> answered = receivedMark(0, size) == mark(base + i);
                default -> answered = n > 0;
            }
            if (!answered) {
                return n;
            }
            long now = System.nanoTime();
            long t = now - t0;
            samples[i % samples.length] = config.test().pingPong() ? t / 2 : t;
            if (clock != null && clock.inSample(now)) {
                sampled++;
            }
            // After a warm-up the next round's marks start past every mark it wrote (a measurement
            // has moved markBase past its own already).
            markBase = Math.max(markBase, base + i + 1);
            i++;
            inFlight = false;
            return 1 + n;
        }

        @Override
        public boolean done() {
            // A duration run ends on time with its last message unanswered, as perftest's does.
            return i >= limit || ((!inFlight || clock != null) && System.nanoTime() - deadline >= 0);
        }

        @Override
        public double progressTotal() {
            return limit == Long.MAX_VALUE ? 0 : limit;
        }

        @Override
        public double progressDone() {
            return i;
        }

        @Override
        public String progressUnit() {
            return "iterations";
        }
    }

    /** True if one of the {@code n} completions just polled is a receive (re-posted at once). */
    private boolean receivedSend(int n, int size) {
        boolean any = false;
        for (int k = 0; k < n; k++) {
            if (wcs[k].opcode() == WcOpcode.RECV) {
                postReceive(0, size);
                any = true;
            }
        }
        return any;
    }

    /** The server of a ping-pong latency test: answers each message with one of its own. */
    final class LatencyServer implements Task {
        private final int size;
        private final long base;
        private long i;
        private long answered = channelDelivered;
        private volatile boolean stop;
        /** Answers to give: {@code -n}, or as many as a warm-up's client sends. */
        private final long limit;
        /**
         * Half the gap between consecutive answers, as perftest's ping-pong server reports its
         * latency (one sample fewer than answers); null for a warm-up.
         */
        final long[] samples;
        private long lastAnswer;
        /** The completion of the last answer came back. */
        private boolean lastAnswerSent;
        /** With {@code -D}: perftest's window, and the messages that arrived inside it. */
        final DurationClock clock;
        long sampled;

        LatencyServer(int size) {
            this(size, false);
        }

        LatencyServer(int size, boolean warmup) {
            this.size = size;
            this.base = markBase;
            if (warmup) {
                limit = Long.MAX_VALUE;
                samples = null;
                clock = null;
            } else if (config.durationSecs() > 0) {
                limit = Long.MAX_VALUE;
                samples = null;
                clock = DurationClock.of(config.durationSecs());
            } else {
                clock = null;
                limit = config.iterations();
                markBase += config.iterations();
                samples = new long[Math.max(1, config.iterations() - 1)];
            }
        }

        @Override
        public int step() {
            int n = channels.isEmpty() ? pollChecked() : pollChannels();
            if (!config.test().pingPong() || i >= limit) {
                for (int k = 0; k < n && channels.isEmpty(); k++) {
                    lastAnswerSent |= wcs[k].opcode() != WcOpcode.RECV; // the last answer is signaled
                }
                return n;
            }
            boolean arrived;
            if (config.test().op() == PerfTest.Op.WRITE) {
                arrived = receivedMark(0, size) == mark(base + i);
            } else if (!channels.isEmpty()) {
                arrived = channelDelivered > answered;
            } else {
                arrived = receivedSend(n, size);
            }
            if (!arrived) {
                return n;
            }
            if (config.test().op() == PerfTest.Op.WRITE) {
                buffer.put((int) sendArea(0) + size - 1, mark(base + i));
            }
            long now = System.nanoTime();
            if (clock != null && clock.inSample(now)) {
                sampled++;
            }
            if (samples != null && i > 0 && i - 1 < samples.length) {
                samples[(int) (i - 1)] = (now - lastAnswer) / 2;
            }
            lastAnswer = now;
            if (!channels.isEmpty()) {
                answered++;
                if (!offer(0, size)) {
                    throw new IllegalStateException("the channel refused a ping-pong answer: " + channels.get(0));
                }
            } else {
                // Signal every cqMod-th answer so the send queue drains, and the last, whose
                // completion says it has arrived (the peer waits for it; leaving earlier would cut it off).
                post(0, i, size, (i + 1) % Math.max(1, Math.min(config.cqMod(), config.txDepth())) == 0
                        || i + 1 == limit);
            }
            i++;
            markBase = Math.max(markBase, base + i); // as the client does
            return 1 + n;
        }

        void stop() {
            stop = true;
        }

        @Override
        public boolean done() {
            if (clock != null) {
                return stop || clock.over(System.nanoTime());
            }
            return stop || (config.test().pingPong() && i >= limit && (lastAnswerSent || !channels.isEmpty()));
        }
    }

    @Override
    public void close() {
        for (CreditChannel ch : channels) {
            try {
                ch.close();
            } catch (RuntimeException e) {
                // closing anyway
            }
        }
        for (QueuePair qp : channels.isEmpty() ? qps : List.<QueuePair>of()) {
            try {
                qp.close();
            } catch (RuntimeException e) {
                // closing anyway
            }
        }
        for (AddressHandle ah : handles) {
            ah.close();
        }
        device.close();
    }
}
