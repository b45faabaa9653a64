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
        Random r = new Random(42);
        ReorderBitmap b = new ReorderBitmap(128);
        int start = 0xFFFF00;
        b.reset(start);
        Set<Integer> model = new HashSet<>();
        int base = start;
        for (int i = 0; i < 200_000; i++) {
            int psn = Psn.add(base, r.nextInt(140) - 6);
            ReorderBitmap.Mark m = b.mark(psn);
            int d = Psn.diff(psn, base);
            ReorderBitmap.Mark expected = d < 0 || model.contains(psn) ? ReorderBitmap.Mark.DUPLICATE
                    : d >= 128 ? ReorderBitmap.Mark.OUT_OF_RANGE : ReorderBitmap.Mark.NEW;
            assertEquals(expected, m, "psn " + psn + " base " + base);
            if (m == ReorderBitmap.Mark.NEW) {
                model.add(psn);
            }
            if (r.nextInt(4) == 0) {
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

    @Test
    void capacityMustBeAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new ReorderBitmap(100));
        assertThrows(IllegalArgumentException.class, () -> new ReorderBitmap(32));
        assertTrue(new ReorderBitmap(1 << 16).capacity() == 65536);
    }
}
