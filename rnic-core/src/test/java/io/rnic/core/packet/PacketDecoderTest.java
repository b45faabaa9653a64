package io.rnic.core.packet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** One test per rejection reason, and a property test over a million random and mutated inputs. */
class PacketDecoderTest {
    private final PacketEncoder encoder = new PacketEncoder();
    private final PacketDecoder decoder = new PacketDecoder();
    private final RocePacket view = new RocePacket();

    private ByteBuf packet(String name, int payload) throws Exception {
        PacketFields f = new PacketFields().opcode(OpcodeTable.byName(name)).payload(new byte[payload]);
        ByteBuf buf = Unpooled.buffer();
        encoder.encode(f, PacketCodecTest.flow(), buf, view);
        return buf;
    }

    private DecodeResult decode(ByteBuf buf) throws Exception {
        return decoder.decode(buf, 0, buf.readableBytes(), PacketCodecTest.flow(), view);
    }

    @Test
    void wellFormedPacketDecodes() throws Exception {
        ByteBuf buf = packet("RC_SEND_ONLY", 5);
        assertEquals(DecodeResult.OK, decode(buf));
        assertEquals(5, view.payloadLength());
        assertEquals(12, view.payloadOffset());
    }

    @Test
    void truncatedBthIsRejected() throws Exception {
        assertEquals(DecodeResult.TRUNCATED_BTH, decode(Unpooled.buffer().writeZero(15)));
        assertEquals(DecodeResult.TRUNCATED_BTH, decode(Unpooled.buffer()));
    }

    @Test
    void reservedOpcodeIsRejected() throws Exception {
        ByteBuf buf = packet("RC_ACKNOWLEDGE", 0);
        buf.setByte(0, 0x1F);
        assertEquals(DecodeResult.UNKNOWN_OPCODE, decode(buf));
        buf.setByte(0, 0xFF); // manufacturer-specific, not rnic's 0xE0-0xFD: layout unknown
        assertEquals(DecodeResult.UNKNOWN_OPCODE, decode(buf));
        buf.setByte(0, 0xC0); // reserved
        assertEquals(DecodeResult.UNKNOWN_OPCODE, decode(buf));
    }

    @Test
    void nonZeroTransportVersionIsRejected() throws Exception {
        ByteBuf buf = packet("RC_ACKNOWLEDGE", 0);
        buf.setByte(1, 0x01);
        assertEquals(DecodeResult.TVER_NONZERO, decode(buf));
    }

    @Test
    void truncatedExtensionHeaderIsRejected() throws Exception {
        ByteBuf buf = packet("RC_RDMA_READ_REQUEST", 0);
        assertEquals(DecodeResult.TRUNCATED_HEADER, decoder.decode(buf, 0, 12 + 8 + 4, view), "RETH cut to 8 bytes");
        ByteBuf ud = packet("UD_SEND_ONLY", 0);
        assertEquals(DecodeResult.TRUNCATED_HEADER, decoder.decode(ud, 0, 12 + 4, view), "UD SEND without DETH");
    }

    @Test
    void unalignedLengthIsRejected() throws Exception {
        ByteBuf buf = packet("RC_SEND_ONLY", 8);
        assertEquals(DecodeResult.LENGTH_UNALIGNED, decoder.decode(buf, 0, buf.readableBytes() - 1, view));
    }

    @Test
    void payloadOnOpcodeWithoutPayloadIsRejected() throws Exception {
        ByteBuf buf = packet("RC_ACKNOWLEDGE", 0);
        ByteBuf longer = Unpooled.buffer().writeBytes(buf, 0, 16).writeZero(8).writeBytes(buf, 16, 4);
        assertEquals(DecodeResult.LENGTH_MISMATCH, decode(longer), "ACK with 8 trailing bytes");
        ByteBuf aw = packet("RC_ATOMIC_WRITE", 8);
        ByteBuf shortAw = Unpooled.buffer().writeBytes(aw, 0, 28 + 4).writeBytes(aw, 36, 4);
        assertEquals(DecodeResult.LENGTH_MISMATCH, decode(shortAw), "ATOMIC WRITE carries exactly 8 bytes");
    }

