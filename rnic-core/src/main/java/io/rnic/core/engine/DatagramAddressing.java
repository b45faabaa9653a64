package io.rnic.core.engine;

import io.rnic.core.hca.Hca;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.verbs.AddressHandle;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.SendWorkRequest;

/**
 * A destination per work request (UD; RD later): the address handle, remote QPN and Q_Key the
 * WR names. A Q_Key with its high-order bit set is a request for the QP's own Q_Key (the
 * specification's rule for controlled Q_Keys, reference §8.5). Packets are accepted from any
 * source; the Q_Key check replaces the address check. The UDP source port is rxe's hash of the
 * QP number alone (reference §4.2), fixed when the QP is created.
 */
final class DatagramAddressing implements Addressing {
    private final Hca hca;
    private final QpContext qp;
    private final Destination scratch = new Destination();
    private final int preferredPort;
    /** Read by application threads ({@link QpContext#sourcePort()}). */
    private volatile int sourcePort = -1;
    /** The handle {@link #scratch}'s addresses were last set from. */
    private AddressHandle last;

    DatagramAddressing(Hca hca, QpContext qp) {
        this.hca = hca;
        this.qp = qp;
        this.preferredPort = udpSourcePort(qp.qpn);
        scratch.srcQpn = qp.qpn;
    }

    @Override
    public int sourcePort() {
        return sourcePort;
    }

    @Override
    public int flowToOpen(QpAttributes attrs, int mask) {
        return sourcePort < 0 ? preferredPort : -1;
    }

    @Override
    public void onReadyToReceive(QpAttributes attrs) {
        if (sourcePort < 0) {
            sourcePort = hca.sink().openFlow(preferredPort);
        }
    }

    @Override
    public void attributesChanged(QpAttributes attrs, int mask) {
        // A datagram QP has no address vector of its own.
    }

    @Override
    public void checkPost(SendWorkRequest wr) {
        if (wr.ah() == null) {
            throw new IllegalArgumentException("a " + qp.type + " work request needs an address handle (ud())");
        }
        if (wr.ah().isDestroyed()) {
            throw new IllegalArgumentException("the address handle of the work request is destroyed");
        }
        if (!wr.ah().createdIn(qp.pd)) {
            throw new IllegalArgumentException(wr.ah() + " belongs to another protection domain than the QP's, " + qp.pd);
        }
        if ((wr.remoteQpn() & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException(String.format("remote QPN 0x%x is wider than 24 bits", wr.remoteQpn()));
        }
    }

    @Override
    public Destination resolve(SendWqe w) {
        AddressHandle ah = w.ah;
        if (ah != last) {
            last = ah;
            scratch.remote = ah.socketAddress();
            scratch.pseudo.addresses(hca.address(), ah.vector().address()).ports(sourcePort, ah.vector().port());
            scratch.tos = hca.tosFor(ah.vector().trafficClass());
        }
        scratch.destQpn = w.remoteQpn;
        // A Q_Key with its high-order bit set asks for the QP's own (controlled Q_Keys).
        scratch.qkey = w.remoteQkey < 0 ? qp.qkey : w.remoteQkey;
        return scratch;
    }

    @Override
    public Destination replies() {
        throw new IllegalStateException("datagrams are not answered: " + qp + " has no peer to reply to");
    }

    @Override
    public boolean accepts(PseudoHeader ip) {
        return true;
    }

    @Override
    public int peerQpn() {
        return 0; // a datagram names its sender in DETH
    }

    /** rxe's source port of a UD QP: 0xC000 + hash_32(qpn, 14) (reference §4.2, golden captures). */
    static int udpSourcePort(int qpn) {
        return 0xC000 + ((qpn * 0x61C88647) >>> 18);
    }
}
