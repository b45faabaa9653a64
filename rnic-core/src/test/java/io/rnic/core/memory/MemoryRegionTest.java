package io.rnic.core.memory;

import io.rnic.core.Allocations;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rnic.verbs.AccessFlags;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MemoryRegionTest {

    private static final long VA = 0x10_0000L;
    private static final int OFFSET = 24;
    private static final int LENGTH = 200;
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;

    private final ProtectionDomain pd = new ProtectionDomain(1);
    private final KeyTable keys = new KeyTable(new SplittableRandom(1));

    /** Netty buffers of each kind the engine may hand over; each exercises one copy path. */
    static Stream<Arguments> bufKinds() {
        IntFunction<ByteBuf> heap = Unpooled::buffer;
        IntFunction<ByteBuf> direct = Unpooled::directBuffer;
        IntFunction<ByteBuf> pooledHeap = n -> PooledByteBufAllocator.DEFAULT.heapBuffer(n);
        IntFunction<ByteBuf> pooledDirect = n -> PooledByteBufAllocator.DEFAULT.directBuffer(n);
        IntFunction<ByteBuf> composite = n -> {
            CompositeByteBuf c = Unpooled.compositeBuffer();
            int half = n / 2;
            c.addComponent(true, Unpooled.directBuffer(half).writeZero(half));
            c.addComponent(true, Unpooled.buffer(n - half).writeZero(n - half));
            return c;
        };
        return Stream.of(
                Arguments.of("heap ByteBuffer, heap ByteBuf", false, heap),
                Arguments.of("heap ByteBuffer, direct ByteBuf", false, direct),
                Arguments.of("heap ByteBuffer, composite ByteBuf", false, composite),
                Arguments.of("direct ByteBuffer, heap ByteBuf", true, heap),
                Arguments.of("direct ByteBuffer, direct ByteBuf", true, direct),
                Arguments.of("direct ByteBuffer, pooled heap ByteBuf", true, pooledHeap),
                Arguments.of("direct ByteBuffer, pooled direct ByteBuf", true, pooledDirect),
                Arguments.of("direct ByteBuffer, composite ByteBuf", true, composite));
    }

    private static ByteBuffer memory(boolean direct) {
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(256) : ByteBuffer.allocate(256);
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) 0xEE);
        }
        return b;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bufKinds")
    void writeThenReadRoundTripsAtTheRegionOffset(String name, boolean directMemory, IntFunction<ByteBuf> kind) {
        ByteBuffer mem = memory(directMemory);
        MemoryRegion mr = keys.register(pd, mem, OFFSET, LENGTH, VA, ALL);
        ByteBuf src = kind.apply(64);
        src.setIndex(0, 0);
        for (int i = 0; i < 64; i++) {
            src.setByte(i, i + 1);
        }
        int len = 37; // not a multiple of 8: exercises the byte tail of the fallback path
        mr.write(VA + 10, src, 5, len);
        for (int i = 0; i < 256; i++) {
            int rel = i - OFFSET - 10;
            byte want = rel >= 0 && rel < len ? (byte) (rel + 6) : (byte) 0xEE;
            assertEquals(want, mem.get(i), "memory byte " + i);
        }
        ByteBuf dst = kind.apply(64);
        dst.setIndex(0, 0);
        mr.read(VA + 10, dst, 3, len);
        for (int i = 0; i < len; i++) {
            assertEquals((byte) (i + 6), dst.getByte(3 + i), "read byte " + i);
        }
        assertEquals(0, dst.readerIndex());
        assertEquals(0, dst.writerIndex());
        assertEquals(0, src.readerIndex());
        src.release();
        dst.release();
    }

    @Test
    void callersPositionLimitAndOrderAreUntouchedAndTheRegionIgnoresTheLimit() {
        ByteBuffer mem = ByteBuffer.allocateDirect(256);
        mem.position(7).limit(30);
        mem.order(ByteOrder.LITTLE_ENDIAN);
        MemoryRegion mr = keys.register(pd, mem, OFFSET, LENGTH, VA, ALL);
        ByteBuf buf = Unpooled.buffer(LENGTH);
        buf.writeZero(LENGTH);
        buf.setByte(LENGTH - 1, 0x5A);
        mr.write(VA, buf, 0, LENGTH); // reaches index 223, beyond the caller's limit 30
        mr.read(VA, buf, 0, LENGTH);
        mr.fetchAndAdd(VA + LENGTH - 8, 1);
        mr.compareAndSwap(VA, 0, 1);
        mr.putLong(VA + 8, 3);
        mr.getLong(VA + 8);
        assertEquals(7, mem.position());
        assertEquals(30, mem.limit());
        assertEquals(ByteOrder.LITTLE_ENDIAN, mem.order());
        ByteBuffer all = mem.duplicate().clear();
        assertEquals(0x5A, all.get(OFFSET + LENGTH - 1), "last byte written beyond the caller's limit");
        assertEquals(1, all.get(OFFSET + LENGTH - 8), "FAA incremented the low (first, LE) byte");
    }

    @Test
    void regionStartsAtAnAbsoluteOffsetRegardlessOfPosition() {
        ByteBuffer mem = ByteBuffer.allocate(256);
        mem.position(100);
        MemoryRegion mr = keys.register(pd, mem, 4, 8, VA, ALL);
        mr.putLong(VA, -1L);
        assertEquals((byte) 0xFF, mem.get(4));
        assertEquals(0, mem.get(100));
    }

    @Test
    void accessOutsideTheRegionOrTheByteBufThrows() {
        MemoryRegion mr = keys.register(pd, ByteBuffer.allocate(256), OFFSET, LENGTH, VA, ALL);
        ByteBuf buf = Unpooled.buffer(LENGTH + 8);
        assertThrows(IndexOutOfBoundsException.class, () -> mr.read(VA - 1, buf, 0, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> mr.read(VA + LENGTH - 4, buf, 0, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> mr.write(VA, buf, 0, LENGTH + 1));
        assertThrows(IndexOutOfBoundsException.class, () -> mr.write(VA, buf, -1, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> mr.read(VA, buf, LENGTH + 1, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> mr.getLong(VA + LENGTH - 7));
        assertThrows(IndexOutOfBoundsException.class, () -> mr.fetchAndAdd(VA - 8, 1));
        mr.read(VA + LENGTH, buf, 0, 0); // zero length is in bounds anywhere
    }

    @Test
    void atomicsAreLittleEndianAsOnX86() {
        ByteBuffer mem = ByteBuffer.allocate(64);
        MemoryRegion mr = keys.register(pd, mem, 8, 32, VA, ALL);
        mr.putLong(VA, 0x0102030405060708L);
        for (int i = 0; i < 8; i++) {
            assertEquals(8 - i, mem.get(8 + i), "byte " + i);
        }
        mem.put(16, (byte) 0x2A);
        assertEquals(0x2A, mr.getLong(VA + 8));
    }

    @Test
    void compareAndSwapSwapsOnlyOnMatchAndReturnsTheOriginal() {
        MemoryRegion mr = keys.register(pd, ByteBuffer.allocateDirect(64), 0, 64, VA, ALL);
        mr.putLong(VA + 16, 100);
        assertEquals(100, mr.compareAndSwap(VA + 16, 99, 7), "failed compare returns the original");
        assertEquals(100, mr.getLong(VA + 16), "and leaves the value");
        assertEquals(100, mr.compareAndSwap(VA + 16, 100, 7), "successful compare returns the original");
        assertEquals(7, mr.getLong(VA + 16));
    }

    @Test
    void fetchAndAddReturnsTheOriginalAndWrapsModulo2To64() {
        MemoryRegion mr = keys.register(pd, ByteBuffer.allocate(64), 0, 64, VA, ALL);
        mr.putLong(VA, -1L);
        assertEquals(-1L, mr.fetchAndAdd(VA, 2));
        assertEquals(1, mr.getLong(VA));
        mr.putLong(VA, Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, mr.fetchAndAdd(VA, 1));
        assertEquals(Long.MIN_VALUE, mr.getLong(VA));
    }

    @Test
    void concurrentFetchAndAddLosesNoUpdate() throws Exception {
        MemoryRegion mr = keys.register(pd, ByteBuffer.allocate(64), 0, 64, VA, ALL);
        Runnable add = () -> {
            for (int i = 0; i < 50_000; i++) {
                mr.fetchAndAdd(VA, 1);
            }
        };
        Thread other = new Thread(add);
        other.start();
        add.run();
        other.join();
        assertEquals(100_000, mr.getLong(VA));
    }

    @Test
    void accessorsDescribeTheRegistration() {
        MemoryRegion mr = keys.register(pd, ByteBuffer.allocate(64), 0, 64, VA, ALL);
        assertSame(pd, mr.pd());
        assertEquals(VA, mr.va());
        assertEquals(64, mr.length());
        assertEquals(ALL, mr.access());
        assertEquals(0, mr.pinCount());
        assertTrue(mr.toString().contains("0x100000"), mr.toString());
    }

    @Test
    void dataPathAllocatesNothing() {
        MemoryRegion mr = keys.register(pd, ByteBuffer.allocateDirect(4096), 0, 4096, VA, ALL);
        ByteBuf heap = Unpooled.buffer(2048);
        ByteBuf direct = Unpooled.directBuffer(2048);
        long bytes = Allocations.bytes(200_000, () -> {
            mr.write(VA + 8, heap, 0, 1024);
            mr.read(VA + 8, heap, 16, 1024);
            mr.write(VA + 8, direct, 0, 1024);
            mr.read(VA + 8, direct, 16, 1024);
            mr.compareAndSwap(VA, 0, 1);
            mr.fetchAndAdd(VA, 1);
        });
        assertTrue(bytes < 1024, bytes + " bytes allocated");
    }
}
