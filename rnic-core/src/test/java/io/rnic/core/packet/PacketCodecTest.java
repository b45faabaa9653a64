package io.rnic.core.packet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Round trips for every opcode and golden bytes for the layouts of reference §2. */
class PacketCodecTest {
    private final PacketEncoder encoder = new PacketEncoder();
    private final PacketDecoder decoder = new PacketDecoder();
    private final RocePacket view = new RocePacket();

    static Stream<Opcode> everyOpcode() {
        return OpcodeTable.all().stream();
    }

    static PseudoHeader flow() throws Exception {
        return new PseudoHeader().addresses(InetAddress.getByName("127.0.0.2"), InetAddress.getByName("127.0.0.3"))
                .ports(0xC132, PseudoHeader.ROCE_PORT);
    }

    static PacketFields randomFields(Opcode op, Random r) {
        PacketFields f = new PacketFields().opcode(op);
        f.solicited = r.nextBoolean();
        f.migReq = r.nextBoolean();
        f.pkey = r.nextInt(0x10000);
        f.fecn = r.nextBoolean();
        f.becn = r.nextBoolean();
        f.destQp = r.nextInt(1 << 24);
        f.ackReq = r.nextBoolean();
        f.psn = r.nextInt(1 << 24);
        f.rethVa = r.nextLong();
        f.rethRkey = r.nextInt();
        f.rethLength = r.nextInt();
        f.aethSyndrome = r.nextInt(256);
        f.aethMsn = r.nextInt(1 << 24);
        f.atomicVa = r.nextLong();
        f.atomicRkey = r.nextInt();
        f.atomicSwapAdd = r.nextLong();
        f.atomicCompare = r.nextLong();
        f.atomicOriginal = r.nextLong();
        f.immediate = r.nextInt();
        f.invalidateRkey = r.nextInt();
        f.dethQkey = r.nextInt();
        f.dethSrcQp = r.nextInt(1 << 24);
        f.rdethEec = r.nextInt(1 << 24);
        f.xrcSrq = r.nextInt(1 << 24);
        f.fethSelectivity = r.nextInt(4);
        f.fethPlacement = r.nextInt(16);
        int len;
        switch (op.payload()) {
            case NONE -> len = 0;
            case EIGHT_BYTES -> len = 8;
            default -> len = op.position().endsMessage() ? r.nextInt(300) : 4 * (1 + r.nextInt(64));
        }
        byte[] data = new byte[len];
        r.nextBytes(data);
        return f.payload(data);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyOpcode")
    void everyOpcodeRoundTripsThroughBytes(Opcode op) throws Exception {
        Random r = new Random(op.code());
        PseudoHeader ph = flow();
        for (int i = 0; i < 50; i++) {
            PacketFields f = randomFields(op, r);
            ByteBuf buf = Unpooled.buffer();
            buf.writeZero(3); // not at offset 0, to catch absolute-offset mistakes
            int len = encoder.encode(f, ph, buf, view);
            assertEquals(0, len & 3, "packets are 4-byte multiples");
            assertEquals(DecodeResult.OK, decoder.decode(buf, 3, len, ph, view));
            assertEquals(f, PacketFields.readFrom(view));
            assertEquals(PacketEncoder.padCount(f.payload().length), view.bth().padCount());
        }
    }

    @Test
    void rcSendOnlyHelloMatchesReferenceVectorByteForByte() throws Exception {
        PseudoHeader ph = new PseudoHeader()
                .addresses(InetAddress.getByName("192.168.1.10"), InetAddress.getByName("192.168.1.20"))
                .ports(0xC001, 4791);
        PacketFields f = new PacketFields().opcode(OpcodeTable.byName("RC_SEND_ONLY")).payload("hello".getBytes());
        f.destQp = 0x11;
        f.ackReq = true;
        f.psn = 0;
        ByteBuf buf = Unpooled.buffer();
        encoder.encode(f, ph, buf, view);
        assertEquals("0430ffff0000001180000000" + "68656c6c6f000000" + "b2ce3798", ByteBufUtil.hexDump(buf));
    }

    @Test
    void ipv6AckMatchesReferenceVectorByteForByte() throws Exception {
        PseudoHeader ph = new PseudoHeader()
                .addresses(InetAddress.getByName("fe80::1"), InetAddress.getByName("fe80::2"))
                .ports(0xC05A, 4791);
        PacketFields f = new PacketFields().opcode(OpcodeTable.byName("RC_ACKNOWLEDGE"));
        f.destQp = 0x12;
        f.psn = 0x100;
        f.aethSyndrome = AethSyndrome.ack(AethSyndrome.CREDITS_INVALID);
        f.aethMsn = 1;
        ByteBuf buf = Unpooled.buffer();
        encoder.encode(f, ph, buf, view);
        assertEquals("1100ffff0000001200000100" + "1f000001" + "a80766c6", ByteBufUtil.hexDump(buf));
    }

    @Test
    void bthFieldsSitWhereReferenceSection21PutsThem() {
        ByteBuf buf = Unpooled.buffer(12).writeZero(12);
        new BthFlyweight().wrap(buf, 0).opcode(0x0A).solicited(true).migReq(true).padCount(3).tver(0)
                .pkey(0x8001).fecn(true).becn(false).resv6(0).destQp(0xABCDEF).ackReq(true).psn(0x123456);
        // word0 = opcode<<24 | SE<<23 | M<<22 | PadCnt<<20 | TVer<<16 | P_Key
        assertEquals(0x0A000000 | 1 << 23 | 1 << 22 | 3 << 20 | 0x8001, buf.getInt(0));
        assertEquals(0x80000000 | 0xABCDEF, buf.getInt(4));
        assertEquals(0x80000000 | 0x123456, buf.getInt(8));
    }

    @Test
    void extensionHeaderLayoutsMatchReferenceSection2() throws Exception {
        PacketFields f = new PacketFields().opcode(OpcodeTable.byName("RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE")).payload(new byte[] {1, 2, 3});
        f.rethVa = 0x0102030405060708L;
        f.rethRkey = 0x11223344;
        f.rethLength = 3;
        f.immediate = 0xCAFEBABE;
        assertEquals("0102030405060708" + "11223344" + "00000003" + "cafebabe" + "010203" + "00", headerHex(f, 12));

        f = new PacketFields().opcode(OpcodeTable.byName("RC_COMPARE_SWAP"));
        f.atomicVa = 0x1000;
        f.atomicRkey = 0x55;
        f.atomicSwapAdd = 0xAAL;
        f.atomicCompare = 0xBBL;
        assertEquals("0000000000001000" + "00000055" + "00000000000000aa" + "00000000000000bb", headerHex(f, 12));

        f = new PacketFields().opcode(OpcodeTable.byName("RC_ATOMIC_ACKNOWLEDGE"));
        f.aethSyndrome = AethSyndrome.nak(AethSyndrome.NAK_REMOTE_ACCESS_ERROR);
        f.aethMsn = 0x010203;
        f.atomicOriginal = -2;
        assertEquals("62010203" + "fffffffffffffffe", headerHex(f, 12));

        f = new PacketFields().opcode(OpcodeTable.byName("UD_SEND_ONLY_WITH_IMMEDIATE"));
        f.dethQkey = 0x11111111;
        f.dethSrcQp = 0x000123;
        f.immediate = 7;
        assertEquals("11111111" + "00000123" + "00000007", headerHex(f, 12));

        f = new PacketFields().opcode(OpcodeTable.byName("RD_SEND_ONLY"));
        f.rdethEec = 0x0A0B0C;
        f.dethQkey = 1;
        f.dethSrcQp = 2;
        assertEquals("000a0b0c" + "00000001" + "00000002", headerHex(f, 12));

        f = new PacketFields().opcode(OpcodeTable.byName("XRC_FLUSH"));
        f.xrcSrq = 0x77;
        f.fethSelectivity = 1;
        f.fethPlacement = 2;
        f.rethVa = 0;
        f.rethRkey = 9;
        f.rethLength = 64;
        assertEquals("00000077" + "00000012" + "0000000000000000" + "00000009" + "00000040", headerHex(f, 12));

        f = new PacketFields().opcode(OpcodeTable.byName("RC_SEND_ONLY_WITH_INVALIDATE"));
        f.invalidateRkey = 0x00ABCD01;
        assertEquals("00abcd01", headerHex(f, 12));
    }

    @Test
    void encoderRefusesPayloadsTheOpcodeCannotCarry() {
        RocePacket p = new RocePacket();
        ByteBuf buf = Unpooled.buffer();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> encoder.layout(buf, OpcodeTable.byName("RC_ACKNOWLEDGE"), 4, p));
        assertTrue(e.getMessage().contains("RC_ACKNOWLEDGE"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> encoder.layout(buf, OpcodeTable.byName("RC_ATOMIC_WRITE"), 4, p));
        assertThrows(IllegalArgumentException.class, () -> encoder.layout(buf, OpcodeTable.byName("RC_SEND_FIRST"), 5, p));
        assertThrows(IllegalArgumentException.class, () -> encoder.layout(buf, OpcodeTable.byName("RC_SEND_LAST"), -1, p));
        assertEquals(0, buf.writerIndex(), "a refused layout writes nothing");
    }

    @Test
    void aethSyndromeTables() {
        assertEquals("ACK credits=invalid", AethSyndrome.describe(0x1F));
        assertEquals("ACK credits=6", AethSyndrome.describe(0x05));
        assertEquals("RNR_NAK timer=12(0.64ms)", AethSyndrome.describe(0x2C));
        assertEquals("RNR_NAK timer=0(655.36ms)", AethSyndrome.describe(0x20));
        assertEquals("NAK PSN_SEQUENCE_ERROR", AethSyndrome.describe(0x60));
        assertEquals("NAK REMOTE_OPERATIONAL_ERROR", AethSyndrome.describe(0x63));
        assertEquals("NAK RESERVED_9", AethSyndrome.describe(0x69));
        assertEquals(32768, AethSyndrome.creditsOf(0x1E));
        assertEquals(-1, AethSyndrome.creditsOf(0x1F));
        assertEquals(0x07, AethSyndrome.creditCodeFor(15), "largest entry not above 15 is 12");
        assertEquals(0x1E, AethSyndrome.creditCodeFor(1 << 20));
        assertEquals(0, AethSyndrome.creditCodeFor(0));
        assertEquals(61_440, AethSyndrome.rnrDelayMicros(25));
    }

    private String headerHex(PacketFields f, int from) throws Exception {
        ByteBuf buf = Unpooled.buffer();
        int len = encoder.encode(f, flow(), buf, view);
        return ByteBufUtil.hexDump(buf, from, len - from - Icrc.LENGTH);
    }
}
