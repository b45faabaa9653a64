package io.rnic.core.packet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** The four ICRC test vectors of reference §4.4, over captured and over pseudo headers. */
class IcrcTest {
    private final Icrc icrc = new Icrc();

    /** Frame bytes are IP header + UDP header + BTH..ICRC. */
    private int captured(String frameHex, int ipHeaderLength) {
        ByteBuf frame = Unpooled.wrappedBuffer(Hex.bytes(frameHex));
        int udpPayload = frame.readableBytes() - ipHeaderLength - 8;
        int value = icrc.computeCaptured(frame, 0, ipHeaderLength, udpPayload);
        assertEquals(Icrc.stored(frame, ipHeaderLength + 8, udpPayload), value, "stored ICRC must match the computed one");
        return value;
    }

    @Test
    void connectX4CnpCaptureVector() {
        captured("45c2003c718c4000401191610a0011010a001201" + "000012b700280000"
                + "8100ffff4000011800000000" + "00000000000000000000000000000000" + "82fd002a", 20);
    }

    @Test
    void scapyUcSendOnlyVector() {
        captured("4501004004784000401 1b4d5c0a80007c0a80007".replace(" ", "") + "c00012b7002caca2"
                + "2460ffff000000d300cf1710" + "4630818be28935d90e9a95505401be885e500000" + "78f353f3", 20);
    }

    @Test
    void rcSendOnlyHelloVectorWithIpIdZero() {
        int value = captured("450000340000400040 11b74ac0a8010ac0a80114".replace(" ", "") + "c00112b700200000"
                + "0430ffff0000001180000000" + "68656c6c6f000000" + "b2ce3798", 20);
        assertEquals(0x9837CEB2, value);
    }

    @Test
    void ipv6AckVector() {
        captured("61a12345001c1140" + "fe800000000000000000000000000001" + "fe800000000000000000000000000002"
                + "c05a12b7001c0000" + "1100ffff0000001200000100" + "1f000001" + "a80766c6", 40);
    }

    @Test
    void pseudoHeaderReproducesIpv4VectorWithIdZeroAndDf() throws Exception {
        PseudoHeader ph = new PseudoHeader()
                .addresses(InetAddress.getByName("192.168.1.10"), InetAddress.getByName("192.168.1.20"))
                .ports(0xC001, 4791);
        ByteBuf pkt = Unpooled.wrappedBuffer(Hex.bytes("0430ffff0000001180000000" + "68656c6c6f000000" + "b2ce3798"));
        assertTrue(icrc.verify(ph, pkt, 0, pkt.readableBytes()));
        ph.ipv4Identification(1);
        assertFalse(icrc.verify(ph, pkt, 0, pkt.readableBytes()), "the identification is covered by the ICRC");
        ph.ipv4Identification(0).dontFragment(false);
        assertFalse(icrc.verify(ph, pkt, 0, pkt.readableBytes()), "the DF flag is covered by the ICRC");
    }

    @Test
    void pseudoHeaderReproducesIpv6Vector() throws Exception {
        PseudoHeader ph = new PseudoHeader()
                .addresses(InetAddress.getByName("fe80::1"), InetAddress.getByName("fe80::2"))
                .ports(0xC05A, 4791);
        ByteBuf pkt = Unpooled.wrappedBuffer(Hex.bytes("1100ffff0000001200000100" + "1f000001" + "a80766c6"));
        assertTrue(icrc.verify(ph, pkt, 0, pkt.readableBytes()));
    }

    @Test
    void fecnBecnAndResv6AreMaskedOutOfTheIcrc() throws Exception {
        PseudoHeader ph = new PseudoHeader()
                .addresses(InetAddress.getByName("192.168.1.10"), InetAddress.getByName("192.168.1.20"))
                .ports(0xC001, 4791);
        ByteBuf pkt = Unpooled.wrappedBuffer(Hex.bytes("0430ffff" + "c0" + "00001180000000" + "68656c6c6f000000" + "b2ce3798"));
        assertTrue(icrc.verify(ph, pkt, 0, pkt.readableBytes()));
    }

