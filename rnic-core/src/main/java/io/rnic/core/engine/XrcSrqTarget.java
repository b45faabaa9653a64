package io.rnic.core.engine;

import io.rnic.core.memory.ProtectionDomain;
import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.Counter;

/**
 * An XRC target QP's message target: the XRC SRQ that the message's XRCETH names, which must
 * belong to the target QP's XRC domain (o9-114.a6); its PD checks the message's memory accesses
 * (a7), its queue gives the receive WQE (a8) and its CQ takes the completion (a9). Every packet
 * of a message names the same SRQ (a5): a middle or last packet naming another is refused, the
 * check the specification allows the responder to make.
 */
final class XrcSrqTarget implements MessageTarget {
    private final QpContext qp;
    private SrqContext srq;

    XrcSrqTarget(QpContext qp) {
        this.qp = qp;
    }

    @Override
    public ResponderError select(RocePacket p) {
        SrqContext named = qp.xrcd.srq(p.xrcEth().xrcSrq());
        if (named == null) {
            qp.hca.counters().inc(Counter.XRC_DOMAIN_VIOLATIONS);
            return ResponderError.XRC_DOMAIN;
        }
        srq = named;
        return null;
    }

    @Override
    public ResponderError confirm(RocePacket p) {
        if (srq == null || p.xrcEth().xrcSrq() != srq.srqn()) {
            qp.hca.counters().inc(Counter.XRC_SRQ_MISMATCHES);
            return ResponderError.XRC_SRQ_CHANGED;
        }
        return null;
    }

    @Override
    public ReceiveQueue queue() {
        return srq != null ? srq : NoReceiveQueue.INSTANCE;
    }

    @Override
    public QpContext owner() {
        return qp;
    }

    @Override
    public ProtectionDomain pd() {
        return srq != null ? srq.pd() : null;
    }
}
