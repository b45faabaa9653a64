package io.rnic.core.engine;

import io.netty.buffer.ByteBuf;
import io.rnic.core.hca.RecoveryTuning;
import io.rnic.core.packet.DecodeResult;
import io.rnic.core.packet.PacketDecoder;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.psn.Psn;
import io.rnic.core.psn.ReorderBitmap;
import io.rnic.core.time.Scheduler;
import io.rnic.verbs.Counter;
import io.rnic.verbs.QpState;

/**
 * Seed 002's responder with "more memory, no wire change": a request ahead of the expected PSN
 * is copied whole into the QP's reorder buffer and its bit set at its distance from the expected
 * PSN; when the expected PSN arrives, the run of held requests behind it is handled in PSN order
 * as if it had just arrived (a SEND takes its receive WQE then, a WRITE or READ is checked then),
 * and the window moves past them. A hole that stays open for {@link RecoveryTuning#holeTimeoutNanos}
 * or behind {@link RecoveryTuning#holeRun} later requests is declared lost and NAKed at once,
 * instead of waiting for the requester's timeout.
 *
 * <p>The buffer is bounded per QP (its span, {@link RecoveryTuning#reorderPackets}) and per HCA
 * (bytes, {@link RecoveryTuning#reorderBytes}); a request beyond either is handled as go-back-N
 * handles it. Made at RTR; its arrays at the first request out of order.
 */
class ReorderReceiveWindow implements ReceiveWindow {
    protected final QpContext qp;
    protected final Responder responder;
    protected final RecoveryTuning tuning;
    private final Runnable onHoleTimer = this::holeTimerFired;

    /** Arrivals ahead of the expected PSN, at their distance from it. */
    protected ReorderBitmap marks;
    /** The copies held, by PSN modulo the span; {@code heldPsn} says whose. */
    private ByteBuf[] packets;
    private int[] heldPsn;
    /** For a copy of headers only (its data already placed): the payload length it had; else -1. */
    private int[] placedLength;
    private int mask;
    private int held;

    private PacketDecoder decoder;
    private RocePacket view;

    // The hole at the expected PSN: when it opened, how many arrived behind it, reported or not.
    private int holePsn = -1;
    private long holeOpenedAt;
    /** How long the hole may stay open before it is reported (again). */
    private long holeWait;
    protected int arrivedBehindHole;
    private boolean holeReported;
    private Scheduler.Timer holeTimer;

    ReorderReceiveWindow(QpContext qp, Responder responder) {
        this.qp = qp;
        this.responder = responder;
        this.tuning = qp.hca.limits().recovery();
    }

    private void allocate() {
        int span = tuning.reorderPackets();
        marks = new ReorderBitmap(span);
        packets = new ByteBuf[span];
        heldPsn = new int[span];
        placedLength = new int[span];
        mask = span - 1;
    }

    @Override
    public boolean ahead(RocePacket p, PseudoHeader ip) {
        if (marks == null) {
            allocate();
        }
        int expected = responder.expectedPsn();
        if (held == 0) {
            marks.reset(expected);
        } else {
            rebase(expected);
        }
        int psn = p.bth().psn();
        if (Psn.forward(expected, psn) >= marks.capacity()) {
            qp.hca.counters().inc(Counter.OOO_OVERFLOWS);
            return false;
        }
        if (marks.isMarked(psn)) {
            qp.hca.counters().inc(Counter.OOO_DUPLICATES);
            return true;
        }
        if (holePsn != expected || held == 0) {
            openHole(expected);
        }
        if (!keep(p, psn)) {
            qp.hca.counters().inc(Counter.OOO_OVERFLOWS);
            return false;
        }
        marks.mark(psn);
        arrivedBehindHole++;
        if (arrivedBehindHole >= tuning.holeRun()) {
            holeLost(false);
        }
        return true;
    }

    /**
     * Keeps an arrival: the whole packet here; {@link PlacingReceiveWindow} places what it can and
     * keeps only headers. False if the HCA's budget has no room.
     */
    protected boolean keep(RocePacket p, int psn) {
        return hold(p, p.length(), -1);
    }

