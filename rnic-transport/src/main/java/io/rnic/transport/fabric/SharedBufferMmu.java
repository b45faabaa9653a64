package io.rnic.transport.fabric;

/**
 * A switch's shared packet buffer, accounted in the style of the Broadcom MMU that HPCC's ns-3
 * simulator models ({@code simulation/src/point-to-point/model/switch-mmu.cc}), with the egress
 * dynamic threshold for lossy traffic that ConWeave's Broadcom-style MMU adds
 * ({@code conweave-ns3 src/point-to-point/model/switch-mmu.cc}).
 *
 * <p><b>Carving.</b> The buffer is split once, when the switch is built: a headroom per
 * (ingress port, lossless priority) ({@link #headroomBytes}), a reserve per (ingress port,
 * priority) for all eight priorities, and the shared pool, which is what is left. (HPCC carves
 * one reserve per port although it grants one per (port, queue); carving all of them is the
 * honest sum, so the guarantees can never exceed the buffer.)
 *
 * <p><b>Ingress accounting</b>, per (ingress port, priority): a packet's bytes go to the
 * reserve while it lasts, then to the shared pool, then, for a lossless priority, to the
 * headroom. The PFC threshold is the Choudhury–Hahne dynamic threshold over the shared pool,
 * {@code α_in × (shared pool − shared bytes in use)} (HPCC's {@code GetPfcThreshold}, with
 * α = 2^−pfc_a_shift), or a static XOFF threshold if one is configured.
 *
 * <p><b>Lossless priorities</b> are admitted at ingress: to the shared pool while the (port,
 * priority)'s shared bytes are below the threshold (so the packet that crosses it, and
 * triggers PAUSE, is still shared: the threshold is overshot by less than one packet), else to
 * the headroom; dropped only when the headroom is exhausted too, which is counted separately
 * ({@link #headroomOverflows}) because a correct headroom never lets it happen. (HPCC puts
 * the crossing packet in the headroom; then the headroom must hold one more frame than the
 * formula of {@link #headroomBytes} counts.)
 *
 * <p><b>Lossy priorities</b> are admitted at egress: a packet is tail-dropped when its egress
 * queue's bytes plus its own exceed {@code α_out × (buffer outside the headroom − bytes held
 * there)} (ConWeave's egress dynamic threshold, α_out = 1). HPCC has no egress limit at all
 * ({@code CheckEgressAdmission} always admits): every priority there is lossless. Lossy bytes
 * are still counted at ingress, so they shrink the pool the PFC threshold is computed from, as
 * one shared buffer does; the headroom carve is never theirs.
 *
 * <p><b>PAUSE and RESUME</b> (HPCC's {@code CheckShouldPause}/{@code CheckShouldResume}): pause a
 * lossless (port, priority) when headroom is in use or its shared bytes reach the threshold;
 * resume once no headroom is in use and its shared bytes are 0 or at least the resume offset
 * below the threshold. The caller keeps the "PAUSE outstanding" flag and passes it in.
 *
 * <p><b>Release</b> happens when a packet leaves its egress queue, headroom first, as HPCC
 * releases it: the accounting is per (port, priority), not per packet, so which bytes leave
 * first only decides how soon a paused priority resumes.
 *
 * <p>Ports are 0-based; arrays are indexed {@code [port * 8 + priority]}. All counts are longs;
 * no call allocates. Not thread-safe: one switch, one event loop.
 */
final class SharedBufferMmu {
    /** Priorities (traffic classes) per port. */
    static final int PRIORITIES = 8;
    /** An 802.1Qbb PAUSE frame on the wire: the 64-byte minimum Ethernet frame. */
    static final int PAUSE_FRAME_BYTES = 64;

    private final int ports;
    private final long bufferBytes;
    private final long reserveBytes;
    private final long resumeOffsetBytes;
    private final double alphaIn;
    private final double alphaOut;
    private final long staticXoffBytes;
    private final int losslessMask;
    private final long[] headroomLimit;
    private final long totalHeadroom;
    private final long totalReserve;
    private final long sharedPool;

