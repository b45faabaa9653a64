package io.rnic.core.packet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OpcodeTableTest {

    @Test
    void tableHoldsEveryOpcodeOfEveryTransport() {
        // RC 25, UC 12, RD 24, UD 2, XRC 25, CNP 1 (reference §1.2, §1.7); rnic's SR: RC's 25 again
        assertEquals(114, OpcodeTable.all().size());
        assertEquals(25, count(Transport.SR));
        assertEquals(25, count(Transport.RC));
        assertEquals(12, count(Transport.UC));
        assertEquals(24, count(Transport.RD));
        assertEquals(2, count(Transport.UD));
        assertEquals(25, count(Transport.XRC));
        assertEquals(1, count(Transport.CNP));
    }

    @Test
    void reservedAndManufacturerOpcodesHaveNoRow() {
        // 0xE0-0xFD: rnic's selective-retransmission RC (docs/packets.md); the rest of 0xE0-0xFF has none
        for (int code : new int[] {0x15, 0x18, 0x1B, 0x1E, 0x1F, 0x2C, 0x36, 0x56, 0x60, 0x63, 0x66, 0x80, 0x82, 0xB5, 0xC0, 0xDF, 0xF8, 0xFE, 0xFF}) {
            assertNull(OpcodeTable.lookup(code), String.format("0x%02x", code));
        }
        assertThrows(IllegalArgumentException.class, () -> OpcodeTable.of(0x15));
        assertThrows(IllegalArgumentException.class, () -> OpcodeTable.of(256));
    }

    @ParameterizedTest(name = "{0} = 0x{1}")
    @CsvSource({
        "RC_SEND_FIRST, 00", "RC_SEND_ONLY_WITH_IMMEDIATE, 05", "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0b",
        "RC_RDMA_READ_REQUEST, 0c", "RC_RDMA_READ_RESPONSE_FIRST, 0d", "RC_ACKNOWLEDGE, 11",
        "RC_ATOMIC_ACKNOWLEDGE, 12", "RC_COMPARE_SWAP, 13", "RC_FETCH_ADD, 14",
        "RC_SEND_LAST_WITH_INVALIDATE, 16", "RC_SEND_ONLY_WITH_INVALIDATE, 17", "RC_FLUSH, 1c", "RC_ATOMIC_WRITE, 1d",
        "UC_SEND_ONLY, 24", "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 2b", "RD_RESYNC, 55", "RD_FLUSH, 5c",
        "RD_ATOMIC_WRITE, 5d", "UD_SEND_ONLY, 64", "UD_SEND_ONLY_WITH_IMMEDIATE, 65", "CNP, 81",
        "XRC_SEND_FIRST, a0", "XRC_RDMA_READ_REQUEST, ac", "XRC_ACKNOWLEDGE, b1", "XRC_FETCH_ADD, b4",
        "XRC_SEND_ONLY_WITH_INVALIDATE, b7", "XRC_FLUSH, bc", "XRC_ATOMIC_WRITE, bd",
    })
    void namesMatchTheReference(String name, String hex) {
        Opcode row = OpcodeTable.of(Integer.parseInt(hex, 16));
        assertEquals(name, row.name());
        assertSame(row, OpcodeTable.byName(name));
    }

    /** Reference §1.6: payload (or end-of-header) offsets per transport. */
    @ParameterizedTest(name = "{0} payload at {1}")
    @CsvSource({
        "RC_SEND_ONLY, 12", "UC_SEND_ONLY, 12", "XRC_SEND_ONLY, 16", "RD_SEND_ONLY, 24", "UD_SEND_ONLY, 20",
        "RC_SEND_ONLY_WITH_IMMEDIATE, 16", "RC_SEND_ONLY_WITH_INVALIDATE, 16", "XRC_SEND_ONLY_WITH_IMMEDIATE, 20",
        "RD_SEND_ONLY_WITH_IMMEDIATE, 28", "UD_SEND_ONLY_WITH_IMMEDIATE, 24",
        "RC_RDMA_WRITE_FIRST, 28", "RC_RDMA_WRITE_ONLY, 28", "XRC_RDMA_WRITE_ONLY, 32", "RD_RDMA_WRITE_FIRST, 40",
        "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 32", "XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 36", "RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 44",
        "RC_RDMA_READ_RESPONSE_FIRST, 16", "XRC_RDMA_READ_RESPONSE_LAST, 16", "RD_RDMA_READ_RESPONSE_ONLY, 20",
        "RC_ACKNOWLEDGE, 16", "RD_ACKNOWLEDGE, 20",
        "RC_RDMA_READ_RESPONSE_MIDDLE, 12", "XRC_RDMA_READ_RESPONSE_MIDDLE, 12", "RD_RDMA_READ_RESPONSE_MIDDLE, 16",
        "RC_ATOMIC_ACKNOWLEDGE, 24", "XRC_ATOMIC_ACKNOWLEDGE, 24", "RD_ATOMIC_ACKNOWLEDGE, 28",
        "RC_COMPARE_SWAP, 40", "XRC_FETCH_ADD, 44", "RD_COMPARE_SWAP, 52",
        "RC_RDMA_READ_REQUEST, 28", "RC_FLUSH, 32", "RC_ATOMIC_WRITE, 28", "RD_RESYNC, 24", "CNP, 28",
    })
    void headerLengthsMatchQuickOffsets(String name, int payloadOffset) {
        assertEquals(payloadOffset, OpcodeTable.byName(name).headerLength());
    }

    @Test
    void headerOrderFollowsTheEncoderRules() {
        // RETH before ImmDt; AETH before AtomicAckETH; RDETH, DETH first on RD; FETH before RETH; DETH before ImmDt.
        assertEquals(List.of(Header.RETH, Header.IMMDT), OpcodeTable.byName("RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE").headers());
        assertEquals(List.of(Header.AETH, Header.ATOMIC_ACK_ETH), OpcodeTable.byName("RC_ATOMIC_ACKNOWLEDGE").headers());
        assertEquals(List.of(Header.RDETH, Header.DETH, Header.ATOMIC_ETH), OpcodeTable.byName("RD_FETCH_ADD").headers());
        assertEquals(List.of(Header.RDETH, Header.AETH, Header.ATOMIC_ACK_ETH), OpcodeTable.byName("RD_ATOMIC_ACKNOWLEDGE").headers());
        assertEquals(List.of(Header.FETH, Header.RETH), OpcodeTable.byName("RC_FLUSH").headers());
        assertEquals(List.of(Header.XRCETH, Header.FETH, Header.RETH), OpcodeTable.byName("XRC_FLUSH").headers());
        assertEquals(List.of(Header.DETH, Header.IMMDT), OpcodeTable.byName("UD_SEND_ONLY_WITH_IMMEDIATE").headers());
        assertEquals(List.of(Header.XRCETH, Header.RETH, Header.IMMDT), OpcodeTable.byName("XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE").headers());
        assertEquals(List.of(), OpcodeTable.byName("XRC_RDMA_READ_RESPONSE_MIDDLE").headers(), "XRC responses carry no XRCETH");
    }

    @Test
    void offsetsAreConsecutiveAfterTheBth() {
        for (Opcode op : OpcodeTable.all()) {
            int off = BthFlyweight.LENGTH;
            for (Header h : op.headers()) {
                assertEquals(off, op.offsetOf(h), op + " " + h);
                off += h.length();
            }
            assertEquals(off, op.headerLength(), op.name());
        }
    }

    @Test
    void payloadAndPositionColumns() {
        assertEquals(PayloadRule.NONE, OpcodeTable.byName("RC_RDMA_READ_REQUEST").payload());
        assertEquals(PayloadRule.NONE, OpcodeTable.byName("RC_ACKNOWLEDGE").payload());
        assertEquals(PayloadRule.EIGHT_BYTES, OpcodeTable.byName("RC_ATOMIC_WRITE").payload());
        assertEquals(PayloadRule.DATA, OpcodeTable.byName("RC_RDMA_READ_RESPONSE_MIDDLE").payload());
        assertTrue(OpcodeTable.byName("RC_SEND_LAST_WITH_IMMEDIATE").hasImmediate());
        assertTrue(OpcodeTable.byName("XRC_SEND_ONLY_WITH_INVALIDATE").hasInvalidate());
        assertEquals(Position.MIDDLE, OpcodeTable.byName("UC_RDMA_WRITE_MIDDLE").position());
        assertTrue(OpcodeTable.byName("RD_RDMA_READ_RESPONSE_LAST").isResponse());
    }

    @Test
    void findPicksTheOpcodeOfEachPacketOfAMessage() {
        assertEquals("RC_SEND_FIRST", OpcodeTable.find(Transport.RC, Operation.SEND, Position.FIRST, false, false).name());
        assertEquals("UC_SEND_LAST_WITH_IMMEDIATE", OpcodeTable.find(Transport.UC, Operation.SEND, Position.LAST, true, false).name());
        assertEquals("XRC_SEND_ONLY_WITH_INVALIDATE", OpcodeTable.find(Transport.XRC, Operation.SEND, Position.ONLY, false, true).name());
        assertEquals("RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", OpcodeTable.find(Transport.RC, Operation.RDMA_WRITE, Position.ONLY, true, false).name());
        assertNotNull(OpcodeTable.find(Transport.RD, Operation.RDMA_READ_RESPONSE, Position.MIDDLE, false, false));
        assertNull(OpcodeTable.find(Transport.UD, Operation.RDMA_WRITE, Position.ONLY, false, false));
        assertNull(OpcodeTable.find(Transport.UC, Operation.SEND, Position.ONLY, false, true), "UC has no SEND with Invalidate");
    }

    private static long count(Transport t) {
        return OpcodeTable.all().stream().filter(o -> o.transport() == t).count();
    }
}
