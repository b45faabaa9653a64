package io.rnic.core.engine;

import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.Position;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.psn.Psn;
import io.rnic.verbs.Counter;

/**
 * The responses of the READs a responder is answering (new or duplicate), on their way out,
 * paced: {@link #CHUNK} packets per pacing step, at the wire's pace, so that a large READ does
 * not hold the protocol thread while the wire, the other QPs and the timers wait (a 256 MiB READ
 * built in one step starved its own requester into a retry timeout), and does not outrun its
 * receiver. READs accepted while one is streaming queue behind it, in PSN order.
 *
 * <p>Because its responses take time, a READ is truly "in progress", and IBA 9.7's PSN rules for
 * that case apply (§3.3.2.2): a duplicate READ with a PSN earlier than the response being sent
 * (an earlier READ, or this one from a response the requester lacks) stops it and is answered
 * instead (rule 6), and neither the interrupted READ's remaining responses nor the READs queued
 * behind it are sent (rule 7: the requester retries what it lacks). A duplicate that asks for
 * nothing the stream is not about to send anyway is dropped.
 */
final class ReadResponseStream {
    /** Packets sent per pacing step: 16 MTU-sized packets fill one 64 KiB GSO train. */
    static final int CHUNK = 16;
    /** The shortest pacing step: the next chunk goes in a later duty cycle, at the wire's pace. */
    static final long PACE_NANOS = 1_000;

    /** What the responder does between two READs, given the next one's PSN (-1: none left). */
    interface Gap {
        void between(int nextRequestPsn);
    }

    private final QpContext qp;
    private final ReliabilityContext rel;
    private final java.util.function.IntSupplier ackSyndrome;
    private final Gap gap;
    private final Runnable continuation = this::onPace;
    // The READ being answered: responses from fromPsn, the data at [va, va + length).
    private ResponderResource resource;
    private MemoryRegion mr;
    /** The memory window the READ was granted through (null for a region's key), and its generation then. */
    private io.rnic.core.memory.MemoryWindow mw;
    private int mwGeneration;
    private int fromPsn;
    private long va;
    private long length;
    /** The request starts at the original's first PSN (its responses open with FIRST or ONLY). */
    private boolean fresh;
    private int next;
    private int packets;
    private boolean paceScheduled;
    /** {@link #finish} is sending everything at once: congestion control does not pace it. */
    private boolean finishing;
    /** How long congestion control made the last chunk stop short (0: it did not). */
    private long congestionWait;
    /** The pacing alarm for congestion control's waits (re-armed, not re-created), made on first use. */
    private io.rnic.core.time.Alarm congestionAlarm;
    // READs waiting behind it, oldest first (a ring).
    private ResponderResource[] queuedResource = new ResponderResource[4];
    private MemoryRegion[] queuedMr = new MemoryRegion[4];
    private io.rnic.core.memory.MemoryWindow[] queuedMw = new io.rnic.core.memory.MemoryWindow[4];
    private int[] queuedMwGeneration = new int[4];
    private int[] queuedPsn = new int[4];
    private long[] queuedVa = new long[4];
    private long[] queuedLength = new long[4];
    private int queueHead;
    private int queued;

    ReadResponseStream(QpContext qp, ReliabilityContext rel, java.util.function.IntSupplier ackSyndrome, Gap gap) {
        this.qp = qp;
        this.rel = rel;
        this.ackSyndrome = ackSyndrome;
        this.gap = gap;
    }

    boolean active() {
        return resource != null;
    }

    /** The PSN of the next response the stream will send (when {@link #active}). */
    int positionPsn() {
        return Psn.add(fromPsn, next);
    }

    /**
     * True if a READ of resource {@code r} from {@code fromPsn} would only repeat what the
     * stream is about to send anyway: the READ in progress at or after its position, or a READ
     * already queued. (A requester retrying a READ it has not yet been answered sends it again.)
     */
    boolean covers(ResponderResource r, int psn, long subsetVa, long subsetLength) {
        if (resource == r && Psn.compare(psn, positionPsn()) >= 0 && within(subsetVa, subsetLength, va, length)) {
            return true;
        }
        for (int i = 0; i < queued; i++) {
            int at = (queueHead + i) % queuedPsn.length;
            if (queuedResource[at] == r && Psn.compare(psn, queuedPsn[at]) >= 0
                    && within(subsetVa, subsetLength, queuedVa[at], queuedLength[at])) {
                return true;
            }
        }
        return false;
    }

    /** {@code [va, va + length)} inside {@code [outerVa, outerVa + outerLength)}, unsigned. */
    private static boolean within(long va, long length, long outerVa, long outerLength) {
        long off = va - outerVa;
        return Long.compareUnsigned(va, outerVa) >= 0 && Long.compareUnsigned(off, outerLength) <= 0
                && Long.compareUnsigned(length, outerLength - off) <= 0;
    }

