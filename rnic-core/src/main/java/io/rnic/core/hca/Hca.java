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
import io.rnic.core.transport.CompletionQueue;
import io.rnic.core.transport.QpCaps;
import io.rnic.core.transport.QpContext;
import io.rnic.core.qp.QpType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;
import java.security.SecureRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol core of one emulated HCA with one port: receive path checks, the QP table, keys,
 * P_Keys and counters. It has no thread of its own: every method except the key table's
 * registration runs on the thread of its {@link Scheduler}, which is also where packets arrive.
 */
public final class Hca {
    private static final Logger LOG = LoggerFactory.getLogger(Hca.class);
    /** rxe hands out QP numbers from 0x11 in practice; 0 and 1 are the special QPs. */
    static final int FIRST_QPN = 0x11;

    private final InetAddress address;
    private final HcaLimits limits;
    private final Scheduler scheduler;
    private final PacketOutput output;
    private final KeyTable keys;
    private final PKeyTable pkeys;
    private final Counters counters = new Counters();
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
    private volatile QpContext[] qps = new QpContext[64];
    private int nextQpn = FIRST_QPN;
    private int liveQps;
    private int internalErrors;
    private volatile Consumer<AsyncEvent> asyncListener = e -> LOG.debug("async event {}", e);

    public Hca(InetAddress address, HcaLimits limits, PKeyTable pkeys, Scheduler scheduler, PacketOutput output) {
        this(address, limits, pkeys, scheduler, output, new SplittableRandom(new SecureRandom().nextLong()));
    }

