package io.rnic.bench.experiment;

import io.rnic.core.hca.HcaLimits;
import io.rnic.core.hca.RecoveryTuning;
import io.rnic.transport.fault.Faults;
import io.rnic.transport.sim.LinkConfig;
import io.rnic.transport.sim.LinkDirection;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.Counter;
import io.rnic.verbs.DeviceConfig;
import io.rnic.verbs.LossRecovery;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;

/**
 * What each RC loss recovery mode (go-back-N, the reorder buffer, selective retransmission with
 * extended headers) buys under random loss, measured. One run
 * moves {@link Settings#messages} messages of one kind between two HCAs on the simulated network,
 * {@link Settings#inFlight} deep, with every packet in both directions dropped with the given
 * probability, and reports goodput, packets, retransmissions and completion times in virtual time.
 * The network and QP settings are fixed, so a seed gives the same numbers on every machine.
 */
public final class LossExperiment {
    /** The recovery modes, by the names the command takes ({@code toString()} is that name). */
    public enum Mode {
        GBN("gbn", LossRecovery.GO_BACK_N), REORDER("reorder", LossRecovery.REORDER), SR("sr", LossRecovery.SELECTIVE);

        final String label;
        final LossRecovery recovery;

        Mode(String label, LossRecovery recovery) {
            this.label = label;
            this.recovery = recovery;
        }

        /** The command-line name. */
        public String label() {
            return label;
        }

        /** The QP attribute value. */
        public LossRecovery recovery() {
            return recovery;
        }

        @Override
        public String toString() {
            return label;
        }

        /** The mode named {@code s}, or null. */
        public static Mode parse(String s) {
            for (Mode m : values()) {
                if (m.label.equals(s)) {
                    return m;
                }
            }
            return null;
        }
    }

    /** The operations, by the names the command takes ({@code toString()} is that name). */
    public enum Op {
        WRITE64K("write64k", WrOpcode.RDMA_WRITE, 64 * 1024),
        SEND4K("send4k", WrOpcode.SEND, 4 * 1024),
        READ64K("read64k", WrOpcode.RDMA_READ, 64 * 1024);

        final String label;
        final WrOpcode opcode;
        final int bytes;

        Op(String label, WrOpcode opcode, int bytes) {
            this.label = label;
            this.opcode = opcode;
            this.bytes = bytes;
        }

        /** The command-line name. */
        public String label() {
            return label;
        }

        @Override
        public String toString() {
            return label;
        }

        /** The operation named {@code s}, or null. */
        public static Op parse(String s) {
            for (Op o : values()) {
                if (o.label.equals(s)) {
                    return o;
                }
            }
            return null;
        }
    }

    /**
     * The fixed settings of every run.
     *
     * @param link       the simulated link, both directions
     * @param mtu        path MTU
     * @param window     request PSNs in flight (the HCA's send window)
     * @param timeoutExp local ACK timeout exponent (4.096 µs × 2^t)
     * @param retries    transport retries (7; a run that exhausts them fails)
     * @param tuning     reorder buffer and hole detection
     * @param messages   messages per run
     * @param inFlight   messages posted at once
     */
    public record Settings(LinkConfig link, PathMtu mtu, int window, int timeoutExp, int retries, RecoveryTuning tuning,
                           int messages, int inFlight) {
        /** Messages per run unless {@code --messages} says otherwise. */
        public static final int DEFAULT_MESSAGES = 1000;

        /**
         * 10 Gb/s links with 2 µs latency; MTU 1024; 128 PSNs in flight; an IRN-style short ACK
         * timeout of 4.096 µs × 2^6 = 262 µs (near IRN's RTO_high of 320 µs: longer than a full
         * window's 110 µs in the link queue plus the round trip, so go-back-N's resent window does
         * not time out spuriously; rdma-core's default 14, 67 ms, would make go-back-N's numbers
         * about timeouts alone); holes declared lost after 25 µs or 8 later packets; the extended
         * protocol's RTO_low of 100 µs while at most 3 PSNs are in flight (the HCA default, IRN's);
         * {@value #DEFAULT_MESSAGES} messages, 32 posted at once.
         */
        public static Settings defaults() {
            return new Settings(new LinkConfig(2_000, 10_000_000_000L, 1 << 22), PathMtu.MTU_1024, 128, 6, 7,
                    new RecoveryTuning(256, 64L << 20, 25_000, 8), DEFAULT_MESSAGES, 32);
        }

        /**
         * The same settings with {@code n} messages per run.
         *
         * @throws IllegalArgumentException if {@code n} is not positive
         */
        public Settings withMessages(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("a run needs at least one message, not " + n);
            }
            return new Settings(link, mtu, window, timeoutExp, retries, tuning, n, inFlight);
        }