    /**
     * Answers the READ of resource {@code r} whose request has PSN {@code fromPsn} and asks for
     * {@code [va, va + length)} (the original, or a subset a duplicate asks for), with data from
     * {@code mr} (checked chunk by chunk before its bytes are copied; a region deregistered, or
     * the window {@code mw} the READ came through invalidated, rebound or deallocated since
     * generation {@code mwGeneration}, ends the stream, IBA 9.7, repeated duplicate requests rule 4): at once if
     * nothing is streaming, else after what is.
     */
    void start(ResponderResource r, int fromPsn, long va, long length, MemoryRegion mr,
               io.rnic.core.memory.MemoryWindow mw, int mwGeneration) {
        if (resource != null) {
            enqueue(r, fromPsn, va, length, mr, mw, mwGeneration);
            return;
        }
        begin(r, fromPsn, va, length, mr, mw, mwGeneration);
        sendChunk();
    }

    /** Sends everything streaming and queued at once (a response that must follow it in PSN order). */
    void finish() {
        // Everything goes now, unpaced: the response that must follow in PSN order waits for it,
        // and a paced chunk would send nothing until its alarm, so this loop would never end.
        finishing = true;
        try {
            while (resource != null) {
                sendChunk();
            }
        } finally {
            finishing = false;
        }
    }

    /**
     * Stops without sending the rest of the READ in progress or the READs queued behind it (IBA 9.7,
     * repeated duplicate requests, rule 7; or the QP stopped).
     */
    void interrupt(boolean counted) {
        if (resource != null && counted) {
            qp.hca.counters().inc(Counter.READ_STREAMS_INTERRUPTED);
        }
        resource = null;
        mr = null;
        mw = null;
        while (queued > 0) {
            queuedMr[queueHead] = null;
            queuedMw[queueHead] = null;
            queuedResource[queueHead] = null;
            queueHead = (queueHead + 1) % queuedPsn.length;
            queued--;
        }
        queueHead = 0;
    }

    /**
     * A reference store into this long-lived stream costs G1's post-write barrier (a fence) even
     * when it stores the value already there; READ after READ through regions stores null over
     * null, so an unchanged window is not stored again.
     */
    private void window(io.rnic.core.memory.MemoryWindow w) {
        if (mw != w) {
            mw = w;
        }
    }

    /** Whether READ resource {@code r} is being answered or waits to be: its entry is still in use. */
    boolean holds(ResponderResource r) {
        if (r == resource) {
            return true;
        }
        for (int i = 0; i < queued; i++) {
            if (queuedResource[(queueHead + i) % queuedPsn.length] == r) {
                return true;
            }
        }
        return false;
    }

    private void begin(ResponderResource r, int psn, long dataVa, long dataLength, MemoryRegion m,
                       io.rnic.core.memory.MemoryWindow w, int wGeneration) {
        this.resource = r;
        this.mr = m;
        window(w);
        this.mwGeneration = wGeneration;
        this.fromPsn = psn;
        this.va = dataVa;
        this.length = dataLength;
        this.fresh = psn == r.firstPsn;
        this.packets = (int) Math.max(1, (dataLength + qp.mtu - 1) / qp.mtu);
        this.next = 0;
    }

    private void enqueue(ResponderResource r, int psn, long dataVa, long dataLength, MemoryRegion m,
                         io.rnic.core.memory.MemoryWindow w, int wGeneration) {
        if (queued == queuedPsn.length) {
            int n = queuedPsn.length * 2;
            ResponderResource[] rs = new ResponderResource[n];
            MemoryRegion[] ms = new MemoryRegion[n];
            io.rnic.core.memory.MemoryWindow[] ws = new io.rnic.core.memory.MemoryWindow[n];
            int[] gs = new int[n];
            int[] ps = new int[n];
            long[] vs = new long[n];
            long[] ls = new long[n];
            for (int i = 0; i < queued; i++) {
                int at = (queueHead + i) % queuedPsn.length;
                rs[i] = queuedResource[at];
                ms[i] = queuedMr[at];
                ws[i] = queuedMw[at];
                gs[i] = queuedMwGeneration[at];
                ps[i] = queuedPsn[at];
                vs[i] = queuedVa[at];
                ls[i] = queuedLength[at];
            }
            queuedResource = rs;
            queuedMr = ms;
            queuedMw = ws;
            queuedMwGeneration = gs;
            queuedPsn = ps;
            queuedVa = vs;
            queuedLength = ls;
            queueHead = 0;
        }
        int tail = (queueHead + queued) % queuedPsn.length;
        queuedResource[tail] = r;
        queuedMr[tail] = m;
        queuedMw[tail] = w;
        queuedMwGeneration[tail] = wGeneration;
        queuedPsn[tail] = psn;
        queuedVa[tail] = dataVa;
        queuedLength[tail] = dataLength;
        queued++;
    }

