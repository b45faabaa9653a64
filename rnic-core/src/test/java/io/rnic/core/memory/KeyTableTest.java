package io.rnic.core.memory;

import io.rnic.core.Allocations;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.AccessFlags;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class KeyTableTest {

    private final ProtectionDomain pd = new ProtectionDomain(1);
    private final ByteBuffer buf = ByteBuffer.allocate(64 * 1024);

    private MemoryRegion register(KeyTable t) {
        return t.register(pd, buf, 0, 4096, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
    }

    @Test
    void keyIsIndexShiftedLeftEightOrKeyByteAndLkeyEqualsRkey() {
        KeyTable t = new KeyTable(new SplittableRandom(1));
        MemoryRegion a = register(t);
        MemoryRegion b = register(t);
        assertEquals(1, a.lkey() >>> 8, "first index is 1");
        assertEquals(2, b.lkey() >>> 8);
        assertEquals(a.lkey(), a.rkey());
        assertEquals(a.lkey() >>> 8, a.index());
        assertSame(a, t.lookup(a.lkey()));
        assertSame(b, t.lookup(b.rkey()));
    }

    @Test
    void keyByteNeverRepeatsAtAnIndexAcrossReRegistrations() {
        KeyTable t = new KeyTable(new SplittableRandom(42));
        Set<Integer> seen = new HashSet<>();
        int previous = -1;
        for (int i = 0; i < 10_000; i++) {
            MemoryRegion mr = register(t);
            assertEquals(1, mr.index(), "the freed index is reused");
            int keyByte = mr.lkey() & 0xFF;
            assertNotEquals(previous, keyByte, "re-registration " + i);
            seen.add(keyByte);
            previous = keyByte;
            t.deregister(mr);
        }
        assertEquals(256, seen.size(), "key bytes are random over all 256 values");
    }

    @Test
    void keyByteDiffersEvenWhenTheGeneratorRepeatsItself() {
        RandomGenerator constant = () -> 0L;
        KeyTable t = new KeyTable(constant);
        int previous = -1;
        for (int i = 0; i < 600; i++) {
            MemoryRegion mr = register(t);
            assertNotEquals(previous, mr.lkey() & 0xFF);
            previous = mr.lkey() & 0xFF;
            t.deregister(mr);
        }
    }

    @Test
    void keyZeroAndIndexZeroAreNeverValid() {
        // A generator whose first key byte is 0: the first region gets key 0x100, never 0.
        KeyTable t = new KeyTable(() -> 0L);
        MemoryRegion mr = register(t);
        assertEquals(0x100, mr.lkey());
        assertNull(t.lookup(0));
        for (int keyByte = 0; keyByte < 256; keyByte++) {
            assertNull(t.lookup(keyByte), "index 0, key byte " + keyByte);
        }
    }

    @Test
    void staleKeyAfterReRegistrationIsRejected() {
        KeyTable t = new KeyTable(new SplittableRandom(7));
        MemoryRegion old = register(t);
        int staleKey = old.lkey();
        t.deregister(old);
        assertNull(t.lookup(staleKey), "deregistered key");
        MemoryRegion fresh = register(t);
        assertEquals(old.index(), fresh.index(), "index reused");
        assertNotEquals(staleKey, fresh.lkey());
        assertNull(t.lookup(staleKey), "old key byte does not reach the new region");
        assertSame(fresh, t.lookup(fresh.lkey()));
        assertFalse(old.isValid());
    }

    @Test
    void freedIndicesAreReusedLowestFirst() {
        KeyTable t = new KeyTable(new SplittableRandom(3));
        MemoryRegion a = register(t);
        MemoryRegion b = register(t);
        MemoryRegion c = register(t);
        t.deregister(b);
        t.deregister(a);
        assertEquals(1, register(t).index());
        assertEquals(2, register(t).index());
        assertEquals(4, register(t).index());
        assertEquals(3, c.index());
        assertEquals(4, t.size());
    }

    @Test
    void lookupWithAnyForeignKeyByteIsNull() {
        KeyTable t = new KeyTable(new SplittableRandom(9));
        MemoryRegion mr = register(t);
        int base = mr.index() << 8;
        for (int keyByte = 0; keyByte < 256; keyByte++) {
            int key = base | keyByte;
            if (key == mr.lkey()) {
                assertSame(mr, t.lookup(key));
            } else {
                assertNull(t.lookup(key), "key 0x" + Integer.toHexString(key));
            }
        }
    }

    @Test
    void lookupOfIndicesNeverRegisteredIsNull() {
        KeyTable t = new KeyTable(new SplittableRandom(9));
        MemoryRegion mr = register(t);
        assertNull(t.lookup(mr.lkey() + 0x100));
        assertNull(t.lookup(0x7FFF_FF01));
        assertNull(t.lookup(-1));
        assertNull(t.lookup(Integer.MIN_VALUE));
    }

    /**
     * Deregistration is not refused because the region is in use (rxe refuses it only while
     * memory windows are bound): it waits for the one copy in progress, if any (a pin is held
     * for one packet's bytes only), and then every later access fails (issue 12, defect 3).
     */
    @Test
    void deregistrationWaitsForTheCopyInProgressThenSucceeds() throws Exception {
        KeyTable t = new KeyTable(new SplittableRandom(5));
        MemoryRegion mr = register(t);
        assertTrue(mr.pin()); // an inline post's copy in progress on another thread
        java.util.concurrent.CompletableFuture<Void> dereg = java.util.concurrent.CompletableFuture.runAsync(() -> t.deregister(mr));
        assertFalse(dereg.isDone(), "it cannot finish while the copy holds the region");
        mr.unpin();
        dereg.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertNull(t.lookup(mr.lkey()));
        assertFalse(mr.isValid());
        assertFalse(mr.pin(), "a deregistered region cannot be pinned: every later access fails");
        assertThrows(IllegalStateException.class, () -> t.deregister(mr), "twice is refused");
    }

    @Test
    void deregisteringTwiceOrInAnotherTableIsRefused() {
        KeyTable t = new KeyTable(new SplittableRandom(5));
        KeyTable other = new KeyTable(new SplittableRandom(5));
        MemoryRegion mr = register(t);
        assertThrows(IllegalStateException.class, () -> other.deregister(mr));
        t.deregister(mr);
        IllegalStateException x = assertThrows(IllegalStateException.class, () -> t.deregister(mr));
        assertTrue(x.getMessage().contains("not registered"), x.getMessage());
    }

    @Test
    void registrationRetainsThePdAndDeregistrationReleasesIt() {
        KeyTable t = new KeyTable(new SplittableRandom(5));
        MemoryRegion mr = register(t);
        assertSame(pd, mr.pd());
        assertEquals(1, pd.useCount());
        t.deregister(mr);
        assertFalse(pd.isInUse());
    }

    @Test
    void tableGrowsAndKeepsEveryRegion() {
        KeyTable t = new KeyTable(new SplittableRandom(11));
        MemoryRegion[] mrs = new MemoryRegion[3000];
        for (int i = 0; i < mrs.length; i++) {
            mrs[i] = register(t);
        }
        for (MemoryRegion mr : mrs) {
            assertSame(mr, t.lookup(mr.lkey()));
        }
        assertEquals(3000, t.size());
    }

    @Test
    void fullTableIsRefusedAndRecoversAfterDeregistration() {
        KeyTable t = new KeyTable(new SplittableRandom(11), 2);
        MemoryRegion a = register(t);
        register(t);
        IllegalStateException x = assertThrows(IllegalStateException.class, () -> register(t));
        assertTrue(x.getMessage().contains("full"), x.getMessage());
        assertEquals(2, pd.useCount(), "a refused registration does not retain the PD");
        t.deregister(a);
        assertEquals(1, register(t).index());
    }

    @Test
    void invalidRegistrationsAreRefusedWithoutTakingAnIndex() {
        KeyTable t = new KeyTable(new SplittableRandom(11));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> t.register(pd, buf, 0, 16, AccessFlags.REMOTE_WRITE));
        assertTrue(x.getMessage().contains("LOCAL_WRITE"), x.getMessage());
        assertThrows(IllegalArgumentException.class, () -> t.register(pd, buf, buf.capacity() - 8, 16, 0));
        assertThrows(IllegalArgumentException.class, () -> t.register(pd, buf, -1, 16, 0));
        assertThrows(IllegalArgumentException.class, () -> t.register(pd, buf, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> t.register(null, buf, 0, 16, 0));
        IllegalArgumentException ro = assertThrows(IllegalArgumentException.class,
                () -> t.register(pd, buf.asReadOnlyBuffer(), 0, 16, AccessFlags.LOCAL_WRITE));
        assertTrue(ro.getMessage().contains("read-only"), ro.getMessage());
        assertThrows(IllegalArgumentException.class, () -> t.register(pd, buf, 0, 16, -8, 0),
                "region wrapping past 2^64");
        assertThrows(IllegalArgumentException.class,
                () -> t.register(pd, buf, 0, 16, 0x1000, AccessFlags.ZERO_BASED));
        assertEquals(0, t.size());
        assertEquals(0, pd.useCount());
        assertEquals(1, register(t).index());
    }

    @Test
    void readOnlyBufferMayBeRegisteredForRemoteRead() {
        KeyTable t = new KeyTable(new SplittableRandom(11));
        MemoryRegion mr = t.register(pd, buf.asReadOnlyBuffer(), 0, 16, AccessFlags.REMOTE_READ);
        assertEquals(AccessFlags.REMOTE_READ, mr.access());
    }

    @Test
    void syntheticAddressesArePageAlignedAndDoNotOverlap() {
        KeyTable t = new KeyTable(new SplittableRandom(1));
        long a = t.allocateAddress(1);
        long b = t.allocateAddress(4096);
        long c = t.allocateAddress(4097);
        long d = t.allocateAddress(10);
        assertEquals(0x7f00_0000_0000L, a);
        assertEquals(a + 4096, b);
        assertEquals(b + 4096, c);
        assertEquals(c + 8192, d);
        for (long va : new long[] {a, b, c, d}) {
            assertEquals(0, va % 4096);
        }
        assertThrows(IllegalArgumentException.class, () -> t.allocateAddress(0));
    }

    @Test
    void registrationWithoutVaUsesSyntheticAddressesOrZeroWhenZeroBased() {
        KeyTable t = new KeyTable(new SplittableRandom(1));
        MemoryRegion a = t.register(pd, buf, 0, 100, 0);
        MemoryRegion b = t.register(pd, buf, 100, 100, 0);
        assertEquals(KeyTable.FIRST_SYNTHETIC_VA, a.va());
        assertEquals(KeyTable.FIRST_SYNTHETIC_VA + 4096, b.va());
        MemoryRegion z = t.register(pd, buf, 0, 100, AccessFlags.ZERO_BASED);
        assertEquals(0, z.va());
        MemoryRegion chosen = t.register(pd, buf, 0, 100, 0x1234_5678L, 0);
        assertEquals(0x1234_5678L, chosen.va());
    }

    @Test
    void lookupAllocatesNothing() {
        KeyTable t = new KeyTable(new SplittableRandom(1));
        MemoryRegion mr = register(t);
        int key = mr.lkey();
        MemoryRegion[] sink = new MemoryRegion[1];
        long bytes = Allocations.bytes(100_000, () -> {
            sink[0] = t.lookup(key);
            sink[0] = t.lookup(key ^ 1);
        });
        assertTrue(bytes < 1024, bytes + " bytes allocated");
    }

    /** A lookup racing with (de)registration returns the region its key names, or null, never another. */
    @Test
    void lookupIsSafeWhileAnotherThreadRegisters() throws Exception {
        KeyTable t = new KeyTable(new SplittableRandom(13));
        int rounds = 20_000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            try {
                for (int i = 0; i < rounds * 4; i++) {
                    int key = (1 + (i % 200)) << 8 | (i & 0xFF);
                    MemoryRegion mr = t.lookup(key);
                    if (mr != null && (mr.lkey() != key || mr.length() != 4096 || mr.pd() != pd)) {
                        throw new AssertionError("lookup(0x" + Integer.toHexString(key) + ") returned " + mr);
                    }
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        reader.start();
        MemoryRegion[] live = new MemoryRegion[200];
        SplittableRandom r = new SplittableRandom(17);
        for (int i = 0; i < rounds; i++) {
            int slot = r.nextInt(live.length);
            if (live[slot] == null) {
                live[slot] = register(t);
            } else {
                t.deregister(live[slot]);
                live[slot] = null;
            }
        }
        reader.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }
}
