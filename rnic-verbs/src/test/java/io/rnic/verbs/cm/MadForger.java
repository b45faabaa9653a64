package io.rnic.verbs.cm;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.wire.WireTap;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import io.rnic.verbs.Gid;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A stranger on the simulated network with no HCA of its own: it sends hand-made CM MADs (UD
 * SEND ONLY from QP1 to QP1, the GSI Q_Key, a valid ICRC) from its own address, and keeps the
 * MADs that come back to it.
 */
final class MadForger {
    private static final int SOURCE_PORT = 0xC0DE;

    final SimWire wire;
    final List<ByteBuffer> received = new ArrayList<>();
    /** REJs that came back, by reason (0..63), also when the MADs are not kept. */
    final long[] rejCounts = new long[64];

    MadForger(SimNetwork net, String ip) {
        this(net, ip, true);
    }

    /** A forger that keeps the MADs that come back in {@link #received}, or ({@code keep} false) only counts REJs. */
    MadForger(SimNetwork net, String ip, boolean keep) {
        wire = net.attach(ip);
        wire.addTap((dir, ts, p, src, dst) -> {
            if (dir == WireTap.Direction.RECEIVED && p.readableBytes() >= 12 + 8 + Mad.SIZE) {
                byte[] mad = new byte[Mad.SIZE];
                p.getBytes(p.readerIndex() + 12 + 8, mad);
                ByteBuffer b = ByteBuffer.wrap(mad);
                if (Mad.attributeId(b) == Mad.REJ) {
                    rejCounts[Math.min(63, CmReply.decode(b).value2())]++;
                }
                if (keep) {
                    received.add(b);
                }
            }
        });
    }

    /** How many REJs came back in all. */
    long rejects() {
        return java.util.Arrays.stream(rejCounts).sum();
    }

    InetAddress address() {
        return wire.localAddress().getAddress();
    }

    /** Sends the MAD in {@code mad} to the GSI of the HCA on {@code to}. */
    void send(SimWire to, ByteBuffer mad) {
        byte[] payload = new byte[Mad.SIZE];
        mad.get(0, payload);
        PacketFields f = new PacketFields().opcode(OpcodeTable.lookup(0x64)).payload(payload);
        f.destQp = 1;
        f.dethQkey = Mad.GSI_QKEY;
        f.dethSrcQp = 1;
        f.ackReq = true;
        PseudoHeader ph = new PseudoHeader().addresses(address(), to.localAddress().getAddress())
                .ports(SOURCE_PORT, to.localAddress().getPort());
        ByteBuf buf = Unpooled.buffer();
        new PacketEncoder().encode(f, ph, buf, new RocePacket());
        wire.send(buf, SOURCE_PORT, to.localAddress());
    }

    /** The attributes of the MADs that came back, in order. */
    List<Integer> receivedAttributes() {
        return received.stream().map(Mad::attributeId).toList();
    }

    /** The REJ reasons that came back, in order. */
    List<Integer> rejReasons() {
        return received.stream().filter(m -> Mad.attributeId(m) == Mad.REJ).map(m -> CmReply.decode(m).value2())
                .toList();
    }

    /**
     * A REQ as rnic's and Linux's rdma_cm make one, from {@code src} (QP {@code qpn}, comm ID
     * {@code commId}) to {@code port} at {@code dst} in the TCP port space.
     */
    static CmReq req(int commId, int qpn, InetAddress src, InetAddress dst, int port) {
        byte[] pd = CmaHeader.wrap(new InetSocketAddress(src, 40000), new InetSocketAddress(dst, port), null,
                CmReq.PRIVATE_DATA);
        return new CmReq(commId, PortSpace.TCP.serviceId(port), 0x0200_00ff_fe00_0001L, 0, qpn, 1, 1,
                CmId.CM_RESPONSE_TIMEOUT, 0, 0x123456, CmId.CM_RESPONSE_TIMEOUT, 7, 0xFFFF, 3, 7, CmId.MAX_CM_RETRIES,
                false, Gid.of(src).bytes(), Gid.of(dst).bytes(), 0, 0, 64, CmId.PACKET_LIFE_TIME + 1, pd);
    }

    /** {@code r} encoded as a MAD with transaction ID {@code tid}. */
    static ByteBuffer mad(CmReq r, long tid) {
        ByteBuffer b = ByteBuffer.allocate(Mad.SIZE);
        r.encode(b, tid);
        return b;
    }

    /** {@code m} encoded as a MAD with transaction ID {@code tid}. */
    static ByteBuffer mad(CmReply m, long tid) {
        ByteBuffer b = ByteBuffer.allocate(Mad.SIZE);
        m.encode(b, tid);
        return b;
    }
}
