package io.rnic.core.cc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The notification point sends at most one CNP per N per flow, however many CE marks arrive. */
class CnpLimiterTest {
    static final long US = 1_000;

    @Test
    void atMostOneCnpPerIntervalHoweverManyMarksArrive() {
        CnpLimiter np = new CnpLimiter(CnpLimiter.DEFAULT_INTERVAL_NANOS);
        assertEquals(50 * US, np.intervalNanos(), "N = 50 µs");
        assertTrue(np.onCeMarked(7 * US), "the first mark is answered at once");
        assertFalse(np.onCeMarked(7 * US), "a second mark at the same instant is not");
        assertFalse(np.onCeMarked(30 * US));
        assertFalse(np.onCeMarked(57 * US - 1), "1 ns short of N after the CNP");
        assertTrue(np.onCeMarked(57 * US), "N after the CNP");
        assertTrue(np.onCeMarked(500 * US), "after a quiet stretch, at once again");
        assertEquals(3, np.sent());
        assertEquals(3, np.suppressed(), "the absorbed marks are counted");
    }

    @Test
    void aFloodOfMarksMakesOneCnpPerInterval() {
        CnpLimiter np = new CnpLimiter(50 * US);
        for (long t = 0; t < 1_000 * US; t += 100) {    // a marked packet every 100 ns for 1 ms
            np.onCeMarked(t);
        }
        assertEquals(20, np.sent(), "1 ms / 50 µs");
        assertEquals(10_000 - 20, np.suppressed());
    }

    @Test
    void intervalZeroAnswersEveryMarkAsHpccDoes() {
        CnpLimiter np = new CnpLimiter(0);
        assertTrue(np.onCeMarked(0));
        assertTrue(np.onCeMarked(0));
        assertEquals(2, np.sent());
        assertEquals(0, np.suppressed());
    }

    @Test
    void aNegativeIntervalAndTimeGoingBackwardsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new CnpLimiter(-1));
        CnpLimiter np = new CnpLimiter(50 * US);
        np.onCeMarked(10);
        assertThrows(IllegalArgumentException.class, () -> np.onCeMarked(9));
    }
}
