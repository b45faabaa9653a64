package io.rnic.core.transport;

import io.rnic.core.hca.Hca;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.SendWorkRequest;
import java.net.InetSocketAddress;

/**
 * An EE context's destination: one peer context on one remote node, set at RTR ({@code destQpn}
 * is the destination EE context number, which every packet's RDETH carries). Each request's BTH
 * names the QP its work request is for and its DETH the Q_Key and the RD QP that sent it; each
 * response's BTH names the QP that sent the request answered (seed 001 §9.7.8.2). Packets are
 * accepted from the peer node only.
 */
final class EecAddressing implements Addressing {
    private final Hca hca;
    private final int eecn;
    private final Destination peer = new Destination();
    private byte[] peerAddress;
    private volatile int sourcePort = -1;
    /** The RD QP that sent the request being answered (the DETH's source QP). */
    private int replyQpn;

    EecAddressing(Hca hca, int eecn) {
        this.hca = hca;
        this.eecn = eecn;
    }

    @Override
    public int sourcePort() {
        return sourcePort;
    }

    @Override
    public int flowToOpen(QpAttributes attrs, int mask) {
        return (mask & QpAttrMask.DEST_QPN) != 0 ? ConnectedAddressing.udpSourcePort(eecn, attrs.destQpn()) : -1;
    }

    @Override
    public void onReadyToReceive(QpAttributes attrs) {
        peer.eecn = attrs.destQpn();
        sourcePort = hca.sink().openFlow(ConnectedAddressing.udpSourcePort(eecn, peer.eecn));
        point(attrs.av());
    }

    @Override
    public void attributesChanged(QpAttributes attrs, int mask) {
        if ((mask & QpAttrMask.AV) != 0 && sourcePort >= 0) {
            point(attrs.av());
        }
    }

    private void point(AddressVector av) {
        peer.remote = new InetSocketAddress(av.address(), av.port());
        peerAddress = av.address().getAddress();
        peer.pseudo.addresses(hca.address(), av.address()).ports(sourcePort, av.port());
    }

    @Override
    public void checkPost(SendWorkRequest wr) {
        throw new IllegalStateException("work is posted to an RD QP, which names the EE context; not to the context");
    }

    @Override
    public Destination resolve(SendWqe w) {
        peer.destQpn = w.remoteQpn;
        // A Q_Key with its high-order bit set asks for the sending QP's own, as on UD.
        peer.qkey = w.remoteQkey < 0 ? w.owner.qkey : w.remoteQkey;
        peer.srcQpn = w.owner.qpn;
        return peer;
    }

    @Override
    public Destination replies() {
        peer.destQpn = replyQpn;
        return peer;
    }

    @Override
    public void requestFrom(RocePacket p) {
        replyQpn = p.deth().srcQp();
    }

    @Override
    public boolean accepts(PseudoHeader ip) {
        return peerAddress != null && ip.sourceEquals(peerAddress);
    }

    @Override
    public int peerQpn() {
        return replyQpn;
    }
}
