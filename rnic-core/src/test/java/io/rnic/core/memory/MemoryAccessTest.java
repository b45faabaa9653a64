package io.rnic.core.memory;

import io.rnic.core.Allocations;
import static io.rnic.core.memory.AccessResult.ACCESS_DENIED;
import static io.rnic.core.memory.AccessResult.INVALID_KEY;
import static io.rnic.core.memory.AccessResult.MISALIGNED;
import static io.rnic.core.memory.AccessResult.OK;
import static io.rnic.core.memory.AccessResult.OUT_OF_BOUNDS;
import static io.rnic.core.memory.AccessResult.PD_MISMATCH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.AccessFlags;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MemoryAccessTest {

    private static final long BASE = 0x7f00_0000_0000L;
    private static final int LEN = 4096;

    private final ProtectionDomain pd = new ProtectionDomain(1);
    private final KeyTable keys = new KeyTable(new SplittableRandom(1));
    private final ByteBuffer mem = ByteBuffer.allocate(LEN);
    private final MemoryRegion mr = keys.register(pd, mem, 0, LEN, BASE,
            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);

    private AccessResult check(long va, long length) {
        return MemoryAccess.check(mr, pd, va, length, AccessFlags.REMOTE_READ, 1);
    }

    // ---------------------------------------------------------------- one test per result

    @Test
    void okWhenKeyPdRightsBoundsAndAlignmentAreFine() {
        assertEquals(OK, MemoryAccess.check(mr, pd, BASE + 64, 8, AccessFlags.REMOTE_WRITE, 8));
        assertTrue(OK.isOk());
    }

    @Test
    void invalidKeyForNullOrDeregisteredRegion() {
        assertEquals(INVALID_KEY, MemoryAccess.check(null, pd, BASE, 8, 0, 1));
        keys.deregister(mr);
        assertEquals(INVALID_KEY, MemoryAccess.check(mr, pd, BASE, 8, 0, 1));
        assertFalse(INVALID_KEY.isOk());
    }

    @Test
    void pdMismatchWhenTheQpIsInAnotherPd() {
        assertEquals(PD_MISMATCH, MemoryAccess.check(mr, new ProtectionDomain(2), BASE, 8, 0, 1));
    }

    @Test
    void outOfBoundsPastTheEnd() {
        assertEquals(OUT_OF_BOUNDS, check(BASE + LEN, 1));
    }

    @Test
    void accessDeniedWhenARightIsMissing() {
        assertEquals(ACCESS_DENIED, MemoryAccess.check(mr, pd, BASE, 8, AccessFlags.REMOTE_ATOMIC, 8));
        assertEquals(ACCESS_DENIED,
                MemoryAccess.check(mr, pd, BASE, 8, AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC, 1));
    }

    @Test
    void misalignedAtomicTarget() {
        MemoryRegion atomic = keys.register(pd, mem, 0, LEN, 0x1000, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_ATOMIC);
        assertEquals(MISALIGNED, MemoryAccess.check(atomic, pd, 0x1004, 8, AccessFlags.REMOTE_ATOMIC, 8));
        assertEquals(OK, MemoryAccess.check(atomic, pd, 0x1008, 8, AccessFlags.REMOTE_ATOMIC, 8));
        assertEquals(OK, MemoryAccess.check(atomic, pd, 0x1004, 8, AccessFlags.REMOTE_ATOMIC, 1), "no alignment");
        assertEquals(OK, MemoryAccess.check(atomic, pd, 0x1004, 8, AccessFlags.REMOTE_ATOMIC, 0), "no alignment");
    }

    @Test
    void localReadNeedsNoAccessFlag() {
        MemoryRegion none = keys.register(pd, mem, 0, LEN, 0x1000, 0);
        assertEquals(OK, MemoryAccess.check(none, pd, 0x1000, LEN, 0, 1));
        assertEquals(ACCESS_DENIED, MemoryAccess.check(none, pd, 0x1000, LEN, AccessFlags.LOCAL_WRITE, 1));
    }

    @Test
    void failuresAreReportedInRxeOrder() {
        ProtectionDomain other = new ProtectionDomain(2);
        // Wrong PD, missing right, out of bounds and misaligned all at once: PD first.
        assertEquals(PD_MISMATCH, MemoryAccess.check(mr, other, BASE - 3, 8, AccessFlags.REMOTE_ATOMIC, 8));
        // Missing right before bounds, bounds before alignment.
        assertEquals(ACCESS_DENIED, MemoryAccess.check(mr, pd, BASE - 3, 8, AccessFlags.REMOTE_ATOMIC, 8));
        assertEquals(OUT_OF_BOUNDS, MemoryAccess.check(mr, pd, BASE - 3, 8, AccessFlags.REMOTE_READ, 8));
    }

    // ---------------------------------------------------------------- bounds edges

    @Test
    void lastByteIsInBoundsAndOnePastIsNot() {
        assertEquals(OK, check(BASE + LEN - 1, 1));
        assertEquals(OUT_OF_BOUNDS, check(BASE + LEN - 1, 2));
        assertEquals(OK, check(BASE, LEN));
        assertEquals(OUT_OF_BOUNDS, check(BASE, LEN + 1));
        assertEquals(OUT_OF_BOUNDS, check(BASE - 1, 1));
        assertEquals(OUT_OF_BOUNDS, check(BASE - 1, LEN));
    }

    @Test
    void zeroLengthIsAlwaysInBounds() {
        for (long va : new long[] {BASE, BASE + LEN, BASE - 1, 0, -1, Long.MAX_VALUE, Long.MIN_VALUE}) {
            assertEquals(OK, check(va, 0), "va 0x" + Long.toHexString(va));
        }
    }

    @Test
    void hugeLengthsDoNotOverflowIntoBounds() {
        // va + length would wrap to a small or negative number with naive signed arithmetic.
        assertEquals(OUT_OF_BOUNDS, check(BASE + 8, Long.MAX_VALUE));
        assertEquals(OUT_OF_BOUNDS, check(BASE + 8, -1));
        assertEquals(OUT_OF_BOUNDS, check(BASE + 8, Long.MIN_VALUE));
        assertEquals(OUT_OF_BOUNDS, check(Long.MAX_VALUE, 2));
        assertEquals(OUT_OF_BOUNDS, check(-BASE, BASE + 1));
    }

    @Test
    void regionEndingAtLongMaxValue() {
        long base = Long.MAX_VALUE - LEN + 1;
        MemoryRegion top = keys.register(pd, mem, 0, LEN, base, AccessFlags.REMOTE_READ);
        assertEquals(OK, MemoryAccess.check(top, pd, Long.MAX_VALUE, 1, AccessFlags.REMOTE_READ, 1));
        assertEquals(OK, MemoryAccess.check(top, pd, base, LEN, AccessFlags.REMOTE_READ, 1));
        assertEquals(OUT_OF_BOUNDS, MemoryAccess.check(top, pd, Long.MAX_VALUE, 2, AccessFlags.REMOTE_READ, 1));
        assertEquals(OUT_OF_BOUNDS, MemoryAccess.check(top, pd, Long.MIN_VALUE, 1, AccessFlags.REMOTE_READ, 1));
        assertEquals(OUT_OF_BOUNDS, MemoryAccess.check(top, pd, base + 10, LEN, AccessFlags.REMOTE_READ, 1));
    }

    @Test
    void addressesAreUnsigned64Bit() {
        long base = -LEN; // 0xFFFF_FFFF_FFFF_F000: the last page of the address space
        MemoryRegion top = keys.register(pd, mem, 0, LEN, base, AccessFlags.REMOTE_READ);
        assertEquals(OK, MemoryAccess.check(top, pd, -1, 1, AccessFlags.REMOTE_READ, 1));
        assertEquals(OUT_OF_BOUNDS, MemoryAccess.check(top, pd, -1, 2, AccessFlags.REMOTE_READ, 1));
        assertEquals(OUT_OF_BOUNDS, MemoryAccess.check(top, pd, 0, 1, AccessFlags.REMOTE_READ, 1));
        assertEquals(OUT_OF_BOUNDS, MemoryAccess.check(top, pd, Long.MAX_VALUE, 1, AccessFlags.REMOTE_READ, 1));
        assertEquals(MISALIGNED, MemoryAccess.check(top, pd, -4, 4, AccessFlags.REMOTE_READ, 8));
        assertEquals(OK, MemoryAccess.check(top, pd, -8, 8, AccessFlags.REMOTE_READ, 8));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"OK, -1", "INVALID_KEY, 2", "PD_MISMATCH, 2", "OUT_OF_BOUNDS, 2", "ACCESS_DENIED, 2", "MISALIGNED, 1"})
    void eachResultKnowsItsNakCode(AccessResult r, int nak) {
        assertEquals(nak, r.nakCode());
    }

    @Test
    void checkAllocatesNothing() {
        AccessResult[] sink = new AccessResult[1];
        long bytes = Allocations.bytes(100_000, () -> {
            sink[0] = check(BASE + 8, 64);
            sink[0] = check(BASE - 8, 64);
        });
        assertTrue(bytes < 1024, bytes + " bytes allocated");
    }
}
