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
}
