package io.rnic.verbs;

import io.rnic.core.qp.QpAttrMask;
import io.rnic.core.qp.QpAttributes;
import io.rnic.core.qp.QpState;
import io.rnic.core.qp.QpType;
import io.rnic.core.transport.QpContext;
import io.rnic.core.transport.RecvWorkRequest;
import io.rnic.core.transport.SendWorkRequest;

/**
 * A queue pair ({@code ibv_qp}). Post from any thread; {@link #modify}, {@link #query} and
 * {@link #close} run on the device's protocol thread and wait for it.
 */
public final class QueuePair implements AutoCloseable {
    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final QpInitAttributes init;
    final QpContext core;
    private volatile boolean closed;

    QueuePair(RdmaDevice device, ProtectionDomain pd, QpInitAttributes init, QpContext core) {
        this.device = device;
        this.pd = pd;
        this.init = init;
        this.core = core;
    }

    /** The QP number. */
    public int qpn() {
        return core.qpn();
    }

    public QpType type() {
        return core.type();
    }

    public QpState state() {
        return core.state();
    }

    public ProtectionDomain pd() {
        return pd;
    }

    public QpInitAttributes initAttributes() {
        return init;
    }

    /** The UDP source port of the QP's flow (from RTR on). */
    public int sourcePort() {
        return core.sourcePort();
    }

    /**
     * Modifies the QP with the attributes set on {@code attrs} (their mask says which).
     *
     * @throws IllegalArgumentException naming the transition and attribute if invalid
     */
    public void modify(QpAttributes attrs) {
        modify(attrs, attrs.mask());
    }

    /** Modifies the QP with an explicit attribute mask ({@code ibv_modify_qp}). */
    public void modify(QpAttributes attrs, int mask) {
        checkOpen();
        if (attrs == null) {
            throw new IllegalArgumentException("attributes are required");
        }
        int flow = core.flowToOpen(attrs, mask);
        if (flow >= 0) {
            // Bind the flow's source port here: the protocol thread must not block on a bind.
            device.wire().openFlow(flow);
        }
        QpAttributes copy = new QpAttributes().copyFrom(attrs);
        device.onProtocolThread(() -> {
            core.modify(copy, mask);
            return null;
        });
    }

    /** The attributes in force and the current state. */
    public QpAttributes query() {
        checkOpen();
        return device.onProtocolThread(() -> core.query(new QpAttributes()));
    }

    /** Posts a send work request ({@code ibv_post_send}). */
    public void postSend(SendWorkRequest wr) {
        checkOpen();
        if (wr == null) {
            throw new IllegalArgumentException("work request is required");
        }
        core.postSend(wr);
    }

    /** Posts a receive work request ({@code ibv_post_recv}). */
    public void postRecv(RecvWorkRequest wr) {
        checkOpen();
        if (wr == null) {
            throw new IllegalArgumentException("work request is required");
        }
        core.postRecv(wr);
    }

    /** True once {@link #close} has run. */
    public boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        device.checkOpen(); // a closed device's QPs take no work: it would never leave
        if (closed) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(core.qpn()) + " is destroyed");
        }
    }

    /** Destroys the QP: outstanding work is dropped without completions. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.forget(this);
        if (device.isClosed()) {
            core.destroy(); // the device's protocol thread is gone: nothing else touches the QP now
            return;
        }
        device.onProtocolThread(() -> {
            core.destroy();
            return null;
        });
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
