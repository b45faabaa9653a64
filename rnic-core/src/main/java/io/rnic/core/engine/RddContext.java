package io.rnic.core.engine;

/**
 * A reliable datagram domain (RDD, IBA 10.2.8): the scope that pairs RD QPs with EE contexts. A
 * QP sends only through contexts of its domain, and a request whose context and target QP are in
 * different domains is refused with NAK Invalid RD Request. Counts the QPs and contexts in it so
 * that it is not freed under them.
 */
public final class RddContext {
    private final int id;
    private int users;
    private boolean freed;

    /** A domain called {@code id} in messages. */
    public RddContext(int id) {
        this.id = id;
    }

    /** The domain's number. */
    public int id() {
        return id;
    }

    synchronized void attach() {
        if (freed) {
            throw new IllegalStateException(this + " is deallocated");
        }
        users++;
    }

    synchronized void detach() {
        users--;
    }

    /** QPs and EE contexts in the domain. */
    public synchronized int users() {
        return users;
    }

    /**
     * Frees the domain (IBA 11.2.1.8).
     *
     * @throws IllegalStateException if RD QPs or EE contexts are still in it
     */
    public synchronized void free() {
        if (users > 0) {
            throw new IllegalStateException(this + " still has " + users + " RD QPs or EE contexts");
        }
        freed = true;
    }

    @Override
    public String toString() {
        return "RDD " + id;
    }
}
