package io.rnic.core.engine;

import io.netty.buffer.ByteBuf;
import io.rnic.core.hca.Hca;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.RocePacket;

/**
 * TX framing for one QP: lays out a packet of an opcode from the table, fills what every packet
 * of the QP carries (BTH P_Key and destination QP, and DETH or XRCETH from the destination
 * when the opcode has one, and an RD packet's RDETH), then seals it with the ICRC of the destination's flow and hands it to the
 * HCA. The requester and responder fill the rest.
 */
final class PacketFramer {
    private final QpContext qp;
    private final Hca hca;

    PacketFramer(QpContext qp) {
        this.qp = qp;
        this.hca = qp.hca;
    }

    /** Lays out an outgoing packet to {@code d}; fill its fields, then {@link #transmit}. */
    RocePacket start(Opcode op, int payloadLength, Destination d) {
        RocePacket p = hca.txPacket();
        ByteBuf buf = hca.sink().allocator().directBuffer(PacketEncoder.packetLength(op, payloadLength));
        hca.encoder().layout(buf, op, payloadLength, p);
        p.bth().pkey(qp.pkey).destQp(d.destQpn);
        if (op.has(Header.RDETH)) {
            p.rdeth().eeContext(d.eecn);
        }
        if (op.has(Header.DETH)) {
            p.deth().qkey(d.qkey).srcQp(d.srcQpn);
        }
        if (op.has(Header.XRCETH)) {
            p.xrcEth().xrcSrq(d.xrcSrq); // the same on every packet of the message (o9-114.a5)
        }
        return p;
    }

    /** Seals (ICRC, unless the wire offloads it) and sends the packet from {@link #start} to {@code d}. */
    void transmit(RocePacket p, Destination d) {
        transmit(p.buffer(), p.offset(), p.length(), d);
    }

    /** As {@link #transmit(RocePacket, Destination)}, for a packet laid out earlier at {@code buf[offset, offset + length)}. */
    void transmit(ByteBuf buf, int offset, int length, Destination d) {
        hca.transmit(buf, offset, length, d.pseudo, qp.addressing.sourcePort(), d.remote, d.tos);
    }
}