    /**
     * Copies the first {@code bytes} of the packet into the buffer at its PSN; {@code placed} is the
     * payload length of a packet whose data is already in memory (then only its headers are copied
     * and the pad count cleared), or -1.
     */
    protected final boolean hold(RocePacket p, int bytes, int placed) {
        int copy = placed < 0 ? bytes : bytes + 4; // headers, then room where the ICRC was
        if (!qp.hca.reserveReorderBytes(copy)) {
            return false;
        }
        ByteBuf b = qp.hca.sink().allocator().directBuffer(copy);
        b.writeBytes(p.buffer(), p.offset(), bytes);
        if (placed >= 0) {
            b.writeInt(0);
            b.setByte(1, b.getByte(1) & ~0x30); // BTH pad count: the payload is not here
        }
        int j = p.bth().psn() & mask;
        if (packets[j] != null) { // a stale copy from another lap (only after a rebase)
            release(j);
        }
        packets[j] = b;
        heldPsn[j] = p.bth().psn();
        placedLength[j] = placed;
        held++;
        qp.hca.counters().inc(placed < 0 ? Counter.OOO_REQUESTS_HELD : Counter.OOO_REQUESTS_PLACED);
        return true;
    }

    private void release(int j) {
        ByteBuf b = packets[j];
        packets[j] = null;
        held--;
        qp.hca.releaseReorderBytes(b.readableBytes());
        b.release();
    }

    @Override
    public void drain(PseudoHeader ip) {
        while (held > 0) {
            int e = responder.expectedPsn();
            rebase(e);
            if (held == 0 || !marks.isMarked(e)) {
                if (held > 0 && holePsn != e) {
                    openHole(e); // a new hole: the old one filled, another opens behind it
                }
                return;
            }
            int run = marks.advance();
            for (int i = 0; i < run; i++) {
                replay(Psn.add(e, i), ip);
            }
        }
    }

    /** Hands back the held request at {@code psn}, if it is still the expected one. */
    private void replay(int psn, PseudoHeader ip) {
        int j = psn & mask;
        ByteBuf b = packets[j];
        if (b == null || heldPsn[j] != psn) {
            return;
        }
        int placed = placedLength[j];
        packets[j] = null;
        held--;
        qp.hca.releaseReorderBytes(b.readableBytes());
        try {
            if (psn != responder.expectedPsn() || !responding()) {
                // The one before it did not advance the window (an RNR NAK, an error): the
                // requester resends from there, this one included.
                qp.hca.counters().inc(Counter.RCVD_DROPPED);
                return;
            }
            if (decoder == null) {
                decoder = new PacketDecoder();
                view = new RocePacket();
            }
            if (decoder.decode(b, b.readerIndex(), b.readableBytes(), view) != DecodeResult.OK) {
                qp.hca.counters().inc(Counter.INTERNAL_ERRORS); // it decoded when it arrived
                return;
            }
            responder.replay(view, ip, placed, acknowledgesWhatItHeld());
        } finally {
            b.release();
        }
    }

    private boolean responding() {
        QpState s = qp.state;
        return !qp.destroyed && s != QpState.ERR && s != QpState.RESET;
    }

    /**
     * Makes the bitmap start at the expected PSN {@code e}: a plain move forward when the PSNs
     * between were taken in order; otherwise (the window did not move as far as the last run)
     * the held copies still ahead of {@code e} are marked again from scratch.
     */
    private void rebase(int e) {
        int base = marks.base();
        if (base == e) {
            return;
        }
        int d = Psn.forward(base, e);
        if (d < Psn.WINDOW && d <= marks.capacity()) {
            for (int i = 0; i < d && held > 0; i++) {
                int q = Psn.add(base, i);
                int j = q & mask;
                if (packets[j] != null && heldPsn[j] == q) {
                    release(j); // behind the window now: taken in order by its retransmission
                }
            }
            marks.skipTo(e);
            return;
        }
        marks.reset(e);
        for (int j = 0; j < packets.length && held > 0; j++) {
            if (packets[j] == null) {
                continue;
            }
            int ahead = Psn.forward(e, heldPsn[j]);
            if (ahead > 0 && ahead < marks.capacity()) {
                marks.mark(heldPsn[j]);
            } else {
                release(j);
            }
        }
    }

    @Override
    public void clear() {
        if (packets != null) {
            for (int j = 0; j < packets.length && held > 0; j++) {
                if (packets[j] != null) {
                    release(j);
                }
            }
        }
        held = 0;
        holePsn = -1;
        if (holeTimer != null) {
            holeTimer.cancel();
            holeTimer = null;
        }
    }

