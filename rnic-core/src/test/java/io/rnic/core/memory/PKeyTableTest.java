package io.rnic.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PKeyTableTest {

    /** rxe {@code pkey_match}: same non-zero partition, at least one full member. Symmetric. */
    @ParameterizedTest(name = "{0} vs {1} -> {2}")
    @CsvSource({
        "0xFFFF, 0xFFFF, true",
        "0x7FFF, 0xFFFF, true",
        "0x7FFF, 0x7FFF, false",  // neither is a full member
        "0x8000, 0x8000, false",  // partition 0 is invalid
        "0x0000, 0x8000, false",
        "0xFFFF, 0x8001, false",  // different partitions
        "0x8001, 0x0001, true",
        "0x0001, 0x0001, false",
        "0x8123, 0x8123, true",
    })
    void pkeyMatching(String a, String b, boolean match) {
        int x = Integer.decode(a);
        int y = Integer.decode(b);
        assertEquals(match, PKeyTable.matches(x, y));
        assertEquals(match, PKeyTable.matches(y, x));
    }

    @Test
    void defaultTableHasTheSingleEntry0xFFFF() {
        PKeyTable t = new PKeyTable();
        assertEquals(1, t.size());
        assertEquals(0xFFFF, t.get(0));
    }

    @Test
    void indexOutsideTheTableIsNamed() {
        PKeyTable t = new PKeyTable(0xFFFF, 0x8001);
        assertEquals(0x8001, t.get(1));
        for (int bad : new int[] {-1, 2}) {
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> t.get(bad));
            assertTrue(x.getMessage().contains("pkey_index " + bad), x.getMessage());
        }
    }

    @Test
    void entriesMustBe16Bits() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> new PKeyTable(0xFFFF, 0x10000));
        assertTrue(x.getMessage().contains("entry 1"), x.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new PKeyTable(new int[0]));
    }

    @Test
    void tableIsACopyOfTheGivenEntries() {
        int[] keys = {0xFFFF};
        PKeyTable t = new PKeyTable(keys);
        keys[0] = 0x8001;
        assertEquals(0xFFFF, t.get(0));
    }
}