        /** One line per setting, for the table's header. */
        public String describe() {
            return String.format(Locale.ROOT, "link %d Gb/s, %d us one way, queue %d KiB; MTU %d; window %d PSNs; "
                            + "ACK timeout 4.096 us x 2^%d = %d us (IRN-style short timeout), retry_cnt %d;%n"
                            + "reorder buffer %d packets per QP; hole lost after %d us or %d later packets; "
                            + "sr's RTO_low %d us while at most %d PSNs are in flight;%n"
                            + "%d messages per run, %d in flight; loss applied to every packet, both directions; "
                            + "retx/loss: packets sent again (requests, and READ responses beyond the ones each READ "
                            + "needs) per packet lost (either way: requests, responses, ACKs)",
                    link.bitsPerSecond() / 1_000_000_000L, link.latencyNanos() / 1000, link.queueLimitBytes() / 1024,
                    mtu.bytes(), window, timeoutExp, (4096L << timeoutExp) / 1000, retries,
                    tuning.reorderPackets(), tuning.holeTimeoutNanos() / 1000, tuning.holeRun(),
                    tuning.rtoLowNanos(true) / 1000, tuning.rtoLowPackets(), messages, inFlight);
        }
    }

    /**
     * One run's numbers.
     *
     * @param mode            the recovery mode
     * @param op              the operation
     * @param loss            the drop probability
     * @param bytes           payload bytes moved
     * @param nanos           virtual time from the first post to the last completion
     * @param packetsSent     packets both HCAs sent
     * @param lost            packets the fault model dropped
     * @param retransmissions packets sent again: requests resent (re-reads included) and READ
     *                        responses beyond the ones each READ needs
     * @param timeouts        local ACK timeouts of the requester
     * @param p50Micros       median completion time of a message, from its post
     * @param p99Micros       99th percentile completion time
     */
    public record Result(Mode mode, Op op, double loss, long bytes, long nanos, long packetsSent, long lost,
                         long retransmissions, long timeouts, double p50Micros, double p99Micros) {
        /** Payload bytes per second of virtual time. */
        public double goodput() {
            return nanos == 0 ? 0 : bytes * 1e9 / nanos;
        }

        /** Retransmissions per lost packet, 0 when nothing was lost. */
        public double retransmissionsPerLoss() {
            return lost == 0 ? 0 : (double) retransmissions / lost;
        }
    }

    private final Settings settings;

    public LossExperiment(Settings settings) {
        this.settings = settings;
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Runs one combination.
     *
     * @throws IllegalStateException if a message fails or its data is wrong (the run is not a measurement then)
     */
    public Result run(Mode mode, Op op, double loss, long seed) {
        Settings s = settings;
        try (SimNetwork net = new SimNetwork(seed)) {
            net.defaults(s.link());
            SimWire wa = net.attach("10.0.0.2");
            SimWire wb = net.attach("10.0.0.3");
            HcaLimits limits = HcaLimits.defaults().withSendWindow(s.window()).withRecovery(s.tuning());
            DeviceConfig config = DeviceConfig.defaults().withLimits(limits);
            try (RdmaDevice a = RdmaDevice.open(wa, config.withKeySeed(seed));
                 RdmaDevice b = RdmaDevice.open(wb, config.withKeySeed(seed + 1))) {
                LinkDirection ab = net.direction(wa, wb);
                LinkDirection ba = net.direction(wb, wa);
                if (loss > 0) {
                    ab.fault(Faults.drop(loss));
                    ba.fault(Faults.drop(loss));
                }
                return measure(net, a, b, ab, ba, mode, op, loss);
            }
        }
    }

    private Result measure(SimNetwork net, RdmaDevice a, RdmaDevice b, LinkDirection ab, LinkDirection ba, Mode mode,
                           Op op, double loss) {
        Settings s = settings;
        int slots = s.inFlight();
        int size = op.bytes;
        ByteBuffer bufA = ByteBuffer.allocateDirect(slots * size);
        ByteBuffer bufB = ByteBuffer.allocateDirect(slots * size);
        for (int i = 0; i < slots * size; i++) {
            bufA.put(i, (byte) (i * 31 + 7));
            bufB.put(i, (byte) (i * 17 + 3));
        }
        int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
        ProtectionDomain pdA = a.allocPd();
        ProtectionDomain pdB = b.allocPd();
        MemoryRegion mrA = pdA.registerMemory(bufA, access);
        MemoryRegion mrB = pdB.registerMemory(bufB, access);
        CompletionQueue cqA = a.createCq(1024);
        CompletionQueue cqB = b.createCq(1024);
        QpCaps caps = new QpCaps(slots, s.messages(), 1, 1, 0);
        QueuePair qa = pdA.createQp(QpInitAttributes.rc(cqA, cqA).withCaps(caps));
        QueuePair qb = pdB.createQp(QpInitAttributes.rc(cqB, cqB).withCaps(caps));
        RcOptions o = RcOptions.defaults().withMtu(s.mtu()).withRetry(s.timeoutExp(), s.retries(), 7)
                .withLossRecovery(mode.recovery);
        Connections.connectPair(qa, mrA, 0x100, qb, mrB, 0x200, o);
        if (op == Op.SEND4K) {
            for (int i = 0; i < s.messages(); i++) {
                qb.postRecv(new RecvWorkRequest().wrId(i).sge(mrB.address() + (long) (i % slots) * size, size, mrB.lkey()));
            }
        }
        long[] postedAt = new long[s.messages()];
        long[] latency = new long[s.messages()];
        WorkCompletion[] wcs = new WorkCompletion[64];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        var sched = net.scheduler();
        long start = sched.nanoTime();
        int posted = 0;
        int done = 0;
        while (done < s.messages()) {
            while (posted < s.messages() && posted - done < slots) {
                long slot = (long) (posted % slots) * size;
                SendWorkRequest wr = new SendWorkRequest().wrId(posted).opcode(op.opcode).signaled(true)
                        .sge(mrA.address() + slot, size, mrA.lkey());
                if (op != Op.SEND4K) {
                    wr.rdma(mrB.address() + slot, mrB.rkey());
                }
                postedAt[posted] = sched.nanoTime();
                qa.postSend(wr);
                posted++;
            }
            if (!sched.runUntil(() -> cqA.size() > 0, 60_000_000_000L)) {
                throw new IllegalStateException(mode.label + " " + op.label + " at loss " + loss
                        + ": no completion in 60 s of virtual time");
            }
            int n = cqA.poll(wcs);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                if (wc.status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException(mode.label + " " + op.label + " at loss " + loss + ": message "
                            + wc.wrId() + " completed " + wc.status());
                }
                if (wc.wrId() != done) {
                    throw new IllegalStateException("completions out of posting order: " + wc.wrId() + " after " + (done - 1));
                }
                latency[done] = sched.nanoTime() - postedAt[done];
                done++;
            }
        }
        long nanos = sched.nanoTime() - start;
        if (op == Op.SEND4K) {
            sched.runUntil(() -> cqB.size() >= s.messages(), 1_000_000_000L);
            if (cqB.size() != s.messages()) {
                throw new IllegalStateException("the receiver completed " + cqB.size() + " of " + s.messages() + " SENDs");
            }
        }
        // Every slot used was last written with the same bytes: the destination must hold them
        // (fewer messages than slots leave the last slots untouched).
        int used = Math.min(slots, s.messages()) * size;
        ByteBuffer from = (op == Op.READ64K ? bufB : bufA).clear().limit(used);
        ByteBuffer to = (op == Op.READ64K ? bufA : bufB).clear().limit(used);
        if (from.compareTo(to) != 0) {
            throw new IllegalStateException(mode.label + " " + op.label + " at loss " + loss + ": data differs");
        }
        long sent = a.counters().get(Counter.SENT_PKTS) + b.counters().get(Counter.SENT_PKTS);
        long lost = ab.faultStats().dropped() + ba.faultStats().dropped();
        long retrans = a.counters().get(Counter.RETRANSMITTED_PKTS);
        if (op == Op.READ64K) {
            long needed = (long) s.messages() * ((size + s.mtu().bytes() - 1) / s.mtu().bytes());
            retrans += Math.max(0, b.counters().get(Counter.READ_RESPONSES_SENT) - needed);
        }
        Arrays.sort(latency);
        return new Result(mode, op, loss, (long) s.messages() * size, nanos, sent, lost, retrans,
                a.counters().get(Counter.LOCAL_ACK_TIMEOUTS), percentile(latency, 0.50) / 1000.0, percentile(latency, 0.99) / 1000.0);
    }

    private static long percentile(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
