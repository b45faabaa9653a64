package io.rnic.core.engine;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.packet.PseudoHeader;

/**
 * The 40-byte GRH area a datagram's receive buffer starts with, as libibverbs delivers it on
 * RoCEv2 (reference §11.2; rxe's {@code union rdma_network_hdr}): for IPv4, 20 zero bytes then
 * the IPv4 header; for IPv6, the IPv6 header. It is rebuilt from what the wire reports — the
 * addresses and the UDP payload length are real; identification 0, DF, TTL 64, TOS 0 are the
 * header every wire of ours puts on a packet (the convention of {@link PseudoHeader}), and the
 * IPv4 checksum is computed — because a UDP socket never sees the header it received.
 */
final class Grh {
    static final int LENGTH = 40;
    private final byte[] bytes = new byte[LENGTH + 8];
    private final ByteBuf view = Unpooled.wrappedBuffer(bytes);

    /** Builds the GRH of a packet of {@code udpPayloadLength} bytes that arrived as {@code ip} says. */
    ByteBuf build(PseudoHeader ip, int udpPayloadLength) {
        java.util.Arrays.fill(bytes, (byte) 0);
        if (ip.isIpv6()) {
            ip.write(bytes, 0, udpPayloadLength); // 40 bytes of IPv6 header (the UDP header after it is not used)
        } else {
            ip.write(bytes, 20, udpPayloadLength);
            int checksum = PseudoHeader.ipv4Checksum(bytes, 20);
            bytes[30] = (byte) (checksum >>> 8);
            bytes[31] = (byte) checksum;
        }
        return view;
    }
}
