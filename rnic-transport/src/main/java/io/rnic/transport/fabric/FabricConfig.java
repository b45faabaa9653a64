package io.rnic.transport.fabric;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Every parameter of the simulated fabric's switches and of the hosts on it, with defaults
 * whose sources are named on each accessor. Immutable: each {@code with...} returns a validated
 * copy. {@link #DEFAULT} is the HPCC-style configuration.
 *
 * <p>Sources, in short: <b>HPCC</b> is alibaba-edu/High-Precision-Congestion-Control (its ns-3
 * simulator, files under {@code simulation/}); <b>ConWeave</b> is conweave-project/conweave-ns3;
 * <b>Cumulus</b> is NVIDIA's Cumulus Linux user guide, "RDMA over Converged Ethernet - RoCE",
 * default RoCE configuration; <b>Junos</b> is Juniper's "PFC watchdog" configuration guide.
 */
public final class FabricConfig {
    /** How a port chooses among its eight priority queues. */
    public enum Scheduling {
        /** The highest non-empty, unpaused priority first (7 highest). */
        STRICT,
        /** Deficit weighted round robin, with the control priority served strictly above it. */
        DWRR
    }

    /** ECT(0), the ECN codepoint a sender of ECN-capable traffic sets (RFC 3168 §5). */
    public static final int ECT0 = 0b10;

    /** The defaults, each named on its accessor. */
    public static final FabricConfig DEFAULT = new FabricConfig(new V());

    /** The mutable values a {@code with} copies, changes and validates before wrapping. */
    private static final class V implements Cloneable {
        long bufferBytes = 32L * 1024 * 1024;
        double alphaIn = 1.0 / 8;
        double alphaOut = 1.0;
        long reserveBytes = 4 * 1024;
        long resumeOffsetBytes = 3 * 1024;
        long staticXoffBytes = 0;
        boolean ecn = true;
        boolean ecnMarkOnDequeue = true;
        EcnThresholds ecnThresholds = EcnThresholds.defaults();
        boolean pfc = true;
        int losslessMask = 1 << 3;
        int pauseQuanta = PfcFrame.MAX_QUANTA;
        int maxFrameBytes = 4_200;
        long pfcResponseNanos = 0;
        boolean watchdog = false;
        long watchdogDetectNanos = 200_000_000L;
        long watchdogRecoveryNanos = 200_000_000L;
        Scheduling scheduling = Scheduling.STRICT;
        int[] dwrrWeights = {1, 1, 1, 1, 1, 1, 1, 1};
        int dwrrQuantumBytes = 4_200;
        long forwardingDelayNanos = 0;
        int ecmpSeed = 0;
        boolean spray = false;
        long convergenceNanos = 100_000L;
        byte[] dscpToPriority = classSelectorMap();
        int controlPriority = 7;
        boolean hostsSendEct = true;
        int hostDscp = 26;

        V copy() {
            try {
                V c = (V) clone();
                c.dwrrWeights = dwrrWeights.clone();
                c.dscpToPriority = dscpToPriority.clone();
                return c;
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }

        void validate() {
            if (bufferBytes <= 0) {
                throw new IllegalArgumentException("switch buffer " + bufferBytes + " B must be positive");
            }
            if (!(alphaIn > 0) || Double.isInfinite(alphaIn) || !(alphaOut > 0) || Double.isInfinite(alphaOut)) {
                throw new IllegalArgumentException("alpha_in " + alphaIn + " and alpha_out " + alphaOut + " must be positive and finite");
            }
            if (reserveBytes < 0 || resumeOffsetBytes < 0 || staticXoffBytes < 0) {
                throw new IllegalArgumentException("reserve " + reserveBytes + " B, resume offset " + resumeOffsetBytes
                        + " B and static XOFF " + staticXoffBytes + " B must not be negative");
            }
            if ((losslessMask & ~0xFF) != 0) {
                throw new IllegalArgumentException("lossless priorities 0x" + Integer.toHexString(losslessMask) + " name priorities above 7");
            }
            if (pauseQuanta < 1 || pauseQuanta > PfcFrame.MAX_QUANTA) {
                throw new IllegalArgumentException("PAUSE quanta " + pauseQuanta + " must be 1..65535 (0 would be a RESUME)");
            }
            if (maxFrameBytes < 64) {
                throw new IllegalArgumentException("maximum frame " + maxFrameBytes + " B is below Ethernet's 64-byte minimum");
            }
            if (pfcResponseNanos < 0 || forwardingDelayNanos < 0 || convergenceNanos < 0) {
                throw new IllegalArgumentException("PFC response " + pfcResponseNanos + " ns, forwarding delay " + forwardingDelayNanos
                        + " ns and convergence delay " + convergenceNanos + " ns must not be negative");
            }
            if (watchdogDetectNanos <= 0 || watchdogRecoveryNanos <= 0) {
                throw new IllegalArgumentException("PFC watchdog detection " + watchdogDetectNanos + " ns and recovery "
                        + watchdogRecoveryNanos + " ns must be positive");
            }
            Objects.requireNonNull(scheduling, "scheduling");
            Objects.requireNonNull(ecnThresholds, "ecnThresholds");
            if (dwrrWeights.length != 8) {
                throw new IllegalArgumentException("DWRR needs 8 weights, one per priority, not " + dwrrWeights.length);
            }
            for (int p = 0; p < 8; p++) {
                if (dwrrWeights[p] < 1) {
                    throw new IllegalArgumentException("DWRR weight " + dwrrWeights[p] + " of priority " + p + " must be at least 1");
                }
            }
            if (dwrrQuantumBytes < 1) {
                throw new IllegalArgumentException("DWRR quantum " + dwrrQuantumBytes + " B must be at least 1");
            }
            if (controlPriority < 0 || controlPriority > 7) {
                throw new IllegalArgumentException("control priority " + controlPriority + " is not 0..7");
            }
            if (hostDscp < 0 || hostDscp > 63) {
                throw new IllegalArgumentException("host DSCP " + hostDscp + " is not 0..63");
            }
        }
    }

    private static byte[] classSelectorMap() {
        byte[] m = new byte[64];
        for (int d = 0; d < 64; d++) {
            m[d] = (byte) (d >>> 3);
        }
        return m;
    }

    private final V v;

    private FabricConfig(V v) {
        this.v = v;
    }

    private FabricConfig with(Consumer<V> change) {
        V c = v.copy();
        change.accept(c);
        c.validate();
        return new FabricConfig(c);
    }

    // ---------------------------------------------------------------------------------------
    // Switch buffer (MMU)

    /**
     * Each switch's packet buffer, headroom and reserves included. Default 32 MiB
     * (33,554,432 B): HPCC's {@code mix/config.txt} {@code BUFFER_SIZE 32}, which {@code third.cc}
     * multiplies by 1024·1024.
     */
    public long bufferBytes() {
        return v.bufferBytes;
    }

    /** With a switch buffer of {@code bytes}. */
    public FabricConfig withBufferBytes(long bytes) {
        return with(c -> c.bufferBytes = bytes);
    }

    /**
     * α of the PFC dynamic threshold, {@code α_in × (shared pool − shared bytes in use)}.
     * Default 1/8: HPCC's {@code third.cc} starts every port's {@code pfc_a_shift} at 3
     * (threshold = free >> 3). (HPCC also lowers the shift by one per doubling of a port's rate
     * above the NIC rate; here one α serves every port.)
     */
    public double alphaIn() {
        return v.alphaIn;
    }

    /** With PFC dynamic-threshold α {@code alpha}. */
    public FabricConfig withAlphaIn(double alpha) {
        return with(c -> c.alphaIn = alpha);
    }

    /**
     * α of the lossy egress dynamic threshold, {@code α_out × (buffer outside headroom − bytes
     * held there)}. Default 1: ConWeave's {@code switch-mmu.cc} ({@code EgressAlpha}). HPCC has
     * no egress limit (its every priority is lossless).
     */
    public double alphaOut() {
        return v.alphaOut;
    }

    /** With lossy egress dynamic-threshold α {@code alpha}. */
    public FabricConfig withAlphaOut(double alpha) {
        return with(c -> c.alphaOut = alpha);
    }

    /** Reserve per (ingress port, priority). Default 4,096 B: HPCC's {@code switch-mmu.cc} ({@code reserve = 4 * 1024}). */
    public long reserveBytes() {
        return v.reserveBytes;
    }

    /** With a reserve of {@code bytes} per (ingress port, priority). */
    public FabricConfig withReserveBytes(long bytes) {
        return with(c -> c.reserveBytes = bytes);
    }

    /**
     * How far below the PFC threshold a paused priority's shared bytes must fall before RESUME.
     * Default 3,072 B: HPCC's {@code switch-mmu.cc} ({@code resume_offset = 3 * 1024}).
     */
    public long resumeOffsetBytes() {
        return v.resumeOffsetBytes;
    }

    /** With a resume offset of {@code bytes}. */
    public FabricConfig withResumeOffsetBytes(long bytes) {
        return with(c -> c.resumeOffsetBytes = bytes);
    }

    /**
     * A static XOFF threshold on a (port, priority)'s shared bytes, or 0 for the dynamic
     * threshold. Default 0 (dynamic): HPCC always uses the dynamic threshold (its
     * {@code USE_DYNAMIC_PFC_THRESHOLD} knob is parsed but never read).
     */
    public long staticXoffBytes() {
        return v.staticXoffBytes;
    }

    /** With a static XOFF threshold of {@code bytes} (0: dynamic). */
    public FabricConfig withStaticXoffBytes(long bytes) {
        return with(c -> c.staticXoffBytes = bytes);
    }

    // ---------------------------------------------------------------------------------------
    // ECN

    /**
     * Whether switches mark ECN and hosts send ECN-capable packets. Default on: HPCC's
     * {@code mix/config.txt} {@code ENABLE_QCN 1}.
     */
    public boolean ecnEnabled() {
        return v.ecn;
    }

    /** With ECN marking on or off. */
    public FabricConfig withEcn(boolean on) {
        return with(c -> c.ecn = on);
    }

    /**
     * Whether the marking decision reads the egress queue when a packet leaves it (true) or
     * when it joins it (false). Default dequeue: HPCC's {@code switch-node.cc} marks in
     * {@code SwitchNotifyDequeue}, after the departing packet has left the queue; ConWeave does
     * the same.
     */
    public boolean ecnMarkOnDequeue() {
        return v.ecnMarkOnDequeue;
    }

    /** With marking at dequeue ({@code true}) or at enqueue. */
    public FabricConfig withEcnMarkOnDequeue(boolean onDequeue) {
        return with(c -> c.ecnMarkOnDequeue = onDequeue);
    }

    /** Kmin, Kmax and Pmax by port rate. Default {@link EcnThresholds#defaults()} (HPCC's table and scaling rule). */
    public EcnThresholds ecnThresholds() {
        return v.ecnThresholds;
    }

    /** With these marking thresholds. */
    public FabricConfig withEcnThresholds(EcnThresholds thresholds) {
        return with(c -> c.ecnThresholds = Objects.requireNonNull(thresholds, "thresholds"));
    }

    // ---------------------------------------------------------------------------------------
    // PFC

    /** Whether lossless priorities send and honour PFC. Default on: HPCC's {@code QbbNetDevice} has {@code QbbEnabled} true. */
    public boolean pfcEnabled() {
        return v.pfc;
    }

    /** With PFC on or off (off: every priority is lossy). */
    public FabricConfig withPfc(boolean on) {
        return with(c -> c.pfc = on);
    }

    /**
     * The lossless priorities, as a bit mask (bit p: priority p). Default {3}: HPCC's flows all
     * use priority group 3 ({@code mix/flow.txt}), and Cumulus's RoCE lossless mode enables
     * PFC on switch priority 3.
     */
    public int losslessMask() {
        return v.losslessMask;
    }

    /** The lossless priorities in force: {@link #losslessMask()} if PFC is on, else none. */
    public int effectiveLosslessMask() {
        return v.pfc ? v.losslessMask : 0;
    }

    /** Whether {@code priority} is lossless in force (PFC on and the priority in the mask). */
    public boolean isLossless(int priority) {
        return (effectiveLosslessMask() >>> checkPriority(priority) & 1) != 0;
    }

    /** With these lossless priorities (0..7 each). */
    public FabricConfig withLosslessPriorities(int... priorities) {
        int m = 0;
        for (int p : priorities) {
            m |= 1 << checkPriority(p);
        }
        int mask = m;
        return with(c -> c.losslessMask = mask);
    }

    /**
     * The pause time a switch puts in a PAUSE, in quanta of 512 bit times. Default 0xFFFF, the
     * longest (335.5 µs at 100 Gb/s): HPCC's pauses last until an explicit RESUME (it ignores
     * the time), and the longest pause with an explicit RESUME is the nearest 802.1Qbb
     * behaviour, while its expiry still bounds what a lost RESUME costs. A switch that stays
     * congested must send PAUSE again before the time runs out.
     */
    public int pauseQuanta() {
        return v.pauseQuanta;
    }

    /** With {@code quanta} (1..65535) in each PAUSE. */
    public FabricConfig withPauseQuanta(int quanta) {
        return with(c -> c.pauseQuanta = quanta);
    }

    /**
     * The largest frame on the wire, for headroom. Default 4,200 B: a 4,096-byte RoCEv2
     * payload (the largest IBTA path MTU) with its headers over IPv6 (Ethernet 14, IPv6 40,
     * UDP 8, BTH 12, RETH 16, ImmDt 4, ICRC 4, FCS 4: 4,198 B), rounded up.
     */
    public int maxFrameBytes() {
        return v.maxFrameBytes;
    }

    /** With a largest frame of {@code bytes}. */
    public FabricConfig withMaxFrameBytes(int bytes) {
        return with(c -> c.maxFrameBytes = bytes);
    }

    /**
     * How long an upstream port takes to act on a PAUSE it has received, for headroom. Default
     * 0: the simulated ports act on a PAUSE the moment it arrives. Set it to model a MAC's
     * response time.
     */
    public long pfcResponseNanos() {
        return v.pfcResponseNanos;
    }

    /** With a PAUSE response time of {@code nanos}. */
    public FabricConfig withPfcResponseNanos(long nanos) {
        return with(c -> c.pfcResponseNanos = nanos);
    }

    /**
     * The headroom per lossless priority of an ingress port whose link has this delay and rate:
     * {@code 2 × delay × rate + 2 × maxFrameBytes + 64 + pfcResponseNanos × rate}, in bytes
     * (issue 41's formula; the 64 is the PAUSE frame).
     */
    public long headroomBytes(long delayNanos, long bitsPerSecond) {
        return SharedBufferMmu.headroomBytes(delayNanos, bitsPerSecond, v.maxFrameBytes, v.pfcResponseNanos);
    }

    /**
     * Whether the PFC watchdog is on. Default off: it drops lossless traffic by design, so a run
     * asks for it (as switch operators enable it).
     */
    public boolean pfcWatchdogEnabled() {
        return v.watchdog;
    }

    /**
     * How long a priority must be paused without a break before the watchdog acts. Default
     * 200 ms: Junos's default detection (two polls 100 ms apart).
     */
    public long pfcWatchdogDetectNanos() {
        return v.watchdogDetectNanos;
    }

    /** How long the watchdog ignores PAUSE and drops once it acts. Default 200 ms: Junos's default recovery time. */
    public long pfcWatchdogRecoveryNanos() {
        return v.watchdogRecoveryNanos;
    }

    /** With the PFC watchdog on or off. */
    public FabricConfig withPfcWatchdog(boolean on) {
        return with(c -> c.watchdog = on);
    }

    /** With the PFC watchdog on, detecting after {@code detectNanos} and recovering for {@code recoveryNanos}. */
    public FabricConfig withPfcWatchdog(long detectNanos, long recoveryNanos) {
        return with(c -> {
            c.watchdog = true;
            c.watchdogDetectNanos = detectNanos;
            c.watchdogRecoveryNanos = recoveryNanos;
        });
    }

    // ---------------------------------------------------------------------------------------
    // Scheduling and forwarding

    /**
     * How a port picks its next queue. Default {@link Scheduling#STRICT}: issue 41's default.
     * (Cumulus's RoCE default is DWRR 50/50 between the RoCE and other traffic with CNPs
     * strict; {@link #withDwrr} sets that up.)
     */
    public Scheduling scheduling() {
        return v.scheduling;
    }

    /** The DWRR weights, priority 0 first (a copy). Default all 1. */
    public int[] dwrrWeights() {
        return v.dwrrWeights.clone();
    }

    /**
     * Bytes a DWRR weight of 1 earns per turn. Default 4,200 B, the largest frame
     * ({@link #maxFrameBytes()}): with a quantum of at least the largest packet, DRR sends at
     * least one packet per turn (Shreedhar and Varghese, 1995).
     */
    public int dwrrQuantumBytes() {
        return v.dwrrQuantumBytes;
    }

    /** With strict-priority scheduling. */
    public FabricConfig withStrictPriority() {
        return with(c -> c.scheduling = Scheduling.STRICT);
    }

    /** With DWRR scheduling: eight weights, priority 0 first, and the quantum per weight. */
    public FabricConfig withDwrr(int[] weights, int quantumBytes) {
        int[] w = weights.clone();
        return with(c -> {
            c.scheduling = Scheduling.DWRR;
            c.dwrrWeights = w;
            c.dwrrQuantumBytes = quantumBytes;
        });
    }

    /** Time a switch takes to forward a packet, before serialization. Default 0: issue 41 (HPCC models none either). */
    public long forwardingDelayNanos() {
        return v.forwardingDelayNanos;
    }

    /** With a forwarding delay of {@code nanos}. */
    public FabricConfig withForwardingDelayNanos(long nanos) {
        return with(c -> c.forwardingDelayNanos = nanos);
    }

    /**
     * The ECMP seed base. Default 0. Switch {@code n} hashes with seed {@code ecmpSeed + n}
     * ({@link #switchEcmpSeed}); at 0 that is HPCC's {@code switch-node.cc}, which seeds each
     * switch's murmur3 with its node id. Different seeds per switch keep the tiers' choices
     * independent (one seed everywhere polarizes: every switch splits the same flows the same way).
     */
    public int ecmpSeed() {
        return v.ecmpSeed;
    }

    /** The murmur3 seed of switch {@code nodeId}: {@code ecmpSeed() + nodeId}. */
    public int switchEcmpSeed(int nodeId) {
        return v.ecmpSeed + nodeId;
    }

    /** With ECMP seed base {@code seed}. */
    public FabricConfig withEcmpSeed(int seed) {
        return with(c -> c.ecmpSeed = seed);
    }

    /**
     * Whether switches spray packets over the equal-cost ports (a choice per packet, from the
     * seeded random source) instead of hashing the flow. Default off: ECMP per flow, as HPCC.
     * Spraying reorders a flow's packets.
     */
    public boolean sprayPerPacket() {
        return v.spray;
    }

    /** With per-packet spraying on or off. */
    public FabricConfig withSprayPerPacket(boolean on) {
        return with(c -> c.spray = on);
    }

    /**
     * How long after a link goes down (or comes back) the routes change; packets sent towards a
     * dead link meanwhile are lost. Default 100 µs. Chosen, not sourced: HPCC reroutes the
     * instant a link fails ({@code third.cc TakeDownLink}), which hides the loss window issue 41
     * wants to show, while routing-protocol convergence takes milliseconds to seconds. 100 µs is
     * about eight base RTTs of a k=8 fat tree at 100 Gb/s (12.5 µs), so a flow loses several
     * windows of packets, yet it fits in runs of a few simulated milliseconds.
     */
    public long linkFailureConvergenceNanos() {
        return v.convergenceNanos;
    }

    /** With a route convergence delay of {@code nanos}. */
    public FabricConfig withLinkFailureConvergenceNanos(long nanos) {
        return with(c -> c.convergenceNanos = nanos);
    }

    // ---------------------------------------------------------------------------------------
    // Priorities

    /**
     * The priority of a packet with DSCP {@code dscp} (0..63). Default {@code dscp >> 3}, the
     * class-selector convention (RFC 2474 §4.2.2: CSn is DSCP n·8): DSCP 26 (AF31, the common
     * RoCE data marking) is priority 3, and DSCP 48 (CS6, the common CNP marking) is priority 6.
     */
    public int priorityOfDscp(int dscp) {
        if (dscp < 0 || dscp > 63) {
            throw new IllegalArgumentException("DSCP " + dscp + " is not 0..63");
        }
        return v.dscpToPriority[dscp];
    }

    /** The DSCP to priority map, DSCP 0 first (a copy of 64 entries). */
    public int[] dscpToPriority() {
        int[] m = new int[64];
        for (int d = 0; d < 64; d++) {
            m[d] = v.dscpToPriority[d];
        }
        return m;
    }

    /** With DSCP {@code dscp} mapped to {@code priority}. */
    public FabricConfig withDscpPriority(int dscp, int priority) {
        if (dscp < 0 || dscp > 63) {
            throw new IllegalArgumentException("DSCP " + dscp + " is not 0..63");
        }
        checkPriority(priority);
        return with(c -> c.dscpToPriority[dscp] = (byte) priority);
    }

    /**
     * The priority of CNPs and other control traffic, which is never marked. Default 7, the
     * highest, served first under strict priority. (Cumulus puts CNPs at switch priority 6,
     * served strictly; with this config's DSCP map a CNP marked CS6 lands in priority 6 unless
     * the sender puts it in this one.)
     */
    public int controlPriority() {
        return v.controlPriority;
    }

    /** With control priority {@code priority}. */
    public FabricConfig withControlPriority(int priority) {
        return with(c -> c.controlPriority = priority);
    }

    // ---------------------------------------------------------------------------------------
    // Hosts

    /**
     * Whether hosts send ECN-capable (ECT(0)) packets when ECN is on. Default true: RoCEv2 NICs
     * do (issue 41). Off, they send Not-ECT, which switches never mark.
     */
    public boolean hostsSendEct() {
        return v.hostsSendEct;
    }

    /** With hosts sending ECT(0) (when ECN is on) or Not-ECT. */
    public FabricConfig withHostsSendEct(boolean ect) {
        return with(c -> c.hostsSendEct = ect);
    }

    /**
     * The DSCP hosts put on RoCE traffic whose QP sets no traffic class. Default 26 (AF31),
     * the common RoCE default that switches map to the lossless priority 3 (Cumulus; Dell OS10's
     * default map puts DSCP 24 and 26 in traffic class 3). With ECT(0) that is the TOS byte 106
     * (26 &lt;&lt; 2 | 0b10), the value Mellanox/NVIDIA RoCE deployments commonly configure.
     */
    public int hostDscp() {
        return v.hostDscp;
    }

    /** With hosts marking DSCP {@code dscp}. */
    public FabricConfig withHostDscp(int dscp) {
        return with(c -> c.hostDscp = dscp);
    }

    /** The IPv4 TOS byte hosts send: {@code hostDscp << 2}, with ECT(0) if ECN is on and hosts send ECT. Default 106. */
    public int hostTos() {
        return v.hostDscp << 2 | (v.ecn && v.hostsSendEct ? ECT0 : 0);
    }

    // ---------------------------------------------------------------------------------------
    // The parts, made from this configuration

    /** A shared-buffer MMU for a switch whose ports have these headrooms ({@link #headroomBytes}). */
    SharedBufferMmu newMmu(long[] headroomPerPort) {
        return new SharedBufferMmu(v.bufferBytes, headroomPerPort, v.reserveBytes, v.resumeOffsetBytes,
                v.alphaIn, v.alphaOut, v.staticXoffBytes, effectiveLosslessMask());
    }

    /** A port's queue scheduler. */
    EgressScheduler newScheduler() {
        return v.scheduling == Scheduling.STRICT
                ? EgressScheduler.strictPriority()
                : EgressScheduler.dwrr(v.dwrrWeights, v.dwrrQuantumBytes, 1 << v.controlPriority);
    }

    /** A port's PFC receive state: only lossless priorities honour PAUSE. */
    PauseState newPauseState() {
        return new PauseState(effectiveLosslessMask());
    }

    /** A port's PFC watchdog, or null if the watchdog is off. */
    PfcWatchdog newWatchdog() {
        return v.watchdog ? new PfcWatchdog(v.watchdogDetectNanos, v.watchdogRecoveryNanos) : null;
    }

    private static int checkPriority(int priority) {
        if (priority < 0 || priority > 7) {
            throw new IllegalArgumentException("priority " + priority + " is not 0..7");
        }
        return priority;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FabricConfig f && toString().equals(f.toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    /** Every parameter, for a run's header. */
    @Override
    public String toString() {
        return "FabricConfig[buffer=" + v.bufferBytes + "B, alphaIn=" + v.alphaIn + ", alphaOut=" + v.alphaOut
                + ", reserve=" + v.reserveBytes + "B, resumeOffset=" + v.resumeOffsetBytes + "B, staticXoff="
                + (v.staticXoffBytes == 0 ? "dynamic" : v.staticXoffBytes + "B")
                + ", ecn=" + v.ecn + (v.ecnMarkOnDequeue ? " at dequeue" : " at enqueue") + ", " + v.ecnThresholds
                + ", pfc=" + v.pfc + ", lossless=0x" + Integer.toHexString(v.losslessMask) + ", pauseQuanta=" + v.pauseQuanta
                + ", maxFrame=" + v.maxFrameBytes + "B, pfcResponse=" + v.pfcResponseNanos + "ns"
                + ", watchdog=" + (v.watchdog ? v.watchdogDetectNanos + "ns/" + v.watchdogRecoveryNanos + "ns" : "off")
                + ", scheduling=" + v.scheduling + (v.scheduling == Scheduling.DWRR
                        ? " " + Arrays.toString(v.dwrrWeights) + " x " + v.dwrrQuantumBytes + "B" : "")
                + ", forwardingDelay=" + v.forwardingDelayNanos + "ns, ecmpSeed=" + v.ecmpSeed + ", spray=" + v.spray
                + ", convergence=" + v.convergenceNanos + "ns, dscpToPriority=" + Arrays.toString(v.dscpToPriority)
                + ", controlPriority=" + v.controlPriority + ", hostsSendEct=" + v.hostsSendEct + ", hostDscp=" + v.hostDscp + "]";
    }
}
