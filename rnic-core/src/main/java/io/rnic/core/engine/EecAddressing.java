package io.rnic.core.engine;

import io.rnic.core.hca.Hca;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.SendWorkRequest;

/**
 * An EE context's destination: one peer context on one remote node, set at RTR as a connected
 * QP's peer is ({@code destQpn} is the destination EE context number, which every packet's
 * RDETH carries). Each request's BTH names the QP its work request is for and its DETH the
 * Q_Key and the RD QP that sent it; each response's BTH names the QP that sent the request
 * answered (seed 001 §9.7.8.2). Packets are accepted from the peer node only.
 */
final class EecAddressing implements Addressing {
    /** The path, flow and peer check, as a connected QP's whose peer is the remote context. */
    private final ConnectedAddressing path;
    /** The RD QP that sent the request being answered (the DETH's source QP). */
    private int replyQpn;

    EecAddressing(Hca hca, int eecn) {
        this.path = new ConnectedAddressing(hca, eecn);
    }

    @Override
    public int sourcePort() {
        return path.sourcePort();
    }

    @Override
    public int flowToOpen(QpAttributes attrs, int mask) {
        return path.flowToOpen(attrs, mask);
    }

    @Override
    public void onReadyToReceive(QpAttributes attrs) {
        path.onReadyToReceive(attrs);
        path.replies().eecn = attrs.destQpn();
    }

    @Override
    public void attributesChanged(QpAttributes attrs, int mask) {
        path.attributesChanged(attrs, mask);
    }

    @Override
    public void checkPost(SendWorkRequest wr) {
        throw new IllegalStateException("work is posted to an RD QP, which names the EE context; not to the context");
    }

    @Override
    public Destination resolve(SendWqe w) {
        Destination peer = path.replies();
        peer.destQpn = w.remoteQpn;
        // A Q_Key with its high-order bit set asks for the sending QP's own, as on UD.
        peer.qkey = w.remoteQkey < 0 ? w.owner.qkey : w.remoteQkey;
        peer.srcQpn = w.owner.qpn;
        return peer;
    }

    @Override
    public Destination replies() {
        Destination peer = path.replies();
        peer.destQpn = replyQpn;
        return peer;
    }

    @Override
    public void requestFrom(RocePacket p) {
        replyQpn = p.deth().srcQp();
    }

    @Override
    public boolean accepts(PseudoHeader ip) {
        return path.accepts(ip);
    }

    @Override
    public int peerQpn() {
        return replyQpn;
    }
}
