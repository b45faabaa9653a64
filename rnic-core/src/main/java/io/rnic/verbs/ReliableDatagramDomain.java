package io.rnic.verbs;

import io.rnic.core.engine.QpContext;
import io.rnic.core.engine.RddContext;

/**
 * A reliable datagram domain (RDD, IBA 10.2.8; seed 001 §9.7.8): the scope that pairs RD QPs
 * with the EE contexts that carry their messages. An RD QP ({@link ProtectionDomain#createRdQp})
 * sends only through contexts of its domain, and a request that reaches a QP of another domain
 * than the context it came through is refused with NAK Invalid RD Request.
 *
 * <p>Allocate one with {@link RdmaDevice#allocRdd()}; close it after its QPs and contexts.
 */
public final class ReliableDatagramDomain implements AutoCloseable {
    private final RdmaDevice device;
    final RddContext core;
    private volatile boolean closed;

    ReliableDatagramDomain(RdmaDevice device, RddContext core) {
        this.device = device;
        this.core = core;
    }

    /**
     * The device the domain belongs to.
     *
     * @return the owning device
     */
    public RdmaDevice device() {
        return device;
    }

    /**
     * Creates an EE context in this domain (IBA 11.2.9, Create EE Context): the end-to-end
     * context that carries the messages of the domain's RD QPs to one peer context on one remote
     * node, with RC's reliability (PSNs, ACKs, timers, retries, duplicates, responder resources)
     * and a message sequence number of its own. An error of a message's QP abandons the message
     * and RESYNCs the context ({@link RdQpErrorRecovery#RESYNC}). Bring it up with
     * {@link EeContext#modify} or {@link Connections#connectEeContexts}.
     *
     * @return the new context, in RESET
     * @throws IllegalStateException if the domain or the device is closed, or the device has no
     *     context number left
     */
    public EeContext createEeContext() {
        return createEeContext(RdQpErrorRecovery.RESYNC);
    }

    /**
     * As {@link #createEeContext()}, choosing what the context does when a message fails for an
     * error of its QP (o9-114.a1): RESYNC and carry on, or fail the QP and the context.
     *
     * @param qpErrors the choice
     * @return the new context, in RESET
     * @throws NullPointerException if {@code qpErrors} is null
     * @throws IllegalStateException if the domain or the device is closed, or the device has no
     *     context number left
     */
    public EeContext createEeContext(RdQpErrorRecovery qpErrors) {
        java.util.Objects.requireNonNull(qpErrors, "qpErrors");
        checkOpen();
        device.checkOpen();
        if (qpErrors == null) {
            throw new IllegalArgumentException("choose RESYNC or FAIL_CONTEXT for QP errors (o9-114.a1)");
        }
        QpContext eec = QpContext.createEeContext(device.hca(), core, qpErrors);
        device.remember(eec);
        return new EeContext(device, this, eec);
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /**
     * Deallocates the domain (IBA 11.2.1.8). Closing it again does nothing.
     *
     * @throws IllegalStateException if RD QPs or EE contexts are still in it (it stays open)
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        core.free();
        closed = true;
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