    @Test
    void inconsistentPadCountIsRejected() throws Exception {
        ByteBuf ack = packet("RC_ACKNOWLEDGE", 0);
        ack.setByte(1, 0x30);
        assertEquals(DecodeResult.PADCNT_INCONSISTENT, decode(ack), "PadCnt 3 with no payload");
        ByteBuf first = packet("RC_SEND_FIRST", 256);
        first.setByte(1, 0x10);
        assertEquals(DecodeResult.PADCNT_INCONSISTENT, decode(first), "PadCnt on a FIRST packet");
        ByteBuf small = packet("RC_SEND_ONLY", 0);
        small.setByte(1, 0x20);
        assertEquals(DecodeResult.PADCNT_INCONSISTENT, decode(small), "PadCnt larger than the data");
    }

    @Test
    void icrcMismatchIsRejected() throws Exception {
        ByteBuf buf = packet("RC_SEND_ONLY", 64);
        buf.setByte(20, buf.getByte(20) ^ 0x04);
        assertEquals(DecodeResult.ICRC_MISMATCH, decode(buf));
        assertEquals(DecodeResult.OK, decoder.decode(buf, 0, buf.readableBytes(), view), "structure alone is fine");
    }

    /**
     * Decoding is total: a million inputs (random bytes, and valid packets of every opcode with
     * bits flipped, bytes replaced, cut or extended) never throw; accepted packets are
     * self-consistent; and any single flipped bit outside the masked BTH byte 4 that keeps the
     * structure valid is caught by the ICRC.
     */
    @Test
    void decodingIsTotalOverAMillionRandomAndMutatedInputs() throws Exception {
        Random r = new Random(0x5EED);
        PseudoHeader ph = PacketCodecTest.flow();
        ByteBuf work = Unpooled.buffer(2048);
        byte[] bytes = new byte[2048];
        ByteBuf[] seeds = new ByteBuf[OpcodeTable.all().size()];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = Unpooled.buffer();
            encoder.encode(PacketCodecTest.randomFields(OpcodeTable.all().get(i), r), ph, seeds[i], view);
        }
        Map<DecodeResult, Integer> seen = new EnumMap<>(DecodeResult.class);
        int singleBitFlipsCaught = 0;
        final int inputs = 1_000_000;
        for (int n = 0; n < inputs; n++) {
            int len;
            boolean singleBitFlip = false;
            int flippedByte = -1;
            int mode = r.nextInt(4);
            if (mode == 0) {
                len = r.nextInt(120);
                r.nextBytes(bytes);
                if (r.nextBoolean() && len > 0) {
                    bytes[0] = (byte) OpcodeTable.all().get(r.nextInt(seeds.length)).code();
                }
            } else {
                ByteBuf seed = seeds[r.nextInt(seeds.length)];
                len = seed.readableBytes();
                seed.getBytes(0, bytes, 0, len);
                if (mode == 1) {
                    flippedByte = r.nextInt(len);
                    bytes[flippedByte] ^= (byte) (1 << r.nextInt(8));
                    singleBitFlip = true;
                } else if (mode == 2) {
                    int k = 1 + r.nextInt(4);
                    for (int j = 0; j < k; j++) {
                        bytes[r.nextInt(len)] = (byte) r.nextInt(256);
                    }
                } else {
                    len = r.nextBoolean() ? r.nextInt(len + 1) : Math.min(bytes.length, len + r.nextInt(64));
                }
            }
            work.clear().writeBytes(bytes, 0, len);
            DecodeResult result = decoder.decode(work, 0, len, ph, view);
            seen.merge(result, 1, Integer::sum);
            if (result.ok() || result == DecodeResult.ICRC_MISMATCH) {
                checkConsistent(len);
            }
            if (singleBitFlip && flippedByte != BthFlyweight.ECN_OFFSET && decoder.decode(work, 0, len, view).ok()) {
                assertEquals(DecodeResult.ICRC_MISMATCH, result, "a single flipped bit must fail the ICRC");
                singleBitFlipsCaught++;
            }
        }
        assertEquals(inputs, seen.values().stream().mapToInt(Integer::intValue).sum());
        for (DecodeResult reason : DecodeResult.values()) {
            assertTrue(seen.getOrDefault(reason, 0) > 0, "the fuzzer reached " + reason + ": " + seen);
        }
        assertTrue(singleBitFlipsCaught > 10_000, "single-bit flips checked: " + singleBitFlipsCaught);
    }

    private void checkConsistent(int len) {
        int pad = view.bth().padCount();
        assertEquals(len, view.opcode().headerLength() + view.payloadLength() + pad + Icrc.LENGTH);
        assertTrue(view.payloadLength() >= 0);
        PacketFields.readFrom(view); // touches every header the opcode carries
    }
}
