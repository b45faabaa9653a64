package io.rnic.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The packet free list, with the buffers of a JVM where Netty has Unsafe and with those of one
 * where it has not (Java 24 and later by default): both kinds must recycle, or every packet and
 * every socket read allocates.
 */
class PacketBuffersTest {
    private static final int CAPACITY = 256;

    /** A list of the kind asked for; the Unsafe kind only where Netty has Unsafe (not on Java 24+ by default). */
    private static PacketBuffers list(boolean unsafe, int maxFree) {
        assumeTrue(!unsafe || io.netty.util.internal.PlatformDependent.hasUnsafe(), "Netty has no Unsafe on this JVM");
        return new PacketBuffers(CAPACITY, maxFree, unsafe);
    }

    @ParameterizedTest(name = "unsafe={0}")
    @ValueSource(booleans = {true, false})
    void aReleasedBufferIsTheNextOneTaken(boolean unsafe) {
        PacketBuffers list = list(unsafe, 4);
        ByteBuf a = list.directBuffer(100);
        a.writeInt(0x12345678);
        a.release();
        assertEquals(1, list.freeBuffers());
        ByteBuf b = list.directBuffer(64);
        assertSame(a, b);
        assertEquals(0, b.readableBytes(), "a recycled buffer starts empty");
        assertEquals(1, b.refCnt());
        assertEquals(0, list.freeBuffers());
        b.release();
    }

    @ParameterizedTest(name = "unsafe={0}")
    @ValueSource(booleans = {true, false})
    void onlyTheLastReleaseRecyclesAndASecondLastReleaseIsRefused(boolean unsafe) {
        PacketBuffers list = list(unsafe, 4);
        ByteBuf a = list.directBuffer(100);
        a.retain(2);
        assertFalse(a.release());
        assertFalse(a.release(1));
        assertEquals(0, list.freeBuffers(), "one reference is still held");
        assertTrue(a.release());
        assertEquals(1, list.freeBuffers());
        // Released by its holder, then again by mistake: refused, and the list keeps one copy.
        ByteBuf b = list.directBuffer(100);
        assertTrue(b.release());
        assertThrows(IllegalReferenceCountException.class, b::release);
        assertEquals(1, list.freeBuffers());
    }

    @ParameterizedTest(name = "unsafe={0}")
    @ValueSource(booleans = {true, false})
    void aBufferReleasedOnAnotherThreadReachesTheOwnerThroughTheSharedList(boolean unsafe) throws Exception {
        PacketBuffers list = list(unsafe, 4);
        ByteBuf a = list.directBuffer(100); // the first to take one: this thread owns the list
        Thread releaser = new Thread(a::release);
        releaser.start();
        releaser.join();
        assertEquals(1, list.freeBuffers());
        assertSame(a, list.directBuffer(100), "the owner takes from the shared list when its own is empty");
        a.release(); // onto the owner's own list
        ByteBuf[] taken = new ByteBuf[1];
        Thread other = new Thread(() -> taken[0] = list.directBuffer(100));
        other.start();
        other.join();
        assertNotSame(a, taken[0], "no other thread takes from the owner's list");
        assertSame(a, list.directBuffer(100));
        a.release();
        taken[0].release();
        assertEquals(2, list.freeBuffers());
    }

