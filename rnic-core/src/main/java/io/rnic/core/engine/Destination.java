package io.rnic.core.engine;

import io.rnic.core.packet.PseudoHeader;
import java.net.InetSocketAddress;

/**
 * Where a packet goes: the peer's address and UDP port, the destination QP, the Q_Key a
 * datagram carries, and the IP/UDP fields its ICRC covers. Mutable and reused: a connected QP
 * fills one at RTR, a datagram QP refills its own for each work request.
 */
final class Destination {
    InetSocketAddress remote;
    int destQpn;
    /** The DETH Q_Key (datagram transports). */
    int qkey;
    /** The XRC SRQ an XRC request is for (XRCETH), set per work request. */
    int xrcSrq;
    /** The QP a DETH names as the sender: the QP's own, or (an EE context's) the message's QP. */
    int srcQpn;
    /** The EE context an RDETH names: the peer context of an EE context. */
    int eecn;
    final PseudoHeader pseudo = new PseudoHeader();
    /** The IP TOS byte the packets carry (DSCP and ECN), from the address vector's traffic class. */
    int tos;
}
