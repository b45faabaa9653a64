package io.rnic.core.psn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PsnTest {

    @Test
    void nextWrapsFrom0xFFFFFFTo0ForEveryPsn() {
        for (int psn = 0; psn <= Psn.MASK; psn++) {
            int n = Psn.next(psn);
            if (n != ((psn + 1) & Psn.MASK) || Psn.diff(n, psn) != 1 || !Psn.isAfter(n, psn) || !Psn.isBefore(psn, n)) {
                throw new AssertionError("psn " + psn);
            }
        }
        assertEquals(0, Psn.next(0xFFFFFF));
        assertEquals(0xFFFFFF, Psn.add(0, -1));
        assertEquals(5, Psn.add(0xFFFFFE, 7));
    }

    /** For bases around the wrap and every possible distance d: after iff 1 <= d < 2^23. */
    @Test
    void serialComparisonAcrossTheWrapForEveryDistance() {
        for (int base : new int[] {0xFFFFFF, 0, 0xFFFFF0, 0x7FFFFF}) {
            for (int d = 0; d < Psn.MODULUS; d++) {
                int psn = Psn.add(base, d);
                int expected = d < Psn.WINDOW ? d : d - Psn.MODULUS;
                if (Psn.diff(psn, base) != expected
                        || Psn.isAfter(psn, base) != (d >= 1 && d < Psn.WINDOW)
                        || Psn.isBefore(psn, base) != (d >= Psn.WINDOW)
                        || Integer.signum(Psn.compare(psn, base)) != Integer.signum(expected)
                        || Psn.forward(base, psn) != d) {
                    throw new AssertionError("base " + base + " distance " + d);
                }
            }
        }
    }

    @Test
    void distanceOfExactly2To23CountsAsBeforeInBothDirections() {
        assertTrue(Psn.isBefore(Psn.add(5, Psn.WINDOW), 5));
        assertTrue(Psn.isBefore(5, Psn.add(5, Psn.WINDOW)));
    }

    @Test
    void inWindowAcrossTheWrap() {
        assertTrue(Psn.inWindow(0xFFFFFF, 0xFFFFFE, 3));
        assertTrue(Psn.inWindow(0, 0xFFFFFE, 3));
        assertFalse(Psn.inWindow(1, 0xFFFFFE, 3));
        assertFalse(Psn.inWindow(0xFFFFFD, 0xFFFFFE, 3));
        for (int d = 0; d < 1000; d++) {
            assertEquals(d < 500, Psn.inWindow(Psn.add(0xFFFF00, d), 0xFFFF00, 500));
        }
    }

    @Test
    void applicationPsnsAreCheckedTo24Bits() {
        assertEquals(0xFFFFFF, Psn.require(0xFFFFFF, "sq_psn"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Psn.require(1 << 24, "sq_psn"));
        assertTrue(e.getMessage().contains("sq_psn"));
        assertThrows(IllegalArgumentException.class, () -> Psn.require(-1, "rq_psn"));
    }
}