    @ParameterizedTest(name = "unsafe={0}")
    @ValueSource(booleans = {true, false})
    void buffersPassedBetweenThreadsAreNeverHandedOutTwice(boolean unsafe) throws Exception {
        PacketBuffers list = list(unsafe, 8);
        list.directBuffer(100).release(); // this thread owns the list
        java.util.concurrent.BlockingQueue<ByteBuf> toOther = new java.util.concurrent.ArrayBlockingQueue<>(16);
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        int rounds = 20_000;
        // The other thread takes its own buffers and releases the owner's: both lists are in use.
        Thread other = new Thread(() -> {
            try {
                for (int i = 0; i < rounds; i++) {
                    ByteBuf mine = list.directBuffer(100);
                    mine.writeInt(-i);
                    ByteBuf theirs = toOther.poll(10, java.util.concurrent.TimeUnit.SECONDS);
                    assertEquals(i, theirs.getInt(0), "a buffer in use was handed out again");
                    theirs.release();
                    assertEquals(-i, mine.getInt(0), "a buffer in use was handed out again");
                    mine.release();
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        other.start();
        for (int i = 0; i < rounds; i++) {
            ByteBuf b = list.directBuffer(100);
            assertEquals(1, b.refCnt());
            b.writeInt(i);
            if (!toOther.offer(b, 10, java.util.concurrent.TimeUnit.SECONDS)) {
                break; // the other thread stopped: its failure says why
            }
        }
        other.join();
        assertNull(failure.get());
    }

    @ParameterizedTest(name = "unsafe={0}")
    @ValueSource(booleans = {true, false})
    void aBufferBeyondTheListsRoomIsFreed(boolean unsafe) {
        PacketBuffers list = list(unsafe, 1);
        ByteBuf kept = list.directBuffer(CAPACITY);
        ByteBuf extra = list.directBuffer(CAPACITY);
        kept.release();
        extra.release();
        assertEquals(1, list.freeBuffers());
        // Freed, not recycled: released for good, as Netty's own buffers are.
        assertEquals(0, extra.refCnt());
        assertThrows(IllegalReferenceCountException.class, () -> extra.getByte(0));
        assertEquals(0, kept.refCnt(), "the kept one stays released until it is taken again");
        assertSame(kept, list.directBuffer(CAPACITY));
        assertEquals(1, kept.refCnt());
    }

    @ParameterizedTest(name = "unsafe={0}")
    @ValueSource(booleans = {true, false})
    void aRequestLargerThanTheListsBuffersIsNotTakenBack(boolean unsafe) {
        PacketBuffers list = list(unsafe, 4);
        ByteBuf train = list.directBuffer(CAPACITY + 1);
        assertTrue(train.capacity() > CAPACITY);
        train.release();
        assertEquals(0, list.freeBuffers());
    }

    @ParameterizedTest(name = "unsafe={0}")
    @ValueSource(booleans = {true, false})
    void aBuffersAddressIsItsMemorysAndStaysSoAcrossReuse(boolean unsafe) {
        PacketBuffers list = list(unsafe, 4);
        ByteBuf a = list.directBuffer(CAPACITY);
        if (!a.hasMemoryAddress()) {
            // Unsafe, or Java 22+'s MemorySegment, gives an address; a Java 17 without Unsafe has none, and says so.
            assertThrows(UnsupportedOperationException.class, a::memoryAddress);
            a.release();
            return;
        }
        long address = a.memoryAddress();
        a.setInt(8, 0xCAFEBABE);
        assertEquals(0xCAFEBABE, a.nioBuffer(0, CAPACITY).getInt(8), "the address and the buffer name one memory");
        a.release();
        ByteBuf b = list.directBuffer(CAPACITY);
        assertSame(a, b);
        assertEquals(address, b.memoryAddress());
        b.release();
    }

    @ParameterizedTest(name = "unsafe={0}")
    @ValueSource(booleans = {true, false})
    void aBufferThatGrowsReportsItsNewMemory(boolean unsafe) {
        PacketBuffers list = list(unsafe, 4);
        ByteBuf a = list.directBuffer(CAPACITY, CAPACITY * 4);
        boolean addressed = a.hasMemoryAddress();
        long before = addressed ? a.memoryAddress() : 0;
        a.writerIndex(CAPACITY);
        a.writeInt(0x0BADF00D); // past the capacity: the buffer moves to new memory
        assertTrue(a.capacity() > CAPACITY);
        assertEquals(0x0BADF00D, a.nioBuffer(0, a.capacity()).getInt(CAPACITY));
        if (addressed) {
            long after = a.memoryAddress();
            assertTrue(after != before, "the address of the new memory, not the old");
            if (io.netty.util.internal.PlatformDependent.hasUnsafe()) {
                assertEquals(0x0BADF00D, a.getInt(CAPACITY));
                int nativeOrder = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN
                        ? a.getIntLE(CAPACITY) : a.getInt(CAPACITY);
                assertEquals(nativeOrder, io.netty.util.internal.PlatformDependent.getInt(after + CAPACITY),
                        "the address reads the new memory");
            }
        }
        a.release();
        assertEquals(0, list.freeBuffers(), "a grown buffer is not the list's size any more");
    }

    @ParameterizedTest(name = "unsafe={0}")
    @ValueSource(booleans = {true, false})
    void distinctLiveBuffersAreDistinct(boolean unsafe) {
        PacketBuffers list = list(unsafe, 4);
        ByteBuf a = list.directBuffer(CAPACITY);
        ByteBuf b = list.directBuffer(CAPACITY);
        assertNotSame(a, b);
        a.setLong(0, 1L);
        b.setLong(0, 2L);
        assertEquals(1L, a.getLong(0), "two buffers, two memories");
        a.release();
        b.release();
        assertEquals(2, list.freeBuffers());
    }
}
