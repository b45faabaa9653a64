package io.rnic.core.packet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** rnic's SRETH (the selective-retransmission protocol, docs/packets.md): layout and how it is shown. */
class SrethFlyweightTest {
    @Test
    void requestFieldsSitWhereDocsPacketsMdSays() {
        ByteBuf b = Unpooled.buffer(32).writeZero(32);
        SrethFlyweight x = new SrethFlyweight().wrap(b, 0);
        x.psnOffset(3).ssn(7).key(0x1234).length(4096).address(0x1122334455667788L);
        assertEquals(3, b.getInt(0));
        assertEquals(7, b.getInt(4));
        assertEquals(0x1234, b.getInt(8));
        assertEquals(4096, b.getInt(12));
        assertEquals(0x1122334455667788L, b.getLong(16));
        assertEquals(0, b.getLong(24), "reserved");
        assertEquals(" SRETH(off=3 ssn=7 key=0x00001234 len=4096 va=0x1122334455667788)", x.describe(false));
    }

    @Test
    void acknowledgeBitmapListsMissingPsnsLeastSignificantBitFirst() {
        ByteBuf b = Unpooled.buffer(32).writeZero(32);
        SrethFlyweight x = new SrethFlyweight().wrap(b, 0);
        assertEquals(" SRETH(missing=none)", x.describe(true));
        x.markMissing(0).markMissing(4).markMissing(255);
        assertEquals(0x11, b.getUnsignedByte(0), "PSN+0 and PSN+4: bits 0 and 4 of byte 0");
        assertEquals(0x80, b.getUnsignedByte(31), "PSN+255: bit 7 of byte 31");
        assertTrue(x.missing(4));
        assertFalse(x.missing(5));
        assertEquals(" SRETH(missing=+0,+4,+255)", x.describe(true));
    }
}
