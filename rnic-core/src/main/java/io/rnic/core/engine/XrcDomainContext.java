package io.rnic.core.engine;

import java.util.Arrays;

/**
 * An XRC domain ({@code ibv_xrcd}, seed 001 §9.7.9.1): the scope within which an XRC target QP
 * may deliver to XRC SRQs, as an RD domain scopes EE contexts. The XRC SRQs of the domain are
 * registered here by number, so the responder's o9-114.a6 check ("the SRQ the first packet names
 * belongs to the target QP's domain") is one lookup, and a number of another domain or of no SRQ
 * at all fails it alike.
 *
 * <p>Several openers may share a domain (processes opening the same file in libibverbs): it is
 * freed when the last one closes, and that close is refused while SRQs or target QPs use it.
 * Application threads register under the domain's lock; the protocol thread looks SRQs up
 * without it, in a sorted array replaced on every change (changes are rare, lookups are per
 * message), so a lookup neither blocks nor allocates.
 */
public final class XrcDomainContext {
    private final int id;
    /** The domain's XRC SRQs, sorted by number; replaced, never changed in place. */
    private volatile SrqContext[] srqs = new SrqContext[0];
    private int targetQps;
    private int openers = 1;
    private boolean closed;

    /** A domain with one opener. */
    public XrcDomainContext(int id) {
        this.id = id;
    }

    /** The domain's number on its device (for messages). */
    public int id() {
        return id;
    }

    /** The XRC SRQ of this domain with number {@code srqn}, or {@code null}. Lock- and allocation-free. */
    SrqContext srq(int srqn) {
        SrqContext[] a = srqs;
        int lo = 0;
        int hi = a.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int n = a[mid].srqn();
            if (n == srqn) {
                return a[mid];
            }
            if (n < srqn) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return null;
    }

    synchronized void addSrq(SrqContext srq) {
        checkOpen();
        SrqContext[] a = Arrays.copyOf(srqs, srqs.length + 1);
        a[a.length - 1] = srq;
        Arrays.sort(a, (x, y) -> Integer.compare(x.srqn(), y.srqn()));
        srqs = a;
    }

    synchronized void removeSrq(SrqContext srq) {
        srqs = Arrays.stream(srqs).filter(x -> x != srq).toArray(SrqContext[]::new);
    }

    synchronized void attachTargetQp() {
        checkOpen();
        targetQps++;
    }

    synchronized void detachTargetQp() {
        targetQps--;
    }

    /** XRC SRQs and target QPs that use the domain. */
    public synchronized int users() {
        return srqs.length + targetQps;
    }

    /**
     * Another opener shares the domain.
     *
     * @throws IllegalStateException if it is closed
     */
    public synchronized void open() {
        checkOpen();
        openers++;
    }

    /**
     * One opener closes the domain ({@code ibv_close_xrcd}); the last one frees it.
     *
     * @return true if this close freed the domain
     * @throws IllegalStateException if this is the last opener and SRQs or target QPs still use it
     *     (the domain stays open)
     */
    public synchronized boolean close() {
        if (closed) {
            return false;
        }
        if (openers == 1 && users() > 0) {
            throw new IllegalStateException("XRC domain " + id + " is in use by " + srqs.length + " XRC SRQ(s) and "
                    + targetQps + " XRC target QP(s)");
        }
        if (--openers == 0) {
            closed = true;
        }
        return closed;
    }

    /** True once the last opener closed it. */
    public synchronized boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("XRC domain " + id + " is closed");
        }
    }

    @Override
    public String toString() {
        return "XRCD " + id;
    }
}
