package io.rnic.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.AccessFlags;
import org.junit.jupiter.api.Test;

class AccessFlagsTest {

    @Test
    void valuesAreIbvAccessFlags() {
        assertEquals(0x1, AccessFlags.LOCAL_WRITE);
        assertEquals(0x2, AccessFlags.REMOTE_WRITE);
        assertEquals(0x4, AccessFlags.REMOTE_READ);
        assertEquals(0x8, AccessFlags.REMOTE_ATOMIC);
        assertEquals(0x10, AccessFlags.MW_BIND);
        assertEquals(0x20, AccessFlags.ZERO_BASED);
        assertEquals(0x100, AccessFlags.FLUSH_GLOBAL);
        assertEquals(0x200, AccessFlags.FLUSH_PERSISTENT);
        assertEquals(0x33F, AccessFlags.ALL);
    }

    @Test
    void remoteWriteOrAtomicWithoutLocalWriteIsInvalidAsInIbvRegMr() {
        for (int flag : new int[] {AccessFlags.REMOTE_WRITE, AccessFlags.REMOTE_ATOMIC}) {
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                    () -> AccessFlags.validate(flag | AccessFlags.REMOTE_READ));
            assertTrue(x.getMessage().contains("requires LOCAL_WRITE"), x.getMessage());
            assertTrue(x.getMessage().contains(AccessFlags.describe(flag)), x.getMessage());
            assertEquals(flag | AccessFlags.LOCAL_WRITE, AccessFlags.validate(flag | AccessFlags.LOCAL_WRITE));
        }
    }

    @Test
    void readOnlyAndEmptyFlagsAreValid() {
        assertEquals(0, AccessFlags.validate(0));
        assertEquals(AccessFlags.REMOTE_READ, AccessFlags.validate(AccessFlags.REMOTE_READ));
        assertEquals(AccessFlags.ALL, AccessFlags.validate(AccessFlags.ALL));
    }

    @Test
    void unknownBitsAreNamed() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> AccessFlags.validate(AccessFlags.LOCAL_WRITE | 0x40)); // ON_DEMAND
        assertTrue(x.getMessage().contains("unknown bits 0x40"), x.getMessage());
    }

    @Test
    void describeNamesEveryBit() {
        assertEquals("LOCAL_WRITE|REMOTE_READ", AccessFlags.describe(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ));
        assertEquals("NONE", AccessFlags.describe(0));
        assertEquals("LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC|MW_BIND|ZERO_BASED|FLUSH_GLOBAL|FLUSH_PERSISTENT",
                AccessFlags.describe(AccessFlags.ALL));
        assertEquals("MW_BIND|0x40", AccessFlags.describe(AccessFlags.MW_BIND | 0x40));
    }

    @Test
    void allowsNeedsEveryRequiredBit() {
        int flags = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ;
        assertTrue(AccessFlags.allows(flags, 0));
        assertTrue(AccessFlags.allows(flags, AccessFlags.REMOTE_READ));
        assertFalse(AccessFlags.allows(flags, AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE));
    }
}
