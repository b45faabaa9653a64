package io.rnic.verbs;

import io.rnic.core.engine.QpContext;
import io.rnic.core.engine.XrcDomainContext;

/**
 * An XRC domain ({@code ibv_xrcd}): the scope in which an XRC target QP delivers to XRC shared
 * receive queues (seed 001 §9.7.9). Its XRC SRQs are created with
 * {@link ProtectionDomain#createXrcSrq}, its target QPs with {@link #createTargetQp}; a
 * request that names an XRC SRQ of another domain is refused with a NAK (o9-114.a6).
 *
 * <p>Open one with {@link RdmaDevice#openXrcd(String)}; every opener of the same name on a
 * device shares the domain, as processes opening the same file do with {@code ibv_open_xrcd}.
 */
public final class XrcDomain implements AutoCloseable {
    private final RdmaDevice device;
    private final String name;
    final XrcDomainContext core;
    private volatile boolean closed;

    XrcDomain(RdmaDevice device, String name, XrcDomainContext core) {
        this.device = device;
        this.name = name;
        this.core = core;
    }

    /**
     * The device the domain was opened on.
     *
     * @return the owning device
     */
    public RdmaDevice device() {
        return device;
    }

    /**
     * The name its openers share it by.
     *
     * @return the name given to {@link RdmaDevice#openXrcd(String)}
     */
    public String name() {
        return name;
    }

    /**
     * Creates an XRC target QP in this domain ({@code ibv_create_qp_ex} with
     * {@code IBV_QPT_XRC_RECV}): the responder half of an XRC connection, connected to one
     * initiator ({@link QpType#XRC_SEND}) QP on a remote node, through which that initiator
     * reaches every XRC SRQ of this domain. It has no PD, completion queues or work queues of
     * its own: each message uses the PD, receive queue and CQ of the XRC SRQ it names.
     *
     * @return the new QP, in RESET
     * @throws IllegalStateException if the domain or the device is closed
     */
    public QueuePair createTargetQp() {
        checkOpen();
        device.checkOpen();
        QpContext qp = QpContext.createXrcTarget(device.hca(), core);
        device.remember(qp);
        return new QueuePair(device, null, null, qp);
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("XRC domain " + name + " is closed");
        }
    }

    /**
     * Closes this opener's handle ({@code ibv_close_xrcd}); the domain is freed when the last
     * opener closes it. Closing it again does nothing.
     *
     * @throws IllegalStateException if this is the last opener and XRC SRQs or target QPs still
     *     use the domain (the handle stays open)
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        device.closeXrcd(this);
        closed = true;
    }

    @Override
    public String toString() {
        return "XRCD " + name + " (" + core.users() + " users)";
    }
}
