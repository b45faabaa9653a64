package io.rnic.verbs;

import io.rnic.core.engine.QpContext;

/**
 * An end-to-end (EE) context of reliable datagram service (IBA 10.2.7, 11.2.9; seed 001
 * §9.7.8): the reliability of RD, per remote node. Many RD QPs of its domain send through one
 * context, one message at a time (o9-102), their work requests naming it
 * ({@link SendWorkRequest#rd}); it numbers their packets with its own PSNs, retries them,
 * answers duplicates, keeps the READ and atomic resources and counts messages (MSN). A QP
 * error (an R_Key or Q_Key violation, an RNR NAK) abandons or suspends that QP's message
 * without closing the context (o9-107); the context then RESYNCs its peer (9.7.8.5).
 *
 * <p>Its states and attributes are an RC QP's (reference §6.2): INIT with a P_Key index and
 * port, RTR with the path ({@code av}, {@code pathMtu}), the peer context's number (as
 * {@code destQpn}), the receive PSN and the responder resources, RTS with the send PSN, the ACK
 * timeout, the retry counts and the initiator depth. Access flags and the RNR timer are the RD
 * QPs' own: a transition that an RC QP would need them for does not need them here.
 */
public final class EeContext implements AutoCloseable {
    private final RdmaDevice device;
    private final ReliableDatagramDomain rdd;
    final QpContext core;
    private volatile boolean closed;

    EeContext(RdmaDevice device, ReliableDatagramDomain rdd, QpContext core) {
        this.device = device;
        this.rdd = rdd;
        this.core = core;
    }

    /**
     * The context's number, which the peer context's packets carry in their RDETH and which a
     * peer is told as its {@code destQpn}.
     *
     * @return the EE context number (24 bits)
     */
    public int eecn() {
        return core.qpn();
    }

    /**
     * The UDP source port of the context's packets: rxe's hash of the two context numbers, as a
     * connected QP's (fixed at RTR).
     *
     * @return the port, or -1 before RTR
     */
    public int sourcePort() {
        return core.sourcePort();
    }

    /**
     * The domain the context belongs to.
     *
     * @return its reliable datagram domain
     */
    public ReliableDatagramDomain rdd() {
        return rdd;
    }

    /**
     * The device the context belongs to.
     *
     * @return the owning device
     */
    public RdmaDevice device() {
        return device;
    }

    /**
     * The current state; ERR once the device is closed.
     *
     * @return the state
     */
    public QpState state() {
        return core.state();
    }

    /**
     * Modifies the context with the attributes set on {@code attrs} (their mask says which).
     *
     * @param attrs the attributes, and the target state if set
     * @throws IllegalArgumentException naming the transition and attribute if invalid
     * @throws IllegalStateException if the context or its device is closed
     */
    public void modify(QpAttributes attrs) {
        java.util.Objects.requireNonNull(attrs, "attrs");
        modify(attrs, attrs.mask());
    }

    /**
     * Modifies the context ({@code ModifyEEC}) with an explicit attribute mask, on the device's
     * protocol thread. The attributes are copied.
     *
     * @param attrs the attribute values ({@code destQpn} is the peer EE context's number)
     * @param mask  {@link QpAttrMask} bits naming the attributes to apply
     * @throws IllegalArgumentException naming the transition and attribute if invalid
     * @throws IllegalStateException if the context or its device is closed
     */
    public void modify(QpAttributes attrs, int mask) {
        java.util.Objects.requireNonNull(attrs, "attrs");
        checkOpen();
        int effective = mask;
        if ((mask & QpAttrMask.STATE) != 0) {
            var rule = io.rnic.core.qp.QpTransitions.rule(core.policy().stateTable(), core.state(), attrs.state());
            // What an RC QP must be told but a context does not have: the RD QPs' own.
            int notTheContexts = QpAttrMask.ACCESS_FLAGS | QpAttrMask.MIN_RNR_TIMER;
            if (rule != null) {
                effective |= rule.required() & notTheContexts;
            }
        }
        device.modify(core, attrs, effective);
    }

    /**
     * Reads the attributes in force and the state ({@code QueryEEC}).
     *
     * @return a fresh attributes object
     * @throws IllegalStateException if the context or its device is closed
     */
    public QpAttributes query() {
        checkOpen();
        return device.onProtocolThread(() -> core.query(new QpAttributes()));
    }

    private void checkOpen() {
        device.checkOpen();
        if (closed) {
            throw new IllegalStateException("EE context 0x" + Integer.toHexString(core.qpn()) + " is destroyed");
        }
    }

    /**
     * Destroys the context ({@code DestroyEEC}): a message it carries and those waiting for it
     * complete at their QPs with {@link WcStatus#INV_EEC_STATE_ERR}, and its number stops
     * receiving. Closing it again does nothing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.forget(core);
        device.destroy(core);
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
