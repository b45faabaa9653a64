package io.rnic.core.hca;

import io.netty.buffer.ByteBuf;
import io.rnic.core.memory.KeyTable;
import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.memory.PKeyTable;
import io.rnic.core.memory.ProtectionDomain;
import io.rnic.core.packet.DecodeResult;
import io.rnic.core.packet.Icrc;
import io.rnic.core.packet.PacketDecoder;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.time.Scheduler;
import io.rnic.core.wire.PacketSink;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.Counter;
import io.rnic.verbs.Counters;
import io.rnic.verbs.IcrcPolicy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol core of one emulated HCA with one port: the receive path up to the destination
 * QP (decode, ICRC, QP number lookup), the table of QP numbers, keys, P_Keys, counters and the
 * packet sink. It knows nothing of transports: a QP registers a {@link QpEndpoint} under the
 * number it reserved, and everything past the lookup is the endpoint's. It has no thread of its
 * own: every method except the key table's registration and the number table runs on the thread
 * of its {@link Scheduler}, which is also where packets arrive.
 */
public final class Hca {
    private static final Logger LOG = LoggerFactory.getLogger(Hca.class);
    /** rxe hands out QP numbers from 0x11 in practice; 0 and 1 are the special QPs. */
    static final int FIRST_QPN = 0x11;
    /** The GSI's QP number, fixed by the specification. */
    public static final int GSI_QPN = 1;

    private final InetAddress address;
    private final HcaLimits limits;
    private final Scheduler scheduler;
    private final PacketSink sink;
    /** QPs send ECN-capable packets: on by default where the network marks congestion (a fabric with ECN). */
    private volatile boolean ecn;
    /** The QPs' congestion control and the device's CNPs, for QPs created from now on. */
    private volatile io.rnic.verbs.CongestionControlConfig congestionControl = io.rnic.verbs.CongestionControlConfig.none();
    private final KeyTable keys;
    private final PKeyTable pkeys;
    private final Counters counters = new Counters();
    private final Pitfalls pitfalls;
    private final PacketDecoder decoder = new PacketDecoder();
    private final RocePacket rx = new RocePacket();
    private final PacketEncoder encoder = new PacketEncoder();
    private final RocePacket tx = new RocePacket();
    private final Icrc icrc = new Icrc();
    private final PseudoHeader rxPseudo = new PseudoHeader();
    private InetAddress rxSource;
    private InetAddress rxDestination;
    private final Object atomicLock = new Object();
    private volatile IcrcPolicy icrcPolicy = IcrcPolicy.STRICT;
    private volatile QpEndpoint[] qps = new QpEndpoint[64];
    private int nextQpn = FIRST_QPN;
    /** Where the specification leaves the choice open (strict mode draws at random). */
    private volatile UndefinedBehaviour undefined = UndefinedBehaviour.DEFINED;
    /** QP numbers reserved and not yet attached or released: a drawn number must avoid them. */
    private final java.util.BitSet reserved = new java.util.BitSet();
    private int liveQps;
    private boolean gsiReserved;
    private int nextSrqn = 1;
    /** Objects of each {@link DeviceResource} kind in use, by ordinal. */
    private final java.util.concurrent.atomic.AtomicIntegerArray objectsInUse =
            new java.util.concurrent.atomic.AtomicIntegerArray(DeviceResource.values().length);
    private int internalErrors;
    /** Work owed until the end of the receive batch (coalesced ACKs); protocol thread only. */
    private Runnable[] atBatchEnd = new Runnable[16];
    /** Bytes of packets held in the QPs' reorder buffers (protocol thread). */
    private long reorderBytesHeld;
    private int atBatchEndCount;
    private volatile Consumer<AsyncEvent> asyncListener = e -> LOG.debug("async event {}", e);

    public Hca(InetAddress address, HcaLimits limits, PKeyTable pkeys, Scheduler scheduler, PacketSink sink) {
        this(address, limits, pkeys, scheduler, sink, new SplittableRandom(new SecureRandom().nextLong()));
    }