    @Test
    void directAndHeapBuffersGiveTheSameIcrc() throws Exception {
        PseudoHeader ph = new PseudoHeader()
                .addresses(InetAddress.getByName("127.0.0.2"), InetAddress.getByName("127.0.0.3"))
                .ports(0xC132, 4791);
        byte[] bytes = new byte[4096 + 32];
        new java.util.Random(7).nextBytes(bytes);
        bytes[1] = 0; // TVer and PadCnt do not matter for the CRC, but keep the packet plausible
        ByteBuf heap = Unpooled.wrappedBuffer(bytes);
        ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length);
        try {
            direct.writeBytes(bytes);
            assertEquals(icrc.compute(ph, heap, 0, bytes.length), icrc.compute(ph, direct, 0, bytes.length));
            ByteBuf composite = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(bytes, 0, 100),
                    Unpooled.wrappedBuffer(bytes, 100, bytes.length - 100));
            assertEquals(icrc.compute(ph, heap, 0, bytes.length), icrc.compute(ph, composite, 0, bytes.length));
        } finally {
            direct.release();
        }
    }

    /**
     * One Icrc takes the CRC of a flow's masked IP and UDP headers once per flow and length: every
     * change of a header field, of the length or of the pseudo header object must show in the
     * result. Checked against CRC-32 over the whole masked byte sequence, built here from scratch.
     */
    @Test
    void aReusedIcrcFollowsEveryChangeOfFlowAndLength() throws Exception {
        java.util.Random random = new java.util.Random(11);
        PseudoHeader a = new PseudoHeader();
        PseudoHeader b = new PseudoHeader()
                .addresses(InetAddress.getByName("fe80::1"), InetAddress.getByName("fe80::2")).ports(0xC05A, 4791);
        InetAddress[] v4 = {InetAddress.getByName("127.0.0.2"), InetAddress.getByName("127.0.0.3"), InetAddress.getByName("10.0.0.9")};
        a.addresses(v4[0], v4[1]).ports(0xC132, 4791);
        ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(4200);
        try {
            for (int i = 0; i < 2000; i++) {
                switch (random.nextInt(6)) {
                    case 0 -> a.ports(0xC000 + random.nextInt(4), 4791);
                    case 1 -> a.addresses(v4[random.nextInt(3)], v4[random.nextInt(3)]);
                    case 2 -> a.ipv4Identification(random.nextInt(3));
                    case 3 -> a.dontFragment(random.nextBoolean());
                    case 4 -> icrc.computeCaptured(Unpooled.wrappedBuffer(Hex.bytes(
                            "45000034000040004011f75dc0a8010ac0a80114c0011297002000000430ffff0000001180000000"
                                    + "68656c6c6f000000b2ce3798")), 0, 20, 24);
                    default -> { }
                }
                PseudoHeader ph = random.nextInt(4) == 0 ? b : a;
                int length = BthFlyweight.LENGTH + Icrc.LENGTH + 4 * random.nextInt(3) + (random.nextBoolean() ? 64 : 4096);
                byte[] packet = new byte[length];
                random.nextBytes(packet);
                direct.clear().writeBytes(packet);
                assertEquals(reference(ph, packet), icrc.compute(ph, direct, 0, length), "packet " + i);
            }
        } finally {
            direct.release();
        }
    }

    /** CRC-32 of eight 0xFF bytes, the masked IP and UDP headers, the masked BTH and the rest up to the ICRC. */
    private static int reference(PseudoHeader ph, byte[] packet) {
        byte[] headers = new byte[48];
        int ipLength = ph.write(headers, 0, packet.length) - 8;
        if (ph.isIpv6()) {
            headers[0] |= 0x0F;
            headers[1] = headers[2] = headers[3] = headers[7] = (byte) 0xFF;
        } else {
            headers[1] = headers[8] = headers[10] = headers[11] = (byte) 0xFF;
        }
        headers[ipLength + 6] = headers[ipLength + 7] = (byte) 0xFF;
        byte[] bth = java.util.Arrays.copyOf(packet, packet.length - Icrc.LENGTH);
        bth[4] = (byte) 0xFF;
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1});
        crc.update(headers, 0, ipLength + 8);
        crc.update(bth);
        return (int) crc.getValue();
    }
}
