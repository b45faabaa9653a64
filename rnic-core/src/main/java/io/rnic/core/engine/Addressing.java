package io.rnic.core.engine;

import io.rnic.core.packet.PseudoHeader;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.SendWorkRequest;

/**
 * The destination seam: how a QP's work requests find their destination and which sources its
 * receive side accepts. A connected QP has one destination, set at RTR, and accepts packets only
 * from that peer; a datagram QP resolves a destination for every work request from its address
 * handle, remote QPN and Q_Key, and accepts packets from anyone (reference §8.6). One
 * implementation per {@link TransportPolicy.DestinationKind}.
 */
interface Addressing {
    /** The UDP source port of the QP's packets, or -1 before it is known. */
    int sourcePort();

    /**
     * The source port to open before a modify with {@code attrs}/{@code mask} reaches the
     * protocol thread (opening may bind a socket), or -1 if the modify opens none.
     */
    int flowToOpen(QpAttributes attrs, int mask);

    /** Entering RTR with the attributes in force. */
    void onReadyToReceive(QpAttributes attrs);

    /** A modify after RTR changed attributes ({@code mask}); a new address vector takes effect now. */
    void attributesChanged(QpAttributes attrs, int mask);

    /** Checks a work request's addressing at post time. */
    void checkPost(SendWorkRequest wr);

    /** The destination of {@code w}'s packets (a view reused for the next WQE). */
    Destination resolve(SendWqe w);

    /** Where the responder's ACKs, NAKs and responses go (acknowledged transports only). */
    Destination replies();

    /** True if a packet that arrived with {@code ip} may be handed to this QP. */
    boolean accepts(PseudoHeader ip);

    /** The QP number a receive completion names as the sender ({@code wc.src_qp}) for a connected QP. */
    int peerQpn();

    /**
     * A request that passed the dispatch checks is about to be handled: an EE context answers
     * the QP that sent it (the DETH's source QP); a QP answers its one peer and ignores this.
     */
    default void requestFrom(io.rnic.core.packet.RocePacket p) {
    }
}