    /** As above with a given random source for memory keys (tests seed it). */
    public Hca(InetAddress address, HcaLimits limits, PKeyTable pkeys, Scheduler scheduler, PacketSink sink,
               java.util.random.RandomGenerator keyRandom) {
        if (address == null || address.isAnyLocalAddress()) {
            throw new IllegalArgumentException("an HCA needs a concrete IP address, got " + address);
        }
        this.address = address;
        this.limits = limits;
        this.pkeys = pkeys;
        this.scheduler = scheduler;
        this.sink = java.util.Objects.requireNonNull(sink, "sink");
        this.ecn = sink.ecnByDefault();
        this.keys = new KeyTable(keyRandom, limits.maxMr());
        this.keys.retiredKeys().clock(scheduler);
        this.pitfalls = new Pitfalls(address.getHostAddress());
    }

    public InetAddress address() {
        return address;
    }

    public HcaLimits limits() {
        return limits;
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    /** Where this HCA's packets go (the wire). */
    public PacketSink sink() {
        return sink;
    }

    public KeyTable keys() {
        return keys;
    }

    /** The pitfall warnings this device counts and logs. */
    public Pitfalls pitfalls() {
        return pitfalls;
    }

    public PKeyTable pkeys() {
        return pkeys;
    }

    public Counters counters() {
        return counters;
    }

    public PacketEncoder encoder() {
        return encoder;
    }

    /** The view outgoing packets are built in (protocol thread only). */
    public RocePacket txPacket() {
        return tx;
    }

    public Object atomicLock() {
        return atomicLock;
    }

    public IcrcPolicy icrcPolicy() {
        return icrcPolicy;
    }

    public void icrcPolicy(IcrcPolicy policy) {
        this.icrcPolicy = java.util.Objects.requireNonNull(policy, "policy");
    }

    /** Sets who hears asynchronous events. */
    public void asyncListener(Consumer<AsyncEvent> listener) {
        this.asyncListener = java.util.Objects.requireNonNull(listener, "listener");
    }

    /** Reports an asynchronous event. */
    public void raise(AsyncEvent event) {
        try {
            asyncListener.accept(event);
        } catch (RuntimeException e) {
            LOG.warn("async event listener failed on {}", event, e);
        }
    }

    /**
     * Takes {@code bytes} of the HCA's reorder-buffer budget ({@link RecoveryTuning#reorderBytes});
     * false if they do not fit. Protocol thread only.
     */
    public boolean reserveReorderBytes(int bytes) {
        if (reorderBytesHeld + bytes > limits.recovery().reorderBytes()) {
            return false;
        }
        reorderBytesHeld += bytes;
        return true;
    }

    /** Gives back reorder-buffer bytes taken with {@link #reserveReorderBytes}. */
    public void releaseReorderBytes(int bytes) {
        reorderBytesHeld -= bytes;
    }

    /** Bytes all QPs hold in reorder buffers now. */
    public long reorderBytesHeld() {
        return reorderBytesHeld;
    }

    /**
     * Reserves the next QP number for a QP about to be created; callable from any thread. QP
     * numbers are not reused.
     *
     * @throws IllegalStateException when the device's QPs (max_qp) or the 2^24 numbers are used up
     */
    public synchronized int reserveQpn() {
        if (liveQps >= limits.maxQp()) {
            throw new IllegalStateException("all " + limits.maxQp() + " QPs of the device are in use");
        }
        if (nextQpn > io.rnic.core.psn.Psn.MASK) {
            throw new IllegalStateException("all 2^24 QP numbers have been used on this device");
        }
        liveQps++;
        int drawn = undefined.qpn(q -> !reserved.get(q) && endpoint(q) == null);
        int qpn = drawn >= 0 ? drawn : nextQpn++;
        reserved.set(qpn);
        return qpn;
    }

    /** Sets what the device does where the specification leaves the choice open (before any QP exists). */
    public void undefinedBehaviour(UndefinedBehaviour u) {
        undefined = java.util.Objects.requireNonNull(u, "u");
    }

    /** What the device does where the specification leaves the choice open. */
    public UndefinedBehaviour undefinedBehaviour() {
        return undefined;
    }

    /**
     * Reserves a QP number the specification fixes (1, the GSI: reference §11.6); callable from
     * any thread.
     *
     * @throws IllegalArgumentException if {@code qpn} is not a fixed QP number
     * @throws IllegalStateException if the device already has that QP, or no QP left (max_qp)
     */
    public synchronized int reserveFixedQpn(int qpn) {
        if (qpn != GSI_QPN) {
            throw new IllegalArgumentException("QP number " + qpn + " is not one the specification fixes (1, the GSI)");
        }
        if (gsiReserved) {
            throw new IllegalStateException("the device already has its GSI QP (QP1); there is one per device");
        }
        if (liveQps >= limits.maxQp()) {
            throw new IllegalStateException("all " + limits.maxQp() + " QPs of the device are in use");
        }
        liveQps++;
        gsiReserved = true;
        return GSI_QPN;
    }

    /** Gives back a number from {@link #reserveQpn} whose QP could not be created after all. */
    public synchronized void unreserveQpn(int qpn) {
        reserved.clear(qpn);
        liveQps--;
        if (qpn == GSI_QPN) {
            gsiReserved = false;
        }
    }

    /** Routes packets addressed to {@code qpn} (a reserved number) to {@code endpoint}. */
    public synchronized void attach(int qpn, QpEndpoint endpoint) {
        QpEndpoint[] table = qps;
        if (qpn >= table.length) {
            table = java.util.Arrays.copyOf(table, Math.max(table.length * 2, qpn + 1));
        }
        table[qpn] = java.util.Objects.requireNonNull(endpoint, "endpoint");
        qps = table;
        reserved.clear(qpn);
    }

    /** Removes a destroyed QP's number from the table; later packets for it are counted as unknown. */
    public synchronized void detach(int qpn) {
        QpEndpoint[] table = qps;
        if (qpn >= 0 && qpn < table.length && table[qpn] != null) {
            table[qpn] = null;
            liveQps--;
            if (qpn == GSI_QPN) {
                gsiReserved = false;
            }
        }
    }

    /** The endpoint of QP {@code qpn}, or {@code null}. */
    public QpEndpoint endpoint(int qpn) {
        QpEndpoint[] table = qps;
        return qpn >= 0 && qpn < table.length ? table[qpn] : null;
    }

    /**
     * Counts one more object of kind {@code r}, created from any thread; it is counted until
     * {@link #release}d.
     *
     * @throws IllegalStateException when the device already has as many as its limit allows
     */
    public void reserve(DeviceResource r) {
        int limit = r.limit(limits);
        int i = r.ordinal();
        for (;;) {
            int n = objectsInUse.get(i);
            if (n >= limit) {
                throw new IllegalStateException("all " + limit + " " + r.plural() + " of the device are in use ("
                        + r.attribute() + ")");
            }
            if (objectsInUse.compareAndSet(i, n, n + 1)) {
                return;
            }
        }
    }

    /** Stops counting an object {@link #reserve}d: it was destroyed, or could not be created after all. */
    public void release(DeviceResource r) {
        objectsInUse.decrementAndGet(r.ordinal());
    }

    /** How many objects of kind {@code r} the device has now. */
    public int inUse(DeviceResource r) {
        return objectsInUse.get(r.ordinal());
    }

    /** The next shared receive queue number (24 bits, as XRCETH carries them). */
    public synchronized int reserveSrqn() {
        if (nextSrqn > io.rnic.core.psn.Psn.MASK) {
            throw new IllegalStateException("all 2^24 SRQ numbers have been used on this device");
        }
        return nextSrqn++;
    }

    /**
     * Seals the packet a QP built at {@code packet[offset, offset + length)} (BTH through ICRC)
     * with the ICRC of the flow {@code pseudo} and sends it; to a sink that offloads the ICRC
     * ({@link PacketSink#offloadsIcrc}), hands it over unsealed instead.
     */
    public void transmit(ByteBuf packet, int offset, int length, io.rnic.core.packet.PseudoHeader pseudo, int sourcePort,
            InetSocketAddress destination, int tos) {
        counters.inc(Counter.SENT_PKTS);
        if (sink.offloadsIcrc()) {
            sink.sendUnsealed(packet, sourcePort, destination, tos);
        } else {
            icrc.write(pseudo, packet, offset, length);
            sink.send(packet, sourcePort, destination, tos);
        }
    }

    /**
     * The IP TOS byte a QP sends with, from its address vector's traffic class: the class's DSCP,
     * or the network's ({@link PacketSink#defaultDscp}) where the class names none, and ECT(0) in
     * the ECN bits when this device sends ECN-capable packets ({@link #ecn}), as RoCEv2 NICs
     * replace a traffic class's ECN bits with their own.
     */
    public int tosFor(int trafficClass) {
        int dscp = trafficClass >>> 2 != 0 ? trafficClass >>> 2 : sink.defaultDscp();
        return (dscp & 0x3F) << 2 | (ecn ? PacketSink.ECT0 : 0);
    }

    /** The congestion control of QPs created from now on, and whether the device sends CNPs. */
    public io.rnic.verbs.CongestionControlConfig congestionControl() {
        return congestionControl;
    }

    /** Sets the congestion control of QPs created from now on. */
    public void congestionControl(io.rnic.verbs.CongestionControlConfig c) {
        this.congestionControl = java.util.Objects.requireNonNull(c, "c");
    }

    /**
     * The line rate of this device's port for congestion control, in bit/s: the wire's pace where
     * it gives one (a simulated fabric's host link), else the configured fallback.
     */
    public long lineRateBps() {
        long wire = sink.paceBitsPerSecond();
        return wire > 0 ? wire : congestionControl.fallbackLineRateBps();
    }

    /** True if this device sends ECN-capable packets (ECT(0)). */
    public boolean ecn() {
        return ecn;
    }

    /** Turns ECN-capable sending on or off for QPs that connect from now on. */
    public void ecn(boolean on) {
        this.ecn = on;
    }

    /**
     * A peer's SEND with Invalidate naming {@code rkey} in {@code pd}: whether the key was
     * invalidated. Remote invalidation applies to memory windows and fast-registered regions
     * only; an ordinary registered region is never revoked by a peer (rxe's
     * {@code rxe_invalidate_mr} refuses any region not of type {@code IB_MR_TYPE_MEM_REG}), and
     * the caller fails the receive instead.
     */
    public boolean invalidate(int rkey, ProtectionDomain pd) {
        if (KeyTable.isWindowKey(rkey)) {
            return keys.invalidateWindow(rkey, pd) == null; // type 2 windows only
        }
        MemoryRegion mr = keys.lookup(rkey);
        if (mr == null || mr.pd() != pd || !mr.remotelyInvalidatable()) {
            return false;
        }
        return keys.invalidateFast(mr);
    }

    /**
     * Handles one received packet (the buffer's readable bytes, BTH through ICRC), borrowed from
     * the wire, as a batch of one: what the packet left owed (a coalesced ACK) is sent before
     * this returns. Malformed, unverifiable, misaddressed and unauthorised packets are dropped
     * and counted; nothing thrown escapes.
     */
    public void onPacket(ByteBuf buf, InetSocketAddress source, InetSocketAddress destination) {
        onPacketInBatch(buf, source, destination);
        endBatch();
    }

    /**
     * Handles one packet of a batch the wire read together; the wire calls {@link #endBatch}
     * after the batch's last packet. Work owed to the batch's end (one ACK per QP for all the
     * PSNs it acknowledges) waits until then.
     */
    public void onPacketInBatch(ByteBuf buf, InetSocketAddress source, InetSocketAddress destination) {
        onPacketInBatch(buf, source, destination, true, 0);
    }

    /**
     * The receiver a device sets on its wire: every packet goes to {@link #onPacketInBatch} (or,
     * untouched by the wire's ICRC offload, {@link #onIntactPacketInBatch}) with the IP TOS byte
     * it arrived with, and the end of each batch to {@link #endBatch}.
     */
    public io.rnic.core.wire.WireReceiver wireReceiver() {
        return new io.rnic.core.wire.WireReceiver() {
            @Override
            public void onPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination) {
                onPacketInBatch(packet, source, destination, true, 0);
            }

            @Override
            public void onPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination, int tos) {
                onPacketInBatch(packet, source, destination, true, tos);
            }

            @Override
            public boolean takesIntactPackets() {
                return true;
            }

            @Override
            public void onIntactPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination) {
                onPacketInBatch(packet, source, destination, false, 0);
            }