    private void onPace() {
        paceScheduled = false;
        if (resource == null) {
            return;
        }
        io.rnic.verbs.QpState s = qp.state;
        if (qp.destroyed || s == io.rnic.verbs.QpState.ERR || s == io.rnic.verbs.QpState.RESET) {
            interrupt(false);
            return;
        }
        sendChunk();
    }

    private void sendChunk() {
        long bytes = 0;
        congestionWait = 0;
        try {
            int budget = CHUNK;
            while (resource != null && budget > 0 && congestionWait == 0) {
                int sent = sendPackets(budget);
                budget -= sent;
                bytes += (long) sent * qp.mtu;
                if (next >= packets) {
                    nextRead();
                }
            }
        } catch (RuntimeException e) {
            interrupt(false); // a stream that failed once would fail every later request that finishes it
            throw e;
        }
        if (resource != null && !paceScheduled) {
            paceScheduled = true;
            if (congestionWait > 0) {
                // Paced by congestion control, at or below the wire's pace: one re-armed alarm,
                // not a timer object per packet.
                if (congestionAlarm == null) {
                    congestionAlarm = qp.hca.scheduler().alarm(continuation);
                }
                congestionAlarm.set(qp.hca.scheduler().nanoTime() + congestionWait);
            } else {
                qp.hca.scheduler().schedule(paceNanos(bytes), continuation);
            }
        }
    }

    /** The READ in progress is done: the responder's gap, then the next queued READ, if any. */
    private void nextRead() {
        mr = null;
        window(null);
        resource = null;
        int nextPsn = queued > 0 ? queuedPsn[queueHead] : -1;
        gap.between(nextPsn);
        if (queued > 0) {
            ResponderResource r = queuedResource[queueHead];
            MemoryRegion m = queuedMr[queueHead];
            io.rnic.core.memory.MemoryWindow w = queuedMw[queueHead];
            int wGeneration = queuedMwGeneration[queueHead];
            long dataVa = queuedVa[queueHead];
            long dataLength = queuedLength[queueHead];
            queuedResource[queueHead] = null;
            queuedMr[queueHead] = null;
            queuedMw[queueHead] = null;
            queueHead = (queueHead + 1) % queuedPsn.length;
            queued--;
            begin(r, nextPsn, dataVa, dataLength, m, w, wGeneration);
        }
    }

    private int sendPackets(int budget) {
        if (mr != null && !io.rnic.core.memory.RemoteKey.stillGranted(mr, mw, mwGeneration)) {
            // Deregistered, or its window revoked, while the READ was answered: no more responses
            // (rule 4); the requester's retry then meets an invalid key.
            interrupt(false);
            return 0;
        }
        int stop = Math.min(packets, next + budget);
        int sent = 0;
        // A QP with congestion control paces its READ responses too (null: it has none).
        CongestionGate cc = qp.requester.congestion;
        for (; next < stop; next++) {
            int i = next;
            long offset = (long) i * qp.mtu;
            int len = (int) Math.min(qp.mtu, length - offset);
            if (cc != null && !finishing && (congestionWait = cc.responseWait(len)) > 0) {
                break; // the chunk ends here; the pacing step resumes at the allowed time
            }
            Opcode op = OpcodeTable.find(qp.transport, Operation.RDMA_READ_RESPONSE, position(i), false, false);
            Destination d = qp.addressing.replies();
            RocePacket out = qp.framer.start(op, len, d);
            out.bth().psn(Psn.add(fromPsn, i));
            if (op.has(Header.AETH)) {
                out.aeth().syndrome(ackSyndrome.getAsInt()).msn(rel.msn);
            }
            if (op.has(Header.SRETH)) { // the requester's buffer, and where in the READ this response lands
                ResponderResource r = resource;
                out.sreth().psnOffset(Psn.forward(r.firstPsn, Psn.add(fromPsn, i))).key(r.localKey)
                        .length(r.localLength).address(r.localVa);
            }
            if (len > 0) {
                mr.read(va + offset, out.buffer(), out.payloadOffset(), len);
            }
            qp.framer.transmit(out, d);
            qp.hca.counters().inc(Counter.READ_RESPONSES_SENT);
            sent++;
        }
        return sent;
    }

    /**
     * Response {@code i}'s place in the message. A READ answered from its original first PSN opens
     * with FIRST (or is ONLY); one answered from a later PSN (a duplicate asking for a tail or a
     * middle subset) continues with MIDDLE and ends with LAST, as rxe answers it and as the
     * requester, which already holds the responses before, expects.
     */
    private Position position(int i) {
        boolean last = i == packets - 1;
        if (i == 0 && fresh) {
            return last ? Position.ONLY : Position.FIRST;
        }
        return last ? Position.LAST : Position.MIDDLE;
    }

    /** How long {@code bytes} take at the wire's pace; at least one pacing step. */
    private long paceNanos(long bytes) {
        long rate = qp.hca.sink().paceBitsPerSecond();
        return rate <= 0 ? PACE_NANOS : Math.max(PACE_NANOS, bytes * 8 * 1_000_000_000L / rate);
    }

}
