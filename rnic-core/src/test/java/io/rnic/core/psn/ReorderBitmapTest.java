package io.rnic.core.psn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReorderBitmapTest {

    @Test
    void outOfOrderPacketsAreHeldUntilTheHoleFillsThenConsumedInOneRun() {
        ReorderBitmap b = new ReorderBitmap(64);
        b.reset(100);
        assertEquals(ReorderBitmap.Mark.NEW, b.mark(102));
        assertEquals(ReorderBitmap.Mark.NEW, b.mark(101));
        assertEquals(0, b.advance(), "PSN 100 is missing");
        assertEquals(100, b.nextMissing(100));
        assertEquals(103, b.nextMissing(101));
        assertEquals(102, b.highestMarked());
        assertEquals(ReorderBitmap.Mark.NEW, b.mark(100));
        assertEquals(3, b.advance());
        assertEquals(103, b.base());
        assertEquals(0, b.marked());
    }

    @Test
    void duplicatesAndPacketsBeyondTheWindowAreReported() {
        ReorderBitmap b = new ReorderBitmap(64);
        b.reset(0);
        assertEquals(ReorderBitmap.Mark.NEW, b.mark(63));
        assertEquals(ReorderBitmap.Mark.DUPLICATE, b.mark(63));
        assertEquals(ReorderBitmap.Mark.OUT_OF_RANGE, b.mark(64));
        assertEquals(ReorderBitmap.Mark.DUPLICATE, b.mark(0xFFFFFF), "before the window: already consumed");
        assertFalse(b.isMarked(64));
    }

    @Test
    void runsCrossWordBoundariesAndThePsnWrap() {
        ReorderBitmap b = new ReorderBitmap(256);
        b.reset(0xFFFFF0);
        for (int d = 1; d < 200; d++) {
            assertEquals(ReorderBitmap.Mark.NEW, b.mark(Psn.add(0xFFFFF0, d)));
        }
        assertEquals(0, b.advance());
        b.mark(0xFFFFF0);
        assertEquals(200, b.advance());
        assertEquals(Psn.add(0xFFFFF0, 200), b.base());
        assertEquals(-1, b.highestMarked());
    }

    @Test
    void matchesASetBasedModelUnderRandomArrivals() {
        // Short runs: arrivals a few PSNs around the window, frequent advances.
        checkAgainstModel(128, 140, 4, 42);
    }

    @Test
    void matchesTheModelWithLongRunsThatWrapTheArray() {
        // Long runs: arrivals spread over the whole window, rare advances, so runs are long and
        // cross the end of the slot array.
        checkAgainstModel(1024, 1100, 300, 7);
    }

    private static void checkAgainstModel(int capacity, int spread, int advanceEvery, long seed) {
        Random r = new Random(seed);
        ReorderBitmap b = new ReorderBitmap(capacity);
        int start = 0xFFFF00;
        b.reset(start);
        Set<Integer> model = new HashSet<>();
        int base = start;
        for (int i = 0; i < 200_000; i++) {
            if (i % 50_000 == 49_999) {
                // A reset mid-stream starts a clean window anywhere, the wrap included.
                base = Psn.add(0xFFFFFF, -r.nextInt(3 * capacity));
                b.reset(base);
                model.clear();
                assertEquals(0, b.marked());
            }
            int psn = Psn.add(base, r.nextInt(spread) - 6);
            ReorderBitmap.Mark m = b.mark(psn);
            int d = Psn.diff(psn, base);
            ReorderBitmap.Mark expected = d < 0 || model.contains(psn) ? ReorderBitmap.Mark.DUPLICATE
                    : d >= capacity ? ReorderBitmap.Mark.OUT_OF_RANGE : ReorderBitmap.Mark.NEW;
            assertEquals(expected, m, "psn " + psn + " base " + base);
            if (m == ReorderBitmap.Mark.NEW) {
                model.add(psn);
            }
            if (r.nextInt(advanceEvery) == 0) {
                int run = 0;
                while (model.remove(base)) {
                    base = Psn.next(base);
                    run++;
                }
                assertEquals(run, b.advance());
                assertEquals(base, b.base());
                assertEquals(model.size(), b.marked());
                if (!model.isEmpty()) {
                    assertEquals(base, b.nextMissing(base));
                }
            }
        }
    }

    /**
     * A slot remembers only the lap of the PSN it expects, so every PSN that shares the slot
     * must still be told apart: across all 2^24 PSNs, only the window's own are NEW.
     */
    @Test
    void everyPsnOutsideTheWindowIsClassifiedExactly() {
        ReorderBitmap b = new ReorderBitmap(64);
        b.reset(0xFFFFA0);
        // Move the window across the PSN wrap, three PSNs at a time arriving in reverse, so
        // the slots hold laps on both sides of the wrap.
        for (int k = 0; k < 150; k += 3) {
            b.mark(Psn.add(0xFFFFA0, k + 2));
            b.mark(Psn.add(0xFFFFA0, k + 1));
            assertEquals(0, b.advance());
            b.mark(Psn.add(0xFFFFA0, k));
            assertEquals(3, b.advance());
        }
        // Then single-PSN advances, which take the in-order path.
        for (int k = 0; k < 40; k++) {
            assertEquals(1, b.arrive(b.base()));
        }
        int base = b.base();
        b.mark(Psn.add(base, 5));
        b.mark(Psn.add(base, 63));
        int marked = b.marked();
        int news = 0;
        for (int psn = 0; psn <= Psn.MASK; psn++) {
            int d = Psn.forward(base, psn);
            if (d < 64) {
                continue;
            }
            ReorderBitmap.Mark expected = d >= Psn.WINDOW ? ReorderBitmap.Mark.DUPLICATE : ReorderBitmap.Mark.OUT_OF_RANGE;
            ReorderBitmap.Mark m = b.mark(psn);
            if (m != expected) {
                assertEquals(expected, m, "psn " + psn + " base " + base);
            }
            news += m == ReorderBitmap.Mark.NEW ? 1 : 0;
        }
        assertEquals(0, news);
        assertEquals(marked, b.marked(), "no slot changed");
        for (int d = 0; d < 64; d++) {
            ReorderBitmap.Mark expected = d == 5 || d == 63 ? ReorderBitmap.Mark.DUPLICATE : ReorderBitmap.Mark.NEW;
            assertEquals(expected, b.mark(Psn.add(base, d)), "d " + d);
        }
        assertEquals(64, b.advance());
    }

    @Test
    void aPsnWiderThan24BitsIsRejectedWithTheReason() {
        ReorderBitmap b = new ReorderBitmap(64);
        b.reset(0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.mark(1 << 24));
        assertTrue(e.getMessage().contains("24-bit"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.mark(-1));
        assertEquals(0, b.marked());
    }

    @Test
    void expectedPsnIsConsumedWithTheRunMarkedBehindIt() {
        ReorderBitmap b = new ReorderBitmap(64);
        b.reset(0xFFFFFE);
        assertEquals(1, b.arrive(0xFFFFFE), "in order");
        assertEquals(0, b.arrive(1), "ahead of the hole at 0xFFFFFF");
        assertEquals(0, b.arrive(0));
        assertEquals(ReorderBitmap.ARRIVED_DUPLICATE, b.arrive(1));
        assertEquals(3, b.arrive(0xFFFFFF), "the hole and the run behind it, across the wrap");
        assertEquals(2, b.base());
        assertEquals(ReorderBitmap.ARRIVED_DUPLICATE, b.arrive(0xFFFFFE), "before the window");
        assertEquals(ReorderBitmap.ARRIVED_OUT_OF_RANGE, b.arrive(2 + 64));
        b.mark(2);
        assertEquals(ReorderBitmap.ARRIVED_DUPLICATE, b.arrive(2), "marked but not yet consumed");
        assertEquals(1, b.advance());
    }

    @Test
    void arriveMatchesMarkThenAdvanceUnderRandomArrivals() {
        Random r = new Random(3);
        ReorderBitmap one = new ReorderBitmap(256);
        ReorderBitmap two = new ReorderBitmap(256);
        one.reset(0xFFFF80);
        two.reset(0xFFFF80);
        for (int i = 0; i < 300_000; i++) {
            // Mostly near the expected PSN, so in-order arrivals, short runs and duplicates mix.
            int psn = Psn.add(one.base(), r.nextInt(8) == 0 ? r.nextInt(300) - 20 : r.nextInt(3) - 1);
            ReorderBitmap.Mark m = two.mark(psn);
            int expected = m == ReorderBitmap.Mark.DUPLICATE ? ReorderBitmap.ARRIVED_DUPLICATE
                    : m == ReorderBitmap.Mark.OUT_OF_RANGE ? ReorderBitmap.ARRIVED_OUT_OF_RANGE
                    : two.advance();
            assertEquals(expected, one.arrive(psn), "psn " + psn);
            assertEquals(two.base(), one.base());
        }
        assertEquals(two.marked(), one.marked());
    }

    /**
     * The in-order paths consume a PSN without marking a run: the PSN must stay a duplicate, and
     * its slot must serve the PSN one capacity later, at the far end of the window.
     */
    @Test
    void psnsConsumedOneAtATimeStayDuplicatesAndFreeTheirSlots() {
        ReorderBitmap b = new ReorderBitmap(64);
        b.reset(0xFFFFF0);
        for (int round = 0; round < 5; round++) {
            int streak = 10 + 37 * round;  // up to 158: longer than the capacity
            for (int k = 0; k < streak; k++) {
                int psn = b.base();
                if ((k & 1) == 0) {
                    assertEquals(1, b.arrive(psn));
                } else {
                    assertEquals(ReorderBitmap.Mark.NEW, b.mark(psn));
                    assertEquals(1, b.advance());
                }
            }
            int base = b.base();
            int behind = Psn.add(base, -1 - round);
            assertEquals(ReorderBitmap.Mark.DUPLICATE, b.mark(behind), "consumed " + behind);
            assertEquals(ReorderBitmap.Mark.NEW, b.mark(Psn.add(base, 63)), "far end of the window");
            assertEquals(ReorderBitmap.Mark.OUT_OF_RANGE, b.mark(Psn.add(base, 64)));
            assertEquals(1, b.marked());
            assertEquals(Psn.add(base, 63), b.highestMarked());
            for (int d = 0; d < 63; d++) {
                b.mark(Psn.add(base, d));
            }
            assertEquals(64, b.advance());
        }
    }

    @Test
    void capacityMustBeAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new ReorderBitmap(100));
        assertThrows(IllegalArgumentException.class, () -> new ReorderBitmap(32));
        assertTrue(new ReorderBitmap(1 << 16).capacity() == 65536);
    }
}