            @Override
            public void onIntactPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination, int tos) {
                onPacketInBatch(packet, source, destination, false, tos);
            }

            @Override
            public void onBatchEnd() {
                endBatch();
            }
        };
    }

    /**
     * As {@link #onPacketInBatch(ByteBuf, InetSocketAddress, InetSocketAddress)}, for a packet the
     * wire vouches for (its ICRC offload delivered it untouched): its ICRC is not checked.
     */
    public void onIntactPacketInBatch(ByteBuf buf, InetSocketAddress source, InetSocketAddress destination) {
        onPacketInBatch(buf, source, destination, false, 0);
    }

    private void onPacketInBatch(ByteBuf buf, InetSocketAddress source, InetSocketAddress destination, boolean verifyIcrc,
            int tos) {
        try {
            receive(buf, source, destination, verifyIcrc, tos);
        } catch (RuntimeException e) {
            counters.inc(Counter.RCVD_DROPPED);
            counters.inc(Counter.INTERNAL_ERRORS);
            // A bug, not a peer's fault; but a peer could repeat the packet: warn a few times only.
            if (internalErrors++ < 10) {
                LOG.warn("dropped a packet from {} after an internal error", source, e);
            } else {
                LOG.debug("dropped a packet from {} after an internal error", source, e);
            }
        }
    }

    /**
     * Runs {@code task} when the current receive batch ends (protocol thread only). A task is
     * registered at most once per batch by its owner (it keeps a flag), so the list stays short.
     */
    public void atBatchEnd(Runnable task) {
        if (atBatchEndCount == atBatchEnd.length) {
            atBatchEnd = java.util.Arrays.copyOf(atBatchEnd, atBatchEndCount * 2);
        }
        atBatchEnd[atBatchEndCount++] = task;
    }

    /** Ends a receive batch: runs what the batch's packets left owed. Never throws. */
    public void endBatch() {
        // Index loop: a task may register another (it then runs in this same call).
        for (int i = 0; i < atBatchEndCount; i++) {
            Runnable t = atBatchEnd[i];
            atBatchEnd[i] = null;
            try {
                t.run();
            } catch (RuntimeException e) {
                counters.inc(Counter.INTERNAL_ERRORS);
                if (internalErrors++ < 10) {
                    LOG.warn("work owed at the end of a receive batch failed", e);
                }
            }
        }
        atBatchEndCount = 0;
    }

    private void receive(ByteBuf buf, InetSocketAddress source, InetSocketAddress destination, boolean verifyIcrc,
            int tos) {
        int off = buf.readerIndex();
        int len = buf.readableBytes();
        DecodeResult r = decoder.decode(buf, off, len, rx);
        if (r != DecodeResult.OK) {
            counters.inc(Counter.RCVD_MALFORMED);
            LOG.debug("malformed packet from {}: {}", source, r);
            return;
        }
        rxFlow(source, destination);
        rxPseudo.tos(tos);
        if (verifyIcrc && !icrcOk(buf, off, len)) {
            return;
        }
        counters.inc(Counter.RCVD_PKTS);
        // An RD packet is for the EE context its RDETH names, which finds the QP in the BTH
        // (IBA 9.7.8.2.2); contexts and QPs share one number space, as "EE mode" contexts.
        QpEndpoint qp = endpoint(rx.opcode().has(io.rnic.core.packet.Header.RDETH)
                ? rx.rdeth().eeContext() : rx.bth().destQp());
        if (qp == null) {
            counters.inc(Counter.RCVD_UNKNOWN_QP);
            return;
        }
        qp.receive(rx, rxPseudo);
    }

    /** Points the receive pseudo header, which the ICRC and the QPs' replies use, at the packet's flow. */
    private void rxFlow(InetSocketAddress source, InetSocketAddress destination) {
        InetAddress s = source.getAddress();
        InetAddress d = destination.getAddress();
        // The same address objects come packet after packet: identity first, equals only on a change.
        if ((s != rxSource && !s.equals(rxSource)) || (d != rxDestination && !d.equals(rxDestination))) {
            rxPseudo.addresses(s, d);
            rxSource = s;
            rxDestination = d;
        }
        rxPseudo.ports(source.getPort(), destination.getPort());
    }

    private boolean icrcOk(ByteBuf buf, int off, int len) {
        if (icrc.verify(rxPseudo, buf, off, len)) {
            return true;
        }
        counters.inc(Counter.RCVD_ICRC_ERR);
        return icrcPolicy == IcrcPolicy.ACCEPT_UNVERIFIABLE;
    }
}
