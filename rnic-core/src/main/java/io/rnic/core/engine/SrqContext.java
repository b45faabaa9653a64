package io.rnic.core.engine;

import io.rnic.core.hca.Hca;
import io.rnic.core.memory.ProtectionDomain;
import io.rnic.core.packet.AethSyndrome;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.RecvWorkRequest;

/**
 * A shared receive queue ({@code ibv_srq}): receive WQEs that any QP created with it takes from
 * when a message needs one. Its slots form a free list, so the WQEs that messages on several QPs
 * hold can complete in any order. It raises SRQ_LIMIT_REACHED once when it is armed and the
 * posted WQEs drop below the limit, and can be resized.
 *
 * <p>Threading: application threads post, modify and query; the protocol thread of its HCA takes
 * and retires. Every method synchronises on the queue.
 */
public final class SrqContext implements ReceiveQueue {
    private final Hca hca;
    private final int srqn;
    private final ProtectionDomain pd;
    private final int maxSge;
    /** The XRC domain of an XRC SRQ, or {@code null} for an ordinary one. */
    private final XrcDomainContext xrcd;
    /** Where an XRC SRQ's completions go (o9-114.a9); {@code null}: the receiving QP's CQ. */
    private final CompletionQueue cq;
    private RecvWqe[] slots;
    /** Slot numbers of posted WQEs, oldest first, in a ring of {@code slots.length}. */
    private int[] posted;
    private int head;
    private int count;
    private int[] free;
    private int freeCount;
    /** The armed limit, 0 when not armed. */
    private int limit;
    private int attachedQps;
    private boolean destroyed;

    /**
     * Creates a queue with room for {@code maxWr} WQEs of up to {@code maxSge} entries, armed at
     * {@code limit} (0: not armed). Checked against the device by the caller.
     */
    public SrqContext(Hca hca, ProtectionDomain pd, int maxWr, int maxSge, int limit) {
        this(hca, pd, null, null, maxWr, maxSge, limit);
    }

    /**
     * Creates an XRC SRQ ({@code ibv_create_srq_ex} with {@code IBV_SRQT_XRC}): as an ordinary
     * one, in XRC domain {@code xrcd}, whose target QPs deliver to it, with its own completion
     * queue {@code cq}.
     *
     * @throws IllegalStateException if the domain is closed
     */
    public static SrqContext xrc(Hca hca, ProtectionDomain pd, XrcDomainContext xrcd, CompletionQueue cq, int maxWr,
                                 int maxSge, int limit) {
        if (xrcd == null || cq == null) {
            throw new IllegalArgumentException("an XRC SRQ needs an XRC domain and a completion queue");
        }
        return new SrqContext(hca, pd, xrcd, cq, maxWr, maxSge, limit);
    }

    private SrqContext(Hca hca, ProtectionDomain pd, XrcDomainContext xrcd, CompletionQueue cq, int maxWr, int maxSge,
                       int limit) {
        if (maxWr < 1 || maxSge < 1) {
            throw new IllegalArgumentException("an SRQ needs max_wr and max_sge of at least 1, got " + maxWr + " and " + maxSge);
        }
        if (limit < 0 || limit > maxWr) {
            throw new IllegalArgumentException("srq_limit " + limit + " is not in 0.." + maxWr + " (max_wr)");
        }
        this.hca = hca;
        this.pd = pd;
        this.xrcd = xrcd;
        this.cq = cq;
        this.maxSge = maxSge;
        this.limit = limit;
        this.srqn = hca.reserveSrqn();
        slots = new RecvWqe[maxWr];
        posted = new int[maxWr];
        free = new int[maxWr];
        for (int i = 0; i < maxWr; i++) {
            slots[i] = new RecvWqe(maxSge, i);
            free[i] = maxWr - 1 - i;
        }
        freeCount = maxWr;
        if (xrcd != null) {
            cq.attach();
            try {
                xrcd.addSrq(this);
            } catch (RuntimeException e) { // a closed domain: nothing stays counted
                cq.detach();
                throw e;
            }
        }
        pd.retain();
    }

    /** The XRC domain of an XRC SRQ, or {@code null}. */
    public XrcDomainContext xrcd() {
        return xrcd;
    }

    @Override
    public CompletionQueue completionQueue(QpContext qp) {
        return cq != null ? cq : qp.recvCq;
    }

    /** The SRQ number ({@code ibv_get_srq_num}). */
    public int srqn() {
        return srqn;
    }

    Hca hca() {
        return hca;
    }

    /** The protection domain its WQEs' buffers must belong to. */
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public int maxSge() {
        return maxSge;
    }

    /** WQEs it can hold ({@code max_wr}). */
    public synchronized int maxWr() {
        return slots.length;
    }

    /** The armed limit, 0 when not armed ({@code srq_limit}). */
    public synchronized int limit() {
        return limit;
    }

    @Override
    public synchronized int available() {
        return count;
    }

    @Override
    public void post(RecvWorkRequest wr) {
        if (wr.numSge() > maxSge) {
            throw new IllegalArgumentException(wr.numSge() + " SGEs exceed the SRQ's max_sge " + maxSge);
        }
        synchronized (this) {
            if (destroyed) {
                throw new IllegalStateException("SRQ " + srqn + " is destroyed");
            }
            if (freeCount == 0) {
                throw new IllegalStateException("SRQ " + srqn + " is full (max_wr " + slots.length + ")");
            }
            int slot = free[--freeCount];
            RecvWqe w = slots[slot];
            w.sgl.clear();
            w.wrId = wr.wrId();
            w.sgl.addAll(wr);
            posted[(head + count) % posted.length] = slot;
            count++;
        }
    }

