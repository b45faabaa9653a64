package io.rnic.core.engine;

import io.rnic.core.hca.Hca;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.SendWorkRequest;
import java.net.InetSocketAddress;

/**
 * One fixed peer (RC, UC, XRC): the address vector and destination QP given at RTR. The
 * UDP source port is rxe's symmetric hash of the two QP numbers (reference §4.2), so both ends
 * of a connection use the same one.
 */
final class ConnectedAddressing implements Addressing {
    private final Hca hca;
    private final int qpn;
    private final Destination peer = new Destination();
    private byte[] peerAddress;
    /** Read by application threads ({@link QpContext#sourcePort()}). */
    private volatile int sourcePort = -1;

    ConnectedAddressing(Hca hca, int qpn) {
        this.hca = hca;
        this.qpn = qpn;
        peer.srcQpn = qpn;
    }

    @Override
    public int sourcePort() {
        return sourcePort;
    }

    @Override
    public int flowToOpen(QpAttributes attrs, int mask) {
        return (mask & QpAttrMask.DEST_QPN) != 0 ? udpSourcePort(qpn, attrs.destQpn()) : -1;
    }

    @Override
    public void onReadyToReceive(QpAttributes attrs) {
        peer.destQpn = attrs.destQpn();
        sourcePort = hca.sink().openFlow(udpSourcePort(qpn, peer.destQpn));
        point(attrs.av());
    }

    @Override
    public void attributesChanged(QpAttributes attrs, int mask) {
        if ((mask & QpAttrMask.AV) != 0 && sourcePort >= 0) {
            point(attrs.av()); // SQD -> SQD may move the peer (reference §6.2)
        }
    }

    private void point(AddressVector av) {
        peer.remote = new InetSocketAddress(av.address(), av.port());
        peerAddress = av.address().getAddress();
        peer.pseudo.addresses(hca.address(), av.address()).ports(sourcePort, av.port());
        peer.tos = hca.tosFor(av.trafficClass());
    }

    @Override
    public void checkPost(SendWorkRequest wr) {
        // The destination was fixed at RTR; the WR names none.
    }

    @Override
    public Destination resolve(SendWqe w) {
        peer.xrcSrq = w.remoteSrqn; // an XRC initiator's one peer node holds many SRQs
        return peer;
    }

    @Override
    public Destination replies() {
        return peer;
    }

    @Override
    public boolean accepts(PseudoHeader ip) {
        return peerAddress != null && ip.sourceEquals(peerAddress);
    }

    @Override
    public int peerQpn() {
        return peer.destQpn;
    }

    /** The UDP source port rxe derives from the two QP numbers (reference §4.2). */
    static int udpSourcePort(int localQpn, int remoteQpn) {
        long v = (long) localQpn * remoteQpn;
        v ^= v >>> 20;
        v ^= v >>> 40;
        int fl = (int) (v & 0xFFFFF);
        return 0xC000 | ((fl & 0x3FFF) ^ ((fl & 0xFC000) >>> 14));
    }
}