    private final long[] ingress;
    private final long[] headroom;
    private final long[] egress;
    private long sharedUsed;
    /** Σ ingress: reserve and shared bytes held (everything outside the headroom). */
    private long heldOutsideHeadroom;
    private long headroomUsed;

    private final long[] headroomOverflows;
    private final long[] lossyDrops;

    /**
     * @param bufferBytes       the whole buffer, headroom and reserves included
     * @param headroomPerPort   the headroom of each ingress port, per lossless priority
     *                          ({@link #headroomBytes}); its length is the port count
     * @param reserveBytes      the reserve per (ingress port, priority)
     * @param resumeOffsetBytes how far below the threshold a paused priority's shared bytes
     *                          must fall before RESUME
     * @param alphaIn           α of the PFC dynamic threshold
     * @param alphaOut          α of the lossy egress dynamic threshold
     * @param staticXoffBytes   a static XOFF threshold on a (port, priority)'s shared bytes, or
     *                          0 for the dynamic threshold
     * @param losslessMask      bit p set: priority p is lossless (pass 0 when PFC is off)
     */
    SharedBufferMmu(long bufferBytes, long[] headroomPerPort, long reserveBytes, long resumeOffsetBytes,
            double alphaIn, double alphaOut, long staticXoffBytes, int losslessMask) {
        if (headroomPerPort.length == 0) {
            throw new IllegalArgumentException("a switch needs at least one port");
        }
        if (bufferBytes <= 0 || reserveBytes < 0 || resumeOffsetBytes < 0 || staticXoffBytes < 0) {
            throw new IllegalArgumentException("buffer " + bufferBytes + " B must be positive; reserve " + reserveBytes
                    + " B, resume offset " + resumeOffsetBytes + " B and static XOFF " + staticXoffBytes + " B must not be negative");
        }
        if (!(alphaIn > 0) || !(alphaOut > 0) || Double.isInfinite(alphaIn) || Double.isInfinite(alphaOut)) {
            throw new IllegalArgumentException("alpha_in " + alphaIn + " and alpha_out " + alphaOut + " must be positive and finite");
        }
        if ((losslessMask & ~0xFF) != 0) {
            throw new IllegalArgumentException("lossless priority mask 0x" + Integer.toHexString(losslessMask) + " names priorities above 7");
        }
        this.ports = headroomPerPort.length;
        this.bufferBytes = bufferBytes;
        this.reserveBytes = reserveBytes;
        this.resumeOffsetBytes = resumeOffsetBytes;
        this.alphaIn = alphaIn;
        this.alphaOut = alphaOut;
        this.staticXoffBytes = staticXoffBytes;
        this.losslessMask = losslessMask;
        this.headroomLimit = headroomPerPort.clone();
        int losslessCount = Integer.bitCount(losslessMask);
        long hdrm = 0;
        for (int p = 0; p < ports; p++) {
            if (headroomLimit[p] < 0) {
                throw new IllegalArgumentException("port " + p + ": headroom " + headroomLimit[p] + " B is negative");
            }
            hdrm += headroomLimit[p] * losslessCount;
        }
        this.totalHeadroom = hdrm;
        this.totalReserve = (long) ports * PRIORITIES * reserveBytes;
        this.sharedPool = bufferBytes - totalHeadroom - totalReserve;
        if (sharedPool <= 0) {
            throw new IllegalArgumentException("buffer " + bufferBytes + " B leaves no shared pool: it must hold the headroom ("
                    + totalHeadroom + " B) and the reserves (" + totalReserve + " B) of " + ports + " ports first");
        }
        int cells = ports * PRIORITIES;
        ingress = new long[cells];
        headroom = new long[cells];
        egress = new long[cells];
        headroomOverflows = new long[cells];
        lossyDrops = new long[cells];
    }

