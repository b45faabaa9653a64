package io.rnic.core.engine;

import io.rnic.core.packet.PseudoHeader;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.SendWorkRequest;

/**
 * An RD QP's destinations: each work request names the local EE context that carries it, the
 * remote QP and the Q_Key (seed 001 §9.7.8.2.1, step 1). The context must be of the QP's
 * reliable datagram domain; the path, the UDP flow and the PSNs are the context's, so the QP
 * itself opens no flow and never sends or answers a packet.
 */
final class RdQpAddressing implements Addressing {
    private final QpContext qp;

    RdQpAddressing(QpContext qp) {
        this.qp = qp;
    }

    @Override
    public int sourcePort() {
        return -1;
    }

    @Override
    public int flowToOpen(QpAttributes attrs, int mask) {
        return -1;
    }

    @Override
    public void onReadyToReceive(QpAttributes attrs) {
        // The EE contexts have the paths.
    }

    @Override
    public void attributesChanged(QpAttributes attrs, int mask) {
        // Nothing of the QP's own is on the wire.
    }

    @Override
    public void checkPost(SendWorkRequest wr) {
        QpContext eec = RxDispatch.context(qp.hca, wr.eecn());
        if (eec == null || eec.ee == null) {
            throw new IllegalArgumentException(String.format("an RD work request names its local EE context "
                    + "(rd(eec, remoteQpn, qkey)); 0x%x is not an EE context of this device", wr.eecn()));
        }
        if (eec.rdd != qp.rdd) {
            throw new IllegalArgumentException(String.format("EE context 0x%x is in %s, QP 0x%x in %s: a QP sends "
                    + "only through contexts of its reliable datagram domain", wr.eecn(), eec.rdd, qp.qpn, qp.rdd));
        }
        if ((wr.remoteQpn() & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException(String.format("remote QPN 0x%x is wider than 24 bits", wr.remoteQpn()));
        }
    }

    @Override
    public Destination resolve(SendWqe w) {
        throw new IllegalStateException("an RD QP's messages are framed by their EE context");
    }

    @Override
    public Destination replies() {
        throw new IllegalStateException("an RD QP's messages are answered by their EE context");
    }

    @Override
    public boolean accepts(PseudoHeader ip) {
        return false;
    }

    @Override
    public int peerQpn() {
        return 0;
    }
}
