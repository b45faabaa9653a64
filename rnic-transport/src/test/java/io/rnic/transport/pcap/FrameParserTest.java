package io.rnic.transport.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FrameParserTest {
    private static final byte[] ETHERNET = Captures.firstRoceFrame(Captures.golden("rc_pingpong_64.pcap")).data();
    private static final byte[] IP = Captures.stripEthernet(ETHERNET);

    private static UdpDatagram parse(int linkType, byte[] frame) {
        return FrameParser.parse(linkType, frame).orElseThrow(() -> new AssertionError("no datagram found"));
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @Test
    void ethernetIpv4Udp() {
        UdpDatagram d = parse(LinkType.ETHERNET, ETHERNET);
        assertEquals(4, d.ipVersion());
        assertEquals(4791, d.destinationPort());
        assertTrue(d.sourcePort() >= 0xC000, "rxe's source ports are in 0xC000..0xFFFF");
        assertTrue(List.of("169.254.77.11", "169.254.77.12").contains(d.source()));
        assertEquals(14, d.ipOffset());
        assertEquals(20, d.ipHeaderLength());
        assertEquals(34, d.udpOffset());
        assertEquals(42, d.payloadOffset());
        assertEquals(ETHERNET.length - 42, d.payloadLength());
        assertFalse(d.truncated());
    }

    @Test
    void theUdpLengthFieldDecidesNotTheFrameLength() {
        // Ethernet pads short frames; the trailer must not become RoCE payload.
        UdpDatagram padded = parse(LinkType.ETHERNET, concat(ETHERNET, new byte[10]));
        assertEquals(ETHERNET.length - 42, padded.payloadLength());
        // A snap length cut leaves fewer bytes than the UDP header announces.
        UdpDatagram cut = parse(LinkType.ETHERNET, Arrays.copyOf(ETHERNET, 60));
        assertEquals(18, cut.payloadLength());
        assertEquals(ETHERNET.length - 42, cut.declaredPayloadLength());
        assertTrue(cut.truncated());
    }

    @Test
    void vlanAndQinQTagsAreSkipped() {
        assertEquals(18, parse(LinkType.ETHERNET, Captures.tagVlan(ETHERNET, 0x8100)).ipOffset());
        assertEquals(22, parse(LinkType.ETHERNET, Captures.tagVlan(ETHERNET, 0x88A8, 0x8100)).ipOffset());
        assertEquals(26, parse(LinkType.ETHERNET, Captures.tagVlan(ETHERNET, 0x9100, 0x88A8, 0x8100)).ipOffset());
        assertFalse(FrameParser.parse(LinkType.ETHERNET, Arrays.copyOf(Captures.tagVlan(ETHERNET, 0x8100), 16)).isPresent());
    }

    @Test
    void everySupportedLinkTypeFindsTheSameDatagram() {
        UdpDatagram reference = parse(LinkType.ETHERNET, ETHERNET);
        byte[] sll = concat(new byte[] {0, 0, 0, 1, 0, 6, 0x52, 0x54, 0, 0x77, 0, 0x0b, 0, 0, 0x08, 0x00}, IP);
        byte[] sll2 = concat(new byte[] {0x08, 0x00, 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 0x52, 0x54, 0, 0x77, 0, 0x0b, 0, 0}, IP);
        byte[] nullLe = concat(new byte[] {2, 0, 0, 0}, IP);
        byte[] loop = concat(new byte[] {0, 0, 0, 2}, IP);
        Object[][] cases = {
            {LinkType.LINUX_SLL, sll, 16}, {LinkType.LINUX_SLL2, sll2, 20}, {LinkType.NULL, nullLe, 4},
            {LinkType.LOOP, loop, 4}, {LinkType.RAW, IP, 0}, {LinkType.IPV4, IP, 0},
            {LinkType.RAW_BSD_12, IP, 0}, {LinkType.RAW_BSD_14, IP, 0},
        };
        for (Object[] c : cases) {
            UdpDatagram d = parse((Integer) c[0], (byte[]) c[1]);
            assertEquals((int) (Integer) c[2], d.ipOffset(), LinkType.name((Integer) c[0]));
            assertEquals(reference.source(), d.source());
            assertEquals(reference.destination(), d.destination());
            assertEquals(reference.sourcePort(), d.sourcePort());
            assertEquals(reference.payloadLength(), d.payloadLength());
        }
        assertFalse(FrameParser.parse(147, ETHERNET).isPresent(), "user link types are not guessed at");
        assertFalse(FrameParser.parse(LinkType.UNKNOWN, ETHERNET).isPresent());
    }

    @Test
    void ipv6() {
        PcapFrame v6 = Captures.frames(Captures.wireCheck("good-extra.pcap")).get(3);
        UdpDatagram d = parse(LinkType.ETHERNET, v6.data());
        assertEquals(6, d.ipVersion());
        assertEquals("::1", d.source());
        assertEquals("::1", d.destination());
        assertEquals(40, d.ipHeaderLength());
        assertEquals(14 + 48, d.payloadOffset());
        UdpDatagram raw = parse(LinkType.IPV6, Captures.stripEthernet(v6.data()));
        assertEquals(0, raw.ipOffset());
        assertEquals(d.payloadLength(), raw.payloadLength());
        // An extension header (hop-by-hop, next header 0) is not followed.
        byte[] hopByHop = Captures.stripEthernet(v6.data());
        hopByHop[6] = 0;
        assertFalse(FrameParser.parse(LinkType.IPV6, hopByHop).isPresent());
    }

    @Test
    void ipv4OptionsMoveTheUdpHeader() {
        byte[] ip = Captures.hex(RoceCaptureDecoderTest.IPV4_WITH_OPTIONS);
        UdpDatagram d = parse(LinkType.IPV4, ip);
        assertEquals(24, d.ipHeaderLength());
        assertEquals(32, d.payloadOffset());
        assertEquals(20, d.payloadLength());
        assertEquals("10.0.0.1", d.source());
        assertEquals("10.0.0.2", d.destination());
    }

    @Test
    void laterFragmentsAndOtherProtocolsAreSkipped() {
        byte[] fragment = IP.clone();
        fragment[6] = 0x20;          // MF, offset 0: the first fragment still has the UDP header
        assertTrue(FrameParser.parse(LinkType.IPV4, fragment).isPresent());
        fragment[7] = 0x10;          // offset 16 (x8 bytes): no UDP header here
        assertFalse(FrameParser.parse(LinkType.IPV4, fragment).isPresent());
        byte[] tcp = IP.clone();
        tcp[9] = 6;
        assertFalse(FrameParser.parse(LinkType.IPV4, tcp).isPresent());
        byte[] arp = ETHERNET.clone();
        arp[12] = 0x08;
        arp[13] = 0x06;
        assertFalse(FrameParser.parse(LinkType.ETHERNET, arp).isPresent());
        byte[] shortUdp = IP.clone();
        shortUdp[24] = 0;
        shortUdp[25] = 7;            // UDP length below its own header
        assertFalse(FrameParser.parse(LinkType.IPV4, shortUdp).isPresent());
        byte[] badIhl = IP.clone();
        badIhl[0] = 0x44;
        assertFalse(FrameParser.parse(LinkType.IPV4, badIhl).isPresent());
        byte[] mismatch = concat(new byte[] {2, 0, 0, 0}, IP);
        mismatch[4] = 0x65;          // "version 6" on an IPv4 packet
        assertFalse(FrameParser.parse(LinkType.NULL, mismatch).isPresent());
    }

    @Test
    void tcpFramesOfTheGoldenCapturesAreNotUdp() {
        long udp = Captures.frames(Captures.golden("read_bw_2050.pcap")).stream()
                .map(FrameParser::parse).filter(Optional::isPresent).count();
        assertEquals(20, udp, "62 frames: 20 RoCEv2 datagrams, the rest the TCP exchange on port 18515");
    }

    @Test
    void neverThrowsOnGarbageOrAnyTruncation() {
        int[] linkTypes = {0, 1, 12, 14, 101, 108, 113, 228, 229, 276, 147, -1};
        byte[] sll2 = concat(new byte[] {0x08, 0x00, 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0}, IP);
        for (int cut = 0; cut <= ETHERNET.length; cut++) {
            for (int lt : linkTypes) {
                FrameParser.parse(lt, Arrays.copyOf(ETHERNET, cut));
                FrameParser.parse(lt, Arrays.copyOf(IP, Math.min(cut, IP.length)));
                FrameParser.parse(lt, Arrays.copyOf(sll2, Math.min(cut, sll2.length)));
            }
        }
        Random rnd = new Random(1);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[rnd.nextInt(100)];
            rnd.nextBytes(b);
            if (b.length > 0 && rnd.nextBoolean()) {
                b[0] = (byte) (rnd.nextBoolean() ? 0x45 : 0x60);
            }
            if (b.length > 9 && rnd.nextBoolean()) {
                b[9] = 17;
                b[6] = 17;
            }
            FrameParser.parse(linkTypes[rnd.nextInt(linkTypes.length)], b);
        }
        assertFalse(FrameParser.parse(LinkType.ETHERNET, null).isPresent());
    }

    @Test
    void ipv6TextFollowsRfc5952() {
        assertEquals("::1", FrameParser.ipv6Text(Captures.hex("00000000000000000000000000000001"), 0));
        assertEquals("::", FrameParser.ipv6Text(new byte[16], 0));
        assertEquals("fe80::1", FrameParser.ipv6Text(Captures.hex("fe800000000000000000000000000001"), 0));
        assertEquals("::ffff:169.254.77.11", FrameParser.ipv6Text(Captures.hex("00000000000000000000ffffa9fe4d0b"), 0));
        assertEquals("2001:db8::1:0:0:1", FrameParser.ipv6Text(Captures.hex("20010db8000000000001000000000001"), 0));
        assertEquals("1:0:0:2::3", FrameParser.ipv6Text(Captures.hex("00010000000000020000000000000003"), 0));
        assertEquals("1:0:2:3:4:5:6:7", FrameParser.ipv6Text(Captures.hex("00010000000200030004000500060007"), 0));
        assertEquals("1::", FrameParser.ipv6Text(Captures.hex("00010000000000000000000000000000"), 0));
    }
}
