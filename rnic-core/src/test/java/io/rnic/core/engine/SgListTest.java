package io.rnic.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.memory.AccessResult;
import io.rnic.core.memory.KeyTable;
import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.memory.ProtectionDomain;
import io.rnic.verbs.AccessFlags;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The scatter/gather list keeps its first entry in fields and the rest in arrays: every walk over
 * the entries must treat the two alike, and a slot reused with a shorter list must not keep the
 * longer one's entries.
 */
class SgListTest {
    private final ProtectionDomain pd = new ProtectionDomain(1);
    private final KeyTable keys = new KeyTable(new SplittableRandom(7));
    private final ByteBuffer memory = ByteBuffer.allocateDirect(4096);
    private final MemoryRegion mr = keys.register(pd, memory, 0, 4096, AccessFlags.LOCAL_WRITE);

    @Test
    void gatherAndScatterCrossFromTheFirstEntryIntoTheOthersInOrder() {
        for (int i = 0; i < 4096; i++) {
            memory.put(i, (byte) i);
        }
        SgList l = new SgList(4);
        l.add(mr.va() + 100, 10, mr.lkey());
        l.add(mr.va() + 1000, 5, mr.lkey());
        l.add(mr.va() + 2000, 20, mr.lkey());
        assertEquals(35, l.totalLength());
        assertEquals(AccessResult.OK, l.resolve(keys, pd, AccessFlags.LOCAL_WRITE));

        ByteBuf out = Unpooled.buffer(35);
        assertTrue(l.gather(8, out, 0, 20), "from the first entry's last two bytes into the third entry");
        byte[] expected = new byte[20];
        for (int i = 0; i < 2; i++) {
            expected[i] = (byte) (108 + i);
        }
        for (int i = 0; i < 5; i++) {
            expected[2 + i] = (byte) (1000 + i);
        }
        for (int i = 0; i < 13; i++) {
            expected[7 + i] = (byte) (2000 + i);
        }
        byte[] got = new byte[20];
        out.getBytes(0, got);
        assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(got));

        ByteBuf in = Unpooled.buffer(35);
        for (int i = 0; i < 35; i++) {
            in.setByte(i, 0x70 + i);
        }
        assertTrue(l.scatter(0, in, 0, 35));
        assertEquals(0x70, memory.get(100), "entry 0");
        assertEquals(0x70 + 10, memory.get(1000), "entry 1 begins after entry 0's ten bytes");
        assertEquals((byte) (0x70 + 15 + 19), memory.get(2019), "entry 2's last byte");
        assertEquals((byte) 2020, memory.get(2020), "nothing past the list");
    }

    @Test
    void aSlotReusedWithFewerEntriesDescribesOnlyTheNewOnes() {
        SgList l = new SgList(3);
        l.add(mr.va(), 100, mr.lkey());
        l.add(mr.va() + 200, 100, mr.lkey());
        l.add(mr.va() + 400, 100, mr.lkey());
        assertEquals(AccessResult.OK, l.resolve(keys, pd, 0));
        l.clear();
        l.add(mr.va() + 3000, 8, mr.lkey());
        assertEquals(1, l.count);
        assertEquals(8, l.totalLength());
        assertEquals(mr.va() + 3000, l.addr(0));
        assertEquals(AccessResult.OK, l.resolve(keys, pd, 0));
        assertTrue(l.putLong(0x1122334455667788L));
        assertEquals(0x1122334455667788L, memory.order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(3000),
                "the one entry now, host order as the region keeps atomics");
    }

    @Test
    void anEntryAfterTheFirstOutsideItsRegionFailsTheWholeListAndNothingIsTouched() {
        SgList l = new SgList(2);
        l.add(mr.va(), 16, mr.lkey());
        l.add(mr.va() + 4090, 16, mr.lkey()); // runs 10 bytes past the region
        assertEquals(AccessResult.OUT_OF_BOUNDS, l.resolve(keys, pd, AccessFlags.LOCAL_WRITE));
    }

    @Test
    void aOneEntryListWorksWithoutArraysOfItsOwn() {
        memory.put(50, (byte) 0x5A);
        SgList l = new SgList(1);
        assertEquals(1, l.maxSge());
        l.add(mr.va() + 50, 1, mr.lkey());
        assertEquals(AccessResult.OK, l.resolve(keys, pd, 0));
        ByteBuf out = Unpooled.buffer(1);
        assertTrue(l.gather(0, out, 0, 1));
        assertEquals(0x5A, out.getByte(0));
    }

    @Test
    void aRegionDeregisteredAfterTheCheckIsNotReadThroughAnyEntry() {
        SgList l = new SgList(2);
        l.add(mr.va(), 8, mr.lkey());
        l.add(mr.va() + 8, 8, mr.lkey());
        assertEquals(AccessResult.OK, l.resolve(keys, pd, 0));
        keys.deregister(mr);
        ByteBuf out = Unpooled.buffer(16);
        assertFalse(l.gather(8, out, 0, 8), "the second entry's copy fails");
        assertFalse(l.gather(0, out, 0, 16), "and the first's");
        assertEquals(0, out.writerIndex());
    }
}