    /** As above with a given random source for memory keys (tests seed it). */
    public Hca(InetAddress address, HcaLimits limits, PKeyTable pkeys, Scheduler scheduler, PacketOutput output,
               java.util.random.RandomGenerator keyRandom) {
        if (address == null || address.isAnyLocalAddress()) {
            throw new IllegalArgumentException("an HCA needs a concrete IP address, got " + address);
        }
        this.address = address;
        this.limits = limits;
        this.pkeys = pkeys;
        this.scheduler = scheduler;
        this.output = output;
        this.keys = new KeyTable(keyRandom, limits.maxMr());
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

    public PacketOutput output() {
        return output;
    }

    public KeyTable keys() {
        return keys;
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

    /** Creates a QP; callable from any thread, the QP starts in RESET. */
    public synchronized QpContext createQp(QpType type, ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
                                           QpCaps caps, boolean signalAll, boolean endToEndCredits) {
        if (liveQps >= limits.maxQp()) {
            throw new IllegalStateException("all " + limits.maxQp() + " QPs of the device are in use");
        }
        if (caps.maxSendWr() > limits.maxQpWr() || caps.maxRecvWr() > limits.maxQpWr()) {
            throw new IllegalArgumentException("max_send_wr/max_recv_wr " + caps.maxSendWr() + "/" + caps.maxRecvWr()
                    + " exceed the device's max_qp_wr " + limits.maxQpWr());
        }
        if (caps.maxSendSge() > limits.maxSge() || caps.maxRecvSge() > limits.maxSge()) {
            throw new IllegalArgumentException("max SGEs " + caps.maxSendSge() + "/" + caps.maxRecvSge()
                    + " exceed the device's max_sge " + limits.maxSge());
        }
        if (nextQpn > io.rnic.core.psn.Psn.MASK) {
            throw new IllegalStateException("all 2^24 QP numbers have been used on this device");
        }
        int qpn = nextQpn++;
        QpContext qp = new QpContext(this, qpn, type, pd, sendCq, recvCq, caps, signalAll, endToEndCredits);
        QpContext[] table = qps;
        if (qpn >= table.length) {
            table = java.util.Arrays.copyOf(table, Math.max(table.length * 2, qpn + 1));
        }
        table[qpn] = qp;
        qps = table;
        liveQps++;
        pd.retain();
        sendCq.attach();
        recvCq.attach();
        return qp;
    }

    /** Removes a destroyed QP from the table; its number is not reused. */
    public synchronized void removeQp(QpContext qp) {
        QpContext[] table = qps;
        if (qp.qpn() < table.length && table[qp.qpn()] == qp) {
            table[qp.qpn()] = null;
            liveQps--;
            qp.pd().release();
            qp.sendCq().detach();
            qp.recvCq().detach();
        }
    }

    /** The QP with number {@code qpn}, or {@code null}. */
    public QpContext qp(int qpn) {
        QpContext[] table = qps;
        return qpn >= 0 && qpn < table.length ? table[qpn] : null;
    }

    /** Sends a packet built by a QP. */
    public void transmit(ByteBuf packet, int sourcePort, InetSocketAddress destination) {
        counters.inc(Counter.SENT_PKTS);
        output.transmit(packet, sourcePort, destination);
    }

    /**
     * Invalidates the region whose R_Key is {@code rkey} in {@code pd} (SEND with Invalidate).
     * Returns false if there is no such region.
     */
    public boolean invalidate(int rkey, ProtectionDomain pd) {
        MemoryRegion mr = keys.lookup(rkey);
        if (mr == null || mr.pd() != pd) {
            return false;
        }
        return keys.invalidate(mr);
    }

    /**
     * Handles one received packet (the buffer's readable bytes, BTH through ICRC), borrowed from
     * the wire. Malformed, unverifiable, misaddressed and unauthorised packets are dropped and
     * counted; nothing thrown escapes.
     */
    public void onPacket(ByteBuf buf, InetSocketAddress source, InetSocketAddress destination) {
        try {
            receive(buf, source, destination);
        } catch (RuntimeException e) {
            counters.inc(Counter.RCVD_DROPPED);
            // A bug, not a peer's fault; but a peer could repeat the packet: warn a few times only.
            if (internalErrors++ < 10) {
                LOG.warn("dropped a packet from {} after an internal error", source, e);
            } else {
                LOG.debug("dropped a packet from {} after an internal error", source, e);
            }
        }
    }

    private void receive(ByteBuf buf, InetSocketAddress source, InetSocketAddress destination) {
        int off = buf.readerIndex();
        int len = buf.readableBytes();
        DecodeResult r = decoder.decode(buf, off, len, rx);
        if (r != DecodeResult.OK) {
            counters.inc(Counter.RCVD_MALFORMED);
            LOG.debug("malformed packet from {}: {}", source, r);
            return;
        }
        if (!icrcOk(buf, off, len, source, destination)) {
            return;
        }
        counters.inc(Counter.RCVD_PKTS);
        QpContext qp = qp(rx.bth().destQp());
        if (qp == null) {
            counters.inc(Counter.RCVD_UNKNOWN_QP);
            return;
        }
        if (rx.opcode().transport() != qp.transport()) {
            counters.inc(Counter.RCVD_WRONG_QP_STATE_OR_TYPE);
            return;
        }
        InetSocketAddress remote = qp.remote();
        if (remote == null || !remote.getAddress().equals(source.getAddress())) {
            counters.inc(Counter.RCVD_ADDR_MISMATCH);
            return;
        }
        if (!PKeyTable.matches(rx.bth().pkey(), qp.pkey())) {
            counters.inc(Counter.BAD_PKEY_CNTR);
            return;
        }
        qp.receive(rx);
    }

    private boolean icrcOk(ByteBuf buf, int off, int len, InetSocketAddress source, InetSocketAddress destination) {
        InetAddress s = source.getAddress();
        InetAddress d = destination.getAddress();
        if (!s.equals(rxSource) || !d.equals(rxDestination)) {
            rxPseudo.addresses(s, d);
            rxSource = s;
            rxDestination = d;
        }
        rxPseudo.ports(source.getPort(), destination.getPort());
        if (icrc.verify(rxPseudo, buf, off, len)) {
            return true;
        }
        counters.inc(Counter.RCVD_ICRC_ERR);
        return icrcPolicy == IcrcPolicy.ACCEPT_UNVERIFIABLE;
    }
}
