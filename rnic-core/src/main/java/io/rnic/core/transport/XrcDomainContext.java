package io.rnic.core.transport;

import java.util.HashMap;
import java.util.Map;

/**
 * An XRC domain ({@code ibv_xrcd}, seed 001 §9.7.9.1): the scope within which an XRC target QP
 * may deliver to XRC SRQs, as an RD domain scopes EE contexts. The XRC SRQs of the domain are
 * registered here by number, so the responder's o9-114.a6 check ("the SRQ the first packet names
 * belongs to the target QP's domain") is one lookup, and a number of another domain or of no SRQ
 * at all fails it alike.
 *
 * <p>Several openers may share a domain (processes opening the same file in libibverbs): it is
 * freed when the last one closes, and that close is refused while SRQs or target QPs use it.
 * Application threads register and look up under the domain's lock; lookups from the protocol
 * thread take it too, which is uncontended in steady state.
 */
public final class XrcDomainContext {
    private final int id;
    private final Map<Integer, SrqContext> srqs = new HashMap<>();
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

    /** The XRC SRQ of this domain with number {@code srqn}, or {@code null}. */
    synchronized SrqContext srq(int srqn) {
        return srqs.get(srqn);
    }

    synchronized void addSrq(SrqContext srq) {
        checkOpen();
        srqs.put(srq.srqn(), srq);
    }

    synchronized void removeSrq(SrqContext srq) {
        srqs.remove(srq.srqn());
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
        return srqs.size() + targetQps;
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
            throw new IllegalStateException("XRC domain " + id + " is in use by " + srqs.size() + " XRC SRQ(s) and "
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