    /**
     * The headroom a lossless (ingress port, priority) needs, in bytes: what the upstream can
     * still send after the switch decides to pause it (issue 41's formula):
     * {@code 2 × delay × rate} (the PAUSE travelling up, and the data already on the wire
     * travelling down) {@code + 2 × maxFrame} (the frame the switch is sending upstream when it
     * decides, which the PAUSE waits behind, and the frame the upstream has begun when the PAUSE
     * arrives) {@code + 64} (the PAUSE frame itself) {@code + response × rate} (the upstream's
     * reaction time). The byte terms from time are rounded up together.
     */
    static long headroomBytes(long delayNanos, long bitsPerSecond, int maxFrameBytes, long responseNanos) {
        if (delayNanos < 0 || responseNanos < 0 || maxFrameBytes <= 0) {
            throw new IllegalArgumentException("delay " + delayNanos + " ns and response " + responseNanos
                    + " ns must not be negative and the maximum frame " + maxFrameBytes + " B must be positive");
        }
        return Rates.bytesIn(Math.addExact(Math.multiplyExact(2, delayNanos), responseNanos), bitsPerSecond)
                + 2L * maxFrameBytes + PAUSE_FRAME_BYTES;
    }

    private static int cell(int port, int priority) {
        if ((priority & ~7) != 0) {
            throw new IllegalArgumentException("priority " + priority + " is not 0..7");
        }
        return port * PRIORITIES + priority;
    }

    /** Whether {@code priority} is lossless here. */
    boolean isLossless(int priority) {
        return (losslessMask >>> priority & 1) != 0;
    }

    /** The PFC threshold on a (port, priority)'s shared bytes now. */
    long xoffThreshold() {
        if (staticXoffBytes > 0) {
            return staticXoffBytes;
        }
        return (long) (alphaIn * (sharedPool - sharedUsed));
    }

    private long sharedOf(int cell) {
        long s = ingress[cell] - reserveBytes;
        return s > 0 ? s : 0;
    }

    /**
     * Admits a packet of {@code size} bytes that arrived on {@code inPort} at {@code priority}
     * and is bound for {@code outPort}, or drops it; returns whether it was admitted. A lossless
     * packet is dropped only when the headroom is exhausted ({@link #headroomOverflows}); a lossy
     * one when its egress queue is over the egress dynamic threshold ({@link #lossyDrops}).
     */
    boolean admit(int inPort, int priority, int outPort, int size) {
        int i = cell(inPort, priority);
        int e = cell(outPort, priority);
        if (size <= 0) {
            throw new IllegalArgumentException("packet size " + size + " B must be positive");
        }
        long before = sharedOf(i);
        long after = ingress[i] + size - reserveBytes;
        if (after < 0) {
            after = 0;
        }
        long delta = after - before;
        if (isLossless(priority)) {
            // Shared while the (port, priority) is below the threshold before this packet: the
            // packet that crosses it is the one that triggers PAUSE, and the headroom is for
            // what arrives after that decision (HPCC puts the crossing packet in headroom too,
            // which a headroom sized by the formula would have to hold on top).
            if (delta == 0 || (before < xoffThreshold() && sharedUsed + delta <= sharedPool)) {
                take(i, size, delta);
            } else if (headroom[i] + size <= headroomLimit[inPort]) {
                headroom[i] += size;
                headroomUsed += size;
            } else {
                headroomOverflows[i]++;
                return false;
            }
        } else {
            long free = bufferBytes - totalHeadroom - heldOutsideHeadroom;
            if (egress[e] + size > (long) (alphaOut * free) || sharedUsed + delta > sharedPool) {
                lossyDrops[e]++;
                return false;
            }
            take(i, size, delta);
        }
        egress[e] += size;
        return true;
    }

    private void take(int i, int size, long sharedDelta) {
        ingress[i] += size;
        heldOutsideHeadroom += size;
        sharedUsed += sharedDelta;
    }