    @Override
    public RecvWqe take() {
        RecvWqe w;
        boolean limitReached = false;
        synchronized (this) {
            if (count == 0) {
                return null;
            }
            w = slots[posted[head]];
            head = (head + 1) % posted.length;
            count--;
            if (limit > 0 && count < limit) {
                // One event per arming: the application re-arms with modify (libibverbs semantics).
                limit = 0;
                limitReached = true;
            }
        }
        if (limitReached) {
            hca.raise(new AsyncEvent(AsyncEvent.Type.SRQ_LIMIT_REACHED, srqn,
                    "SRQ " + srqn + " dropped below its limit: " + available() + " WQEs left"));
        }
        return w;
    }

    @Override
    public synchronized void retire(RecvWqe w) {
        free[freeCount++] = w.slot;
    }

    @Override
    public int creditCode() {
        // Many QPs draw from the queue: its count promises nothing to one requester (reference §3.1).
        return AethSyndrome.CREDITS_INVALID;
    }

    @Override
    public void qpFailed(QpContext qp, RecvWqe held) {
        if (held != null) {
            qp.completions.flushRecv(held, this);
        }
        // The other WQEs belong to the other QPs: tell the application this QP took its last one.
        hca.raise(new AsyncEvent(AsyncEvent.Type.QP_LAST_WQE_REACHED, qp.qpn,
                "QP 0x" + Integer.toHexString(qp.qpn) + " on SRQ " + srqn + " will take no more receive WQEs"));
    }

    @Override
    public void flushPosted(QpContext qp) {
        // The posted WQEs are every attached QP's, not the failed one's.
    }

    @Override
    public boolean keepsWqeOfDroppedMessage() {
        return false;
    }

    @Override
    public void qpReset(RecvWqe held) {
        if (held != null) {
            held.sgl.release();
            retire(held);
        }
    }

    /**
     * Resizes the queue to {@code maxWr} WQEs and/or arms it at {@code limit}
     * ({@code ibv_modify_srq}); a negative argument leaves that attribute alone.
     *
     * @throws IllegalArgumentException if the new size cannot hold the WQEs posted and held, or
     *     the limit is not below the size
     */
    public synchronized void modify(int maxWr, int newLimit) {
        if (destroyed) {
            throw new IllegalStateException("SRQ " + srqn + " is destroyed");
        }
        int size = maxWr >= 0 ? maxWr : slots.length;
        int inUse = slots.length - freeCount;
        if (maxWr >= 0 && maxWr < inUse) {
            throw new IllegalArgumentException("SRQ " + srqn + " cannot shrink to max_wr " + maxWr + ": "
                    + inUse + " WQEs are posted or held by a message");
        }
        if (maxWr == 0) {
            throw new IllegalArgumentException("SRQ max_wr must be at least 1");
        }
        if (newLimit > size) {
            throw new IllegalArgumentException("srq_limit " + newLimit + " exceeds max_wr " + size);
        }
        if (maxWr >= 0 && newLimit < 0 && maxWr < limit) {
            throw new IllegalArgumentException("SRQ max_wr " + maxWr + " is below its armed limit " + limit);
        }
        if (maxWr >= 0 && maxWr != slots.length) {
            resize(maxWr);
        }
        if (newLimit >= 0) {
            limit = newLimit;
        }
    }

    /** Moves every WQE in use (posted ones first, in order) to the front of new arrays. */
    private void resize(int size) {
        RecvWqe[] next = new RecvWqe[size];
        int[] nextPosted = new int[size];
        boolean[] keep = new boolean[slots.length];
        int n = 0;
        for (int i = 0; i < count; i++) {
            int s = posted[(head + i) % posted.length];
            keep[s] = true;
            nextPosted[i] = n;
            next[n++] = slots[s];
        }
        boolean[] isFree = new boolean[slots.length];
        for (int i = 0; i < freeCount; i++) {
            isFree[free[i]] = true;
        }
        for (int s = 0; s < slots.length; s++) {
            if (!keep[s] && !isFree[s]) {
                next[n++] = slots[s]; // held by a message in progress: keeps its identity
            }
        }
        int[] nextFree = new int[size];
        int f = 0;
        for (int s = n; s < size; s++) {
            next[s] = new RecvWqe(maxSge, s);
            nextFree[f++] = s;
        }
        for (int s = 0; s < n; s++) {
            next[s].slot = s;
        }
        slots = next;
        posted = nextPosted;
        head = 0;
        free = nextFree;
        freeCount = f;
    }

    /** Counts a QP created with this queue, so that destroying it can be refused while in use. */
    public synchronized void attach() {
        if (destroyed) {
            throw new IllegalStateException("SRQ " + srqn + " is destroyed");
        }
        attachedQps++;
    }

    public synchronized void detach() {
        attachedQps--;
    }

    /** QPs created with this queue and not destroyed. */
    public synchronized int attachedQps() {
        return attachedQps;
    }

    /**
     * Destroys the queue ({@code ibv_destroy_srq}): refused while QPs use it; posted WQEs go
     * without completions.
     *
     * @throws IllegalStateException if a QP still uses it
     */
    public synchronized void destroy() {
        if (destroyed) {
            return;
        }
        if (attachedQps > 0) {
            throw new IllegalStateException("SRQ " + srqn + " is in use by " + attachedQps + " QP(s)");
        }
        destroyed = true;
        for (int i = 0; i < count; i++) {
            slots[posted[(head + i) % posted.length]].sgl.release();
        }
        count = 0;
        pd.release();
        if (xrcd != null) {
            xrcd.removeSrq(this);
            cq.detach();
        }
    }

    @Override
    public synchronized String toString() {
        return (xrcd != null ? "XRC SRQ " : "SRQ ") + srqn + " (" + count + "/" + slots.length + " posted, limit " + limit + ")";
    }
}