    @Override
    public int held() {
        return held;
    }

    private void openHole(int e) {
        holePsn = e;
        holeOpened(e);
        holeOpenedAt = qp.hca.scheduler().nanoTime();
        holeWait = tuning.holeTimeoutNanos();
        arrivedBehindHole = 0;
        holeReported = false;
        if (holeTimer == null) {
            holeTimer = qp.hca.scheduler().schedule(tuning.holeTimeoutNanos(), onHoleTimer);
        }
    }

    private void holeTimerFired() {
        holeTimer = null;
        if (held == 0 || !responding()) {
            return;
        }
        int e = responder.expectedPsn();
        if (e != holePsn) {
            openHole(e);
            return;
        }
        long waited = qp.hca.scheduler().nanoTime() - holeOpenedAt;
        if (waited < holeWait) {
            holeTimer = qp.hca.scheduler().schedule(holeWait - waited, onHoleTimer);
            return;
        }
        holeLost(true);
        // The report may have been lost, or what it asked for may still be queued behind the
        // packets sent before it: a hole still open reports again, each time waiting twice as
        // long as the time before, up to 16 hole timeouts.
        holeWait = Math.min(holeWait * 2, 16 * tuning.holeTimeoutNanos());
        holeOpenedAt = qp.hca.scheduler().nanoTime();
        holeTimer = qp.hca.scheduler().schedule(holeWait, onHoleTimer);
    }

    /** The hole at the expected PSN is a loss: report it ({@code byTimer}: it stayed open a timeout). */
    private void holeLost(boolean byTimer) {
        if (holeReported && !byTimer && !reportsAgainOnArrivals()) {
            return;
        }
        arrivedBehindHole = 0;
        if (reportHole(byTimer || !holeReported)) {
            qp.hca.counters().inc(Counter.HOLE_NAKS_SENT);
        }
        holeReported = true;
    }

    /**
     * Tells the requester: a sequence NAK at the expected PSN, which makes a standard requester go
     * back to it (and the held requests it resends are then duplicates). {@code all} is false for a
     * repeated report caused by more arrivals, which may list only what is newly missing. Returns
     * whether a report went out.
     */
    protected boolean reportHole(boolean all) {
        responder.nakSequence();
        return true;
    }

    /** A new hole opened at the expected PSN {@code e} (the previous one filled). */
    protected void holeOpened(int e) {
    }

    /**
     * Whether the requests handed back once a hole fills are acknowledged whatever their AckReq
     * bit says. A standard requester went back to the hole and resends what is held anyway (its
     * duplicates are acknowledged), so this window leaves its ACKs as they were; the extended
     * protocol's requester resends only what a report lists, and without an ACK over the held run
     * it would wait for its timeout and go back over packets the responder has.
     */
    protected boolean acknowledgesWhatItHeld() {
        return false;
    }

    /**
     * Whether more arrivals behind a hole already reported report it again. A standard requester
     * ignores a second sequence NAK at the same PSN while it is resending from there, so only the
     * hole timer repeats go-back-N's report (in case the first was lost); the extended protocol's
     * reports list what is newly missing, so arrivals repeat them too.
     */
    protected boolean reportsAgainOnArrivals() {
        return false;
    }

    /**
     * PSNs the request held at {@code psn} takes: a READ request takes one per response packet
     * (the requester sends nothing at the others), anything else one.
     */
    protected final int psnsTaken(int psn) {
        int j = psn & mask;
        ByteBuf b = packets[j];
        if (b == null || heldPsn[j] != psn) {
            return 1;
        }
        io.rnic.core.packet.Opcode op = io.rnic.core.packet.OpcodeTable.lookup(b.getUnsignedByte(b.readerIndex()));
        if (op == null || op.operation() != io.rnic.core.packet.Operation.RDMA_READ_REQUEST) {
            return 1;
        }
        long dma = b.getUnsignedInt(b.readerIndex() + op.offsetOf(io.rnic.core.packet.Header.RETH) + 12);
        return (int) Math.max(1, (dma + qp.mtu - 1) / qp.mtu);
    }

    /** True if {@code psn} is held or placed ahead of the expected PSN. */
    protected final boolean isHeld(int psn) {
        return marks != null && held > 0 && marks.isMarked(psn);
    }
}