    /**
     * Releases a packet admitted with the same ports, priority and size, as it leaves its
     * egress queue: headroom first, then shared, then reserve.
     *
     * @throws IllegalStateException if more is released than was admitted (an accounting bug)
     */
    void release(int inPort, int priority, int outPort, int size) {
        int i = cell(inPort, priority);
        int e = cell(outPort, priority);
        long fromHeadroom = Math.min(headroom[i], size);
        long rest = size - fromHeadroom;
        if (rest > ingress[i] || size > egress[e]) {
            throw new IllegalStateException("port " + inPort + " priority " + priority + " releases " + size
                    + " B it does not hold (ingress " + ingress[i] + " B, headroom " + headroom[i] + " B, egress " + egress[e] + " B)");
        }
        headroom[i] -= fromHeadroom;
        headroomUsed -= fromHeadroom;
        if (rest > 0) {
            long before = sharedOf(i);
            ingress[i] -= rest;
            heldOutsideHeadroom -= rest;
            sharedUsed -= before - sharedOf(i);
        }
        egress[e] -= size;
    }

    /**
     * Whether to send PAUSE for ({@code port}, {@code priority}) now: it is lossless, no PAUSE is
     * outstanding, and headroom is in use or its shared bytes have reached the threshold.
     */
    boolean shouldPause(int port, int priority, boolean pauseOutstanding) {
        int i = cell(port, priority);
        if (pauseOutstanding || !isLossless(priority)) {
            return false;
        }
        return headroom[i] > 0 || sharedOf(i) >= xoffThreshold();
    }

    /**
     * Whether to send RESUME for ({@code port}, {@code priority}) now: a PAUSE is outstanding, no
     * headroom is in use, and its shared bytes are 0 or at least the resume offset below the
     * threshold (the hysteresis that keeps PAUSE and RESUME from alternating every packet).
     */
    boolean shouldResume(int port, int priority, boolean pauseOutstanding) {
        int i = cell(port, priority);
        if (!pauseOutstanding || !isLossless(priority) || headroom[i] > 0) {
            return false;
        }
        long shared = sharedOf(i);
        return shared == 0 || shared + resumeOffsetBytes <= xoffThreshold();
    }

    // ---------------------------------------------------------------------------------------
    // State and counters

    int ports() {
        return ports;
    }

    /** Bytes of the shared pool (the buffer less all headroom and reserves). */
    long sharedPoolBytes() {
        return sharedPool;
    }

    /** Shared-pool bytes in use. */
    long sharedUsed() {
        return sharedUsed;
    }

    /** Every byte held: reserves, shared and headroom. */
    long usedBytes() {
        return heldOutsideHeadroom + headroomUsed;
    }

    /** Headroom bytes carved for all lossless (port, priority)s. */
    long totalHeadroomBytes() {
        return totalHeadroom;
    }

    /** Reserve bytes carved for all (port, priority)s. */
    long totalReserveBytes() {
        return totalReserve;
    }

    /** Port {@code port}'s headroom per lossless priority. */
    long headroomLimit(int port) {
        return headroomLimit[port];
    }

    /** Headroom bytes ({@code port}, {@code priority}) holds. */
    long headroomInUse(int port, int priority) {
        return headroom[cell(port, priority)];
    }

    /** Reserve and shared bytes ({@code port}, {@code priority}) holds as an ingress. */
    long ingressBytes(int port, int priority) {
        return ingress[cell(port, priority)];
    }

    /** Shared bytes ({@code port}, {@code priority}) holds as an ingress: above its reserve. */
    long sharedBytes(int port, int priority) {
        return sharedOf(cell(port, priority));
    }

    /** Bytes queued for egress at ({@code port}, {@code priority}): the queue ECN marking reads. */
    long egressBytes(int port, int priority) {
        return egress[cell(port, priority)];
    }

    /** Lossless packets dropped at ({@code inPort}, {@code priority}) because the headroom was full. */
    long headroomOverflows(int inPort, int priority) {
        return headroomOverflows[cell(inPort, priority)];
    }

    /** Lossless packets dropped for want of headroom, all ports. */
    long headroomOverflows() {
        long s = 0;
        for (long v : headroomOverflows) {
            s += v;
        }
        return s;
    }

    /** Lossy packets tail-dropped at egress ({@code outPort}, {@code priority}). */
    long lossyDrops(int outPort, int priority) {
        return lossyDrops[cell(outPort, priority)];
    }

    /** Lossy packets tail-dropped, all ports. */
    long lossyDrops() {
        long s = 0;
        for (long v : lossyDrops) {
            s += v;
        }
        return s;
    }
}
