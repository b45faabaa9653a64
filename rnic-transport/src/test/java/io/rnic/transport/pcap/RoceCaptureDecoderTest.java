package io.rnic.transport.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.packet.DecodeResult;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.packet.PayloadRule;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RoceCaptureDecoderTest {
    /**
     * RC SEND_ONLY over IPv4 with a Router Alert option (IHL 6), IP ID 0x4321; ICRC computed by
     * wire-check's independent {@code roce.py} over the header including the option.
     */
    static final String IPV4_WITH_OPTIONS =
            "460000344321400040114e910a0000010a00000294040000c00112b7001c04c40400ffff000000128000004d6f7074739bc5cac7";
    /** RC ACKNOWLEDGE to UDP port 4792 (a second emulated HCA on one host), from roce.py. */
    private static final String TO_PORT_4792 =
            "450000300000400040113cb87f0000027f000003c00212b8001c818d1100ffff00000011000000051f000009368746c2";
    /** RC SEND_ONLY_WITH_IMMEDIATE with SE, P_Key 0x8001, FECN, BECN, AckReq; from roce.py. */
    private static final String ALL_BTH_FLAGS =
            "45000034000040004011b74ac0a8010ac0a80114c00312b70020b93005b08001c012345680abcdef010203047800000070753b22";

    /** RoCEv2 packets per golden file, as wire-check and rxe-vm/icrc_check.py count them. */
    private static final Map<String, Integer> GOLDEN_COUNTS = new LinkedHashMap<>();

    static {
        GOLDEN_COUNTS.put("atomic_cas.pcap", 10);
        GOLDEN_COUNTS.put("atomic_fadd.pcap", 10);
        GOLDEN_COUNTS.put("host_rc_peer.pcap", 16);
        GOLDEN_COUNTS.put("host_ud_peer.pcap", 8);
        GOLDEN_COUNTS.put("rc_pingpong_2050.pcap", 16);
        GOLDEN_COUNTS.put("rc_pingpong_64.pcap", 16);
        GOLDEN_COUNTS.put("read_bw_2050.pcap", 20);
        GOLDEN_COUNTS.put("read_bw_64.pcap", 10);
        GOLDEN_COUNTS.put("rping_rdmacm.pcap", 29);
        GOLDEN_COUNTS.put("send_bw_rdmacm_64.pcap", 66);
        GOLDEN_COUNTS.put("send_bw_ud_64.pcap", 5);
        GOLDEN_COUNTS.put("srq_pingpong_64.pcap", 8);
        GOLDEN_COUNTS.put("uc_pingpong_64.pcap", 8);
        GOLDEN_COUNTS.put("ud_pingpong_64.pcap", 8);
        GOLDEN_COUNTS.put("write_bw_2050.pcap", 20);
        GOLDEN_COUNTS.put("write_bw_64.pcap", 10);
    }

    private static List<DecodedPacket> decode(Path file) {
        return decode(new RoceCaptureDecoder(), file);
    }

    private static List<DecodedPacket> decode(RoceCaptureDecoder d, Path file) {
        try (PcapReader r = PcapReader.open(file)) {
            List<DecodedPacket> out = d.decodeAll(r);
            assertNull(r.problem(), file + ": " + r.problem());
            return out;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static DecodedPacket one(RoceCaptureDecoder d, int linkType, byte[] frame) {
        return d.decode(new PcapFrame(1, 0, linkType, frame.length, frame)).orElseThrow(() -> new AssertionError("not RoCEv2"));
    }

    private static DecodedPacket one(int linkType, byte[] frame) {
        return one(new RoceCaptureDecoder(), linkType, frame);
    }

    private static List<String> lines(List<DecodedPacket> packets, String opcode) {
        return packets.stream().map(DecodedPacket::line).filter(l -> l.contains(" " + opcode + " ")).collect(Collectors.toList());
    }

    // ------------------------------------------------------------------ golden captures

    @Test
    void everyGoldenCaptureDecodesWithoutRejectionOrBadIcrc() {
        List<Path> files = Captures.goldenFiles();
        assertEquals(GOLDEN_COUNTS.keySet(), files.stream().map(p -> p.getFileName().toString())
                .collect(Collectors.toCollection(java.util.LinkedHashSet::new)));
        RoceCaptureDecoder total = new RoceCaptureDecoder();
        for (Path f : files) {
            RoceCaptureDecoder d = new RoceCaptureDecoder();
            List<DecodedPacket> packets = decode(d, f);
            decode(total, f);
            String name = f.getFileName().toString();
            assertEquals(0, d.rejected(), name + ": " + packets.stream().filter(p -> !p.result().ok()).findFirst());
            assertEquals(0, d.badIcrc(), name + ": " + packets.stream().filter(p -> !p.clean()).findFirst());
            assertEquals((long) GOLDEN_COUNTS.get(name), d.packets(), name);
            assertTrue(packets.stream().allMatch(p -> p.line().endsWith(" icrc=ok")), name);
        }
        assertEquals(260, total.packets());
        assertEquals("decoded 260 packets, 0 rejected, 0 bad ICRC", total.summary());
    }

    @Test
    void readBw2050CarriesReadRequestsForTheServersBuffer() {
        List<DecodedPacket> p = decode(Captures.golden("read_bw_2050.pcap"));
        // Server: "local address: ... QPN 0x001a ... RKey 0x000ad6 VAddr 0x0055e31b730000".
        List<String> requests = lines(p, "RC_RDMA_READ_REQUEST");
        assertEquals(5, requests.size());
        for (String l : requests) {
            assertTrue(l.contains("169.254.77.12 -> 169.254.77.11 RC_RDMA_READ_REQUEST qp=0x00001a"), l);
            assertTrue(l.contains(" RETH(va=0x55e31b730000 rkey=0x00000ad6 len=2050) payload=0 icrc=ok"), l);
        }
        assertEquals(5, lines(p, "RC_RDMA_READ_RESPONSE_FIRST").size());
        assertEquals(5, lines(p, "RC_RDMA_READ_RESPONSE_MIDDLE").size());
        List<String> last = lines(p, "RC_RDMA_READ_RESPONSE_LAST");
        assertEquals(5, last.size());
        assertTrue(last.get(0).contains("AETH(ACK credits=invalid msn=1) payload=2 icrc=ok"), last.get(0));
        // The client's first PSN is 0x32c84f.
        assertTrue(requests.get(0).contains(" psn=" + 0x32c84f + " ack=1 "), requests.get(0));
    }

    @Test
    void atomicFetchAddAndItsAcknowledgements() {
        List<DecodedPacket> p = decode(Captures.golden("atomic_fadd.pcap"));
        List<String> fadd = lines(p, "RC_FETCH_ADD");
        assertEquals(5, fadd.size());
        assertTrue(fadd.get(0).contains("qp=0x00001b psn=" + 0xd40e5d + " ack=1 AtomicETH(va=0x"), fadd.get(0));
        assertTrue(fadd.get(0).contains(" swap=0x1 cmp=0x0) payload=0 icrc=ok"), fadd.get(0));
        List<String> acks = lines(p, "RC_ATOMIC_ACKNOWLEDGE");
        assertEquals(5, acks.size());
        assertTrue(acks.get(0).contains("AETH(ACK credits=invalid msn=1) AtomicAckETH(orig=0x"), acks.get(0));
        assertEquals(5, lines(decode(Captures.golden("atomic_cas.pcap")), "RC_COMPARE_SWAP").size());
    }

    @Test
    void udPingpongCarriesDethWithQkey11111111() {
        List<DecodedPacket> p = decode(Captures.golden("ud_pingpong_64.pcap"));
        assertEquals(8, p.size());
        for (DecodedPacket d : p) {
            assertEquals(OpcodeTable.byName("UD_SEND_ONLY"), d.opcode());
            assertTrue(d.line().contains(" qp=0x000014 "), d.line());
            assertTrue(d.line().endsWith(" DETH(qkey=0x11111111 srcqp=0x000014) payload=64 icrc=ok"), d.line());
        }
        // Client (169.254.77.12) starts at PSN 0xf3e9e4.
        assertTrue(p.get(0).line().startsWith("12 169.254.77.12 -> 169.254.77.11 UD_SEND_ONLY qp=0x000014 psn=" + 0xf3e9e4 + " "),
                p.get(0).line());
    }

    @Test
    void moreGoldenFacts() {
        List<String> writes = lines(decode(Captures.golden("write_bw_64.pcap")), "RC_RDMA_WRITE_ONLY");
        assertEquals(5, writes.size());
        // Server: "RKey 0x00073b VAddr 0x0055b82da45000".
        assertTrue(writes.get(0).contains("RETH(va=0x55b82da45000 rkey=0x0000073b len=64) payload=64"), writes.get(0));

        List<DecodedPacket> send2050 = decode(Captures.golden("rc_pingpong_2050.pcap"));
        List<String> sendLast = lines(send2050, "RC_SEND_LAST");
        assertEquals(4, sendLast.size());
        assertTrue(sendLast.stream().allMatch(l -> l.contains(" ack=1 payload=2 icrc=ok")), sendLast.toString());
        assertTrue(lines(send2050, "RC_SEND_FIRST").stream().allMatch(l -> l.contains(" payload=1024 ")));

        List<DecodedPacket> cm = decode(Captures.golden("send_bw_rdmacm_64.pcap"));
        assertEquals(12, cm.stream().filter(d -> d.line().contains("UD_SEND_ONLY qp=0x000001 ")
                && d.line().contains("DETH(qkey=0x80010000 srcqp=0x000001) MAD(CM ")
                && d.line().contains(" payload=256")).count());
        // the two connections' REQ/REP/RTU, then three DREQs and their DREPs, each MAD named
        assertEquals(2, cm.stream().filter(d -> d.line().contains(" MAD(CM REQ tid=")).count());
        assertEquals(3, cm.stream().filter(d -> d.line().contains(" MAD(CM DREQ tid=")).count());
        assertEquals(27, lines(cm, "RC_ACKNOWLEDGE").size());

        // host_rc_peer: the host's packets come from a Python peer on a plain UDP socket (IP ID 0).
        List<DecodedPacket> host = decode(Captures.golden("host_rc_peer.pcap"));
        assertTrue(host.stream().anyMatch(d -> d.line().contains("169.254.77.1 -> 169.254.77.11 RC_SEND_ONLY")));
    }

    // ------------------------------------------------------------------ wire-check's test data

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "good.pcap, 18, 0, 0, OK",
        "good-extra.pcap, 4, 0, 0, OK",
        "bad-corrupt-icrc.pcap, 1, 0, 1, OK",
        "bad-icrc-ipid-mismatch.pcap, 1, 0, 1, OK",
        "bad-icrc-df-mismatch.pcap, 1, 0, 1, OK",
        "bad-tver-nonzero.pcap, 1, 1, 0, TVER_NONZERO",
        "bad-truncated-reth.pcap, 1, 1, 0, TRUNCATED_HEADER",
        "bad-ud-missing-deth.pcap, 1, 1, 0, TRUNCATED_HEADER",
        "bad-padcnt-exceeds-payload.pcap, 1, 1, 0, PADCNT_INCONSISTENT",
        "bad-padcnt-on-first.pcap, 1, 1, 0, PADCNT_INCONSISTENT",
        "bad-unaligned-payload.pcap, 1, 1, 0, LENGTH_UNALIGNED",
        "bad-ack-extra-bytes.pcap, 1, 1, 0, LENGTH_MISMATCH",
        "bad-unknown-opcode.pcap, 1, 1, 0, UNKNOWN_OPCODE",
        "bad-psn-gap.pcap, 2, 0, 0, OK",
        // PadCnt 1 with 3 pad bytes keeps the length aligned: only the RETH DMA length (a
        // transport check, not a codec one) shows it, so the codec decodes it.
        "bad-wrong-padcnt.pcap, 1, 0, 0, OK",
    })
    void agreesWithWireCheck(String file, int packets, int rejected, int badIcrc, DecodeResult reason) {
        RoceCaptureDecoder d = new RoceCaptureDecoder();
        List<DecodedPacket> p = decode(d, Captures.wireCheck(file));
        assertEquals(packets, d.packets());
        assertEquals(rejected, d.rejected());
        assertEquals(badIcrc, d.badIcrc());
        if (rejected > 0) {
            assertEquals(rejected, d.rejected(reason));
            assertEquals(reason, p.get(0).result());
            assertTrue(p.get(0).line().contains(" REJECTED " + reason.name() + ": " + reason.description() + " opcode=0x"),
                    p.get(0).line());
            assertEquals(DecodedPacket.IcrcVerdict.NOT_CHECKED, p.get(0).icrc());
        }
    }

    @Test
    void exactLineFormats() {
        List<DecodedPacket> good = decode(Captures.wireCheck("good.pcap"));
        assertEquals("1 127.0.0.1 -> 127.0.0.2 RC_SEND_ONLY qp=0x000012 psn=100 ack=1 payload=5 icrc=ok", good.get(0).line());
        assertEquals("2 127.0.0.2 -> 127.0.0.1 RC_ACKNOWLEDGE qp=0x000011 psn=100 AETH(ACK credits=invalid msn=1) payload=0 icrc=ok",
                good.get(1).line());
        assertEquals("13 127.0.0.1 -> 127.0.0.2 RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE qp=0x000012 psn=108"
                + " RETH(va=0x7f0000001000 rkey=0x0000beef len=3) ImmDt(0x00000007) payload=3 icrc=ok", good.get(12).line());
        assertEquals("14 127.0.0.1 -> 127.0.0.2 RC_SEND_ONLY_WITH_INVALIDATE qp=0x000012 psn=109 IETH(rkey=0x0000beef) payload=3 icrc=ok",
                good.get(13).line());
        assertEquals("10 127.0.0.1 -> 127.0.0.2 RC_COMPARE_SWAP qp=0x000012 psn=106 ack=1"
                + " AtomicETH(va=0x7f0000003000 rkey=0x0000beef swap=0x2222 cmp=0x1111) payload=0 icrc=ok", good.get(9).line());
        assertEquals("11 127.0.0.2 -> 127.0.0.1 RC_ATOMIC_ACKNOWLEDGE qp=0x000011 psn=106"
                + " AETH(ACK credits=invalid msn=4) AtomicAckETH(orig=0x1111) payload=0 icrc=ok", good.get(10).line());

        List<DecodedPacket> extra = decode(Captures.wireCheck("good-extra.pcap"));
        assertEquals("1 127.0.0.1 -> 127.0.0.2 XRC_SEND_ONLY qp=0x000040 psn=1 XRCETH(srq=0x000099) payload=3 icrc=ok",
                extra.get(0).line());
        assertEquals("2 127.0.0.1 -> 127.0.0.2 RD_SEND_ONLY qp=0x000050 psn=1 RDETH(eec=0x000077)"
                + " DETH(qkey=0x00001234 srcqp=0x000051) payload=2 icrc=ok", extra.get(1).line());
        assertEquals("3 127.0.0.2 -> 127.0.0.1 CNP qp=0x000011 psn=0 becn=1 payload=0 icrc=ok", extra.get(2).line());
        assertEquals("4 ::1 -> ::1 RC_SEND_ONLY qp=0x000060 psn=1 payload=2 icrc=ok", extra.get(3).line());

        assertEquals("1 127.0.0.1 -> 127.0.0.2 REJECTED TVER_NONZERO: BTH transport version is not 0"
                + " opcode=0x04(RC_SEND_ONLY) qp=0x000012 psn=206 len=20",
                decode(Captures.wireCheck("bad-tver-nonzero.pcap")).get(0).line());
        assertEquals("1 127.0.0.1 -> 127.0.0.2 REJECTED UNKNOWN_OPCODE: reserved or unknown opcode"
                + " opcode=0x1f qp=0x000012 psn=207 len=20",
                decode(Captures.wireCheck("bad-unknown-opcode.pcap")).get(0).line());
    }

    @Test
    void everyBthFlagIsShown() {
        DecodedPacket p = one(LinkType.IPV4, Captures.hex(ALL_BTH_FLAGS));
        assertEquals("1 192.168.1.10 -> 192.168.1.20 RC_SEND_ONLY_WITH_IMMEDIATE qp=0x123456 psn=" + 0xABCDEF
                + " ack=1 se=1 pkey=0x8001 fecn=1 becn=1 ImmDt(0x01020304) payload=1 icrc=ok", p.line());
    }

    @Test
    void nakAndRnrNakSyndromes() {
        String nak = "450000300000400040113cba7f0000027f000001c00212b7001c5ae71100ffff0000001100000009620000031b5245a2";
        String rnr = "450000300000400040113cba7f0000027f000001c00212b7001ccecc1100ffff00000011000000092e0000043d20e3ed";
        assertTrue(one(LinkType.RAW, Captures.hex(nak)).line().endsWith(" AETH(NAK REMOTE_ACCESS_ERROR msn=3) payload=0 icrc=ok"));
        assertTrue(one(LinkType.RAW, Captures.hex(rnr)).line().endsWith(" AETH(RNR_NAK timer=14(1.28ms) msn=4) payload=0 icrc=ok"));
    }

    /** Every opcode of the table, encoded by rnic-core and wrapped in real IPv4 / IPv6 headers. */
    @Test
    void everyOpcodeOfTheTableRoundTripsThroughACapture() throws Exception {
        PseudoHeader v4 = new PseudoHeader().addresses(InetAddress.getByName("10.1.2.3"), InetAddress.getByName("10.1.2.4"))
                .ports(0xC123, PseudoHeader.ROCE_PORT);
        PseudoHeader v6 = new PseudoHeader().addresses(InetAddress.getByName("fd00::3"), InetAddress.getByName("fd00::4"))
                .ports(0xC123, PseudoHeader.ROCE_PORT);
        PacketEncoder encoder = new PacketEncoder();
        for (Opcode op : OpcodeTable.all()) {
            PacketFields f = new PacketFields().opcode(op);
            f.destQp = 0x42;
            f.psn = 7;
            f.rethVa = 0x1000;
            f.rethRkey = 0xAB;
            f.rethLength = 8;
            f.fethSelectivity = 1;
            f.fethPlacement = 3;
            f.dethQkey = 0x11111111;
            f.payload(new byte[op.payload() == PayloadRule.NONE ? 0 : op.payload() == PayloadRule.EIGHT_BYTES ? 8 : 4]);
            for (PseudoHeader pseudo : List.of(v4, v6)) {
                ByteBuf packet = Unpooled.buffer();
                int length = encoder.encode(f, pseudo, packet, new RocePacket());
                byte[] frame = new byte[64 + length];
                int ipAndUdp = pseudo.write(frame, 0, length);
                packet.getBytes(0, frame, ipAndUdp, length);
                packet.release();
                frame = Arrays.copyOf(frame, ipAndUdp + length);
                DecodedPacket d = one(LinkType.RAW, frame);
                assertEquals(DecodeResult.OK, d.result(), op.name());
                assertEquals(op, d.opcode());
                assertEquals(DecodedPacket.IcrcVerdict.OK, d.icrc(), d.line());
                assertTrue(d.line().contains(" " + op.name() + " qp=0x000042 psn=7"), d.line());
                for (Header h : op.headers()) {
                    String tag = Map.of(Header.ATOMIC_ETH, "AtomicETH(", Header.ATOMIC_ACK_ETH, "AtomicAckETH(",
                            Header.IMMDT, "ImmDt(", Header.CNP_RESERVED, "").getOrDefault(h, h.name() + "(");
                    assertTrue(d.line().contains(tag), d.line() + " lacks " + h);
                }
                if (op.has(Header.FETH)) {
                    assertTrue(d.line().contains(" FETH(sel=1 plt=3) RETH(va=0x1000 rkey=0x000000ab len=8) payload=0 "), d.line());
                }
            }
        }
    }

    // ------------------------------------------------------------------ ICRC

    /** The four test vectors of ib-reference §4.4 (IP, UDP, BTH, rest, ICRC), as raw IP packets. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "ConnectX-4 Lx CNP | 45c2003c718c4000401191610a0011010a001201 000012b700280000 8100ffff4000011800000000"
            + " 00000000000000000000000000000000 82fd002a",
        "scapy UC SEND Only, M=1, PadCnt 2 | 450100400478400040 11b4d5c0a80007c0a80007 c00012b7002caca2 2460ffff000000d300cf1710"
            + " 4630818be28935d90e9a95505401be885e500000 78f353f3",
        "RC SEND Only, IPv4 ID 0 | 45000034000040004011b74ac0a8010ac0a80114 c00112b700200000 0430ffff0000001180000000"
            + " 68656c6c6f000000 b2ce3798",
        "IPv6 RC ACK | 61a12345001c1140 fe800000000000000000000000000001 fe800000000000000000000000000002"
            + " c05a12b7001c0000 1100ffff0000001200000100 1f000001 a80766c6",
    })
    void referenceIcrcVectors(String name, String hex) {
        DecodedPacket p = one(LinkType.RAW, Captures.hex(hex));
        assertEquals(DecodeResult.OK, p.result(), p.line());
        assertEquals(DecodedPacket.IcrcVerdict.OK, p.icrc(), name + ": " + p.line());
    }

    @Test
    void corruptedIcrcOrPayloadByteIsBadButMaskedFieldsAreNot() {
        byte[] frame = Captures.firstRoceFrame(Captures.golden("rc_pingpong_64.pcap")).data();
        assertEquals(DecodedPacket.IcrcVerdict.OK, one(LinkType.ETHERNET, frame).icrc());
        int bth = 42;
        // ICRC, payload, BTH opcode/QP/PSN, IP ID, IP source, UDP source port.
        int[] covered = {frame.length - 1, frame.length - 4, frame.length - 10, bth, bth + 7, bth + 11, 14 + 4, 14 + 12, 34 + 0};
        for (int at : covered) {
            byte[] bad = frame.clone();
            bad[at] ^= 0x01;
            DecodedPacket p = one(LinkType.ETHERNET, bad);
            if (p.result().ok()) {
                assertEquals(DecodedPacket.IcrcVerdict.BAD, p.icrc(), "byte " + at + ": " + p.line());
                assertTrue(p.line().endsWith(" icrc=bad"), p.line());
            }
        }
        // TOS, TTL, IP checksum, UDP checksum and BTH byte 4 are outside the ICRC.
        int[] masked = {14 + 1, 14 + 8, 14 + 10, 14 + 11, 34 + 6, 34 + 7, bth + 4};
        for (int at : masked) {
            byte[] changed = frame.clone();
            changed[at] ^= (byte) 0xA5;
            assertEquals(DecodedPacket.IcrcVerdict.OK, one(LinkType.ETHERNET, changed).icrc(), "byte " + at);
        }
        RoceCaptureDecoder d = new RoceCaptureDecoder();
        byte[] bad = frame.clone();
        bad[bad.length - 2] ^= (byte) 0xFF;
        one(d, LinkType.ETHERNET, bad);
        one(d, LinkType.ETHERNET, frame);
        assertEquals("decoded 2 packets, 0 rejected, 1 bad ICRC", d.summary());
        assertFalse(d.allClean());
    }

    @Test
    void ipIdOptionChecksAgainstTheAssumedIdentification() {
        byte[] frame = Captures.firstRoceFrame(Captures.golden("rc_pingpong_64.pcap")).data();
        int original = ((frame[14 + 4] & 0xFF) << 8) | (frame[14 + 5] & 0xFF);
        assertTrue(original != 0, "rxe's kernel chose a nonzero ID");
        byte[] patched = frame.clone();
        patched[14 + 4] ^= 0x55;
        patched[14 + 5] ^= 0x2A;
        // The wire now carries another ID than the one the ICRC was computed over.
        assertEquals(DecodedPacket.IcrcVerdict.BAD, one(LinkType.ETHERNET, patched).icrc());
        assertEquals(DecodedPacket.IcrcVerdict.OK,
                one(new RoceCaptureDecoder().assumeIpv4Identification(original), LinkType.ETHERNET, patched).icrc());
        assertEquals(DecodedPacket.IcrcVerdict.BAD,
                one(new RoceCaptureDecoder().assumeIpv4Identification(original ^ 1), LinkType.ETHERNET, patched).icrc());
        // The capture itself is not modified by the check.
        assertEquals(patched[14 + 4], (byte) (frame[14 + 4] ^ 0x55));

        // wire-check's case: ICRC over ID 0, wire ID 0x1234.
        RoceCaptureDecoder d = new RoceCaptureDecoder().assumeIpv4Identification(0);
        decode(d, Captures.wireCheck("bad-icrc-ipid-mismatch.pcap"));
        assertTrue(d.allClean(), d.summary());
        // IPv6 has no identification: the option leaves it alone.
        RoceCaptureDecoder v6 = new RoceCaptureDecoder().assumeIpv4Identification(0x7777);
        List<DecodedPacket> extra = decode(v6, Captures.wireCheck("good-extra.pcap"));
        assertEquals(3, v6.badIcrc(), "the three IPv4 packets of good-extra have ID 0, not 0x7777");
        assertTrue(extra.get(3).clean(), extra.get(3).line());
        assertThrows(IllegalArgumentException.class, () -> new RoceCaptureDecoder().assumeIpv4Identification(65536));
    }

    // ------------------------------------------------------------------ encapsulations

    @Test
    void vlanTaggedEthernet() {
        RoceCaptureDecoder d = new RoceCaptureDecoder();
        for (PcapFrame f : Captures.frames(Captures.golden("write_bw_2050.pcap"))) {
            byte[] tagged = Captures.tagVlan(f.data(), 0x8100);
            byte[] qinq = Captures.tagVlan(f.data(), 0x88A8, 0x8100);
            d.decode(new PcapFrame(f.number(), 0, LinkType.ETHERNET, tagged.length, tagged));
            d.decode(new PcapFrame(f.number(), 0, LinkType.ETHERNET, qinq.length, qinq));
        }
        assertEquals(40, d.packets());
        assertTrue(d.allClean(), d.summary());
    }

    @Test
    void ipv6AndCookedAndLoopbackEncapsulations() {
        byte[] v6 = Captures.stripEthernet(Captures.frames(Captures.wireCheck("good-extra.pcap")).get(3).data());
        byte[] v4 = Captures.stripEthernet(Captures.firstRoceFrame(Captures.golden("ud_pingpong_64.pcap")).data());
        for (byte[] ip : List.of(v4, v6)) {
            int family = ip == v6 ? 0x86DD : 0x0800;
            byte[] sll2 = new byte[20 + ip.length];
            sll2[0] = (byte) (family >>> 8);
            sll2[1] = (byte) family;
            System.arraycopy(ip, 0, sll2, 20, ip.length);
            byte[] sll = new byte[16 + ip.length];
            sll[14] = (byte) (family >>> 8);
            sll[15] = (byte) family;
            System.arraycopy(ip, 0, sll, 16, ip.length);
            byte[] loop = new byte[4 + ip.length];
            loop[0] = (byte) (ip == v6 ? 30 : 2);
            System.arraycopy(ip, 0, loop, 4, ip.length);
            int raw = ip == v6 ? LinkType.IPV6 : LinkType.IPV4;
            for (Object[] c : new Object[][] {{LinkType.LINUX_SLL2, sll2}, {LinkType.LINUX_SLL, sll}, {LinkType.NULL, loop}, {raw, ip}}) {
                DecodedPacket p = one((Integer) c[0], (byte[]) c[1]);
                assertTrue(p.clean(), LinkType.name((Integer) c[0]) + ": " + p.line());
            }
        }
    }

    @Test
    void ipv4OptionsAreInsideTheIcrc() {
        DecodedPacket p = one(LinkType.IPV4, Captures.hex(IPV4_WITH_OPTIONS));
        assertEquals("1 10.0.0.1 -> 10.0.0.2 RC_SEND_ONLY qp=0x000012 psn=77 ack=1 payload=4 icrc=ok", p.line());
    }

    @Test
    void extraPort() {
        byte[] frame = Captures.hex(TO_PORT_4792);
        RoceCaptureDecoder plain = new RoceCaptureDecoder();
        assertTrue(plain.decode(new PcapFrame(1, 0, LinkType.RAW, frame.length, frame)).isEmpty());
        assertEquals(0, plain.packets());
        assertEquals(1, plain.frames());
        RoceCaptureDecoder d = new RoceCaptureDecoder().addPort(4792);
        assertEquals("1 127.0.0.2 -> 127.0.0.3 RC_ACKNOWLEDGE qp=0x000011 psn=5 AETH(ACK credits=invalid msn=9) payload=0 icrc=ok",
                one(d, LinkType.RAW, frame).line());
        assertEquals(List.of(4791, 4792), new ArrayList<>(d.ports()));
    }

    @Test
    void snapLengthCutIsShown() {
        byte[] frame = Captures.firstRoceFrame(Captures.golden("rc_pingpong_64.pcap")).data();
        byte[] cut = Arrays.copyOf(frame, 42 + 40);
        DecodedPacket p = one(LinkType.ETHERNET, cut);
        assertTrue(p.datagram().truncated());
        assertTrue(p.line().endsWith("[capture truncated: 40 of " + (frame.length - 42) + " bytes]"), p.line());
    }

    @Test
    void neverThrowsOnDamagedPackets() {
        RoceCaptureDecoder d = new RoceCaptureDecoder();
        Random rnd = new Random(99);
        List<PcapFrame> frames = new ArrayList<>();
        for (Path f : Captures.goldenFiles()) {
            frames.addAll(Captures.frames(f));
        }
        frames.addAll(Captures.frames(Captures.wireCheck("good.pcap")));
        frames.addAll(Captures.frames(Captures.wireCheck("good-extra.pcap")));
        int roce = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] b = frames.get(rnd.nextInt(frames.size())).data().clone();
            int flips = rnd.nextInt(4);
            for (int k = 0; k < flips; k++) {
                int at = 42 + rnd.nextInt(Math.max(1, b.length - 42));
                if (at < b.length) {
                    b[at] = (byte) rnd.nextInt(256);
                }
            }
            if (rnd.nextInt(4) == 0) {
                b = Arrays.copyOf(b, rnd.nextInt(b.length + 1));
            }
            if (rnd.nextInt(8) == 0 && b.length > 40) {
                b[38] = (byte) rnd.nextInt(256);   // UDP length
                b[39] = (byte) rnd.nextInt(256);
            }
            if (d.decode(new PcapFrame(i + 1, 0, LinkType.ETHERNET, b.length, b)).isPresent()) {
                roce++;
            }
        }
        assertEquals(roce, d.packets());
        assertTrue(d.rejected() > 0 && d.badIcrc() > 0);
        long byReason = Arrays.stream(DecodeResult.values()).mapToLong(d::rejected).sum();
        assertEquals(d.rejected(), byReason);
        assertNotNull(d.summary());
    }
}
