package io.rnic.core.cc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** {@link CongestionControl#earliestSend}: packets leave 8·bytes/rate apart, at the rate in force. */
class PacingTest {
    static final long LINE = 40_000_000_000L;
    static final long US = 1_000;

    @Test
    void noneNeverDelaysAndHasNoWindow() {
        CongestionControl none = CongestionControl.NONE;
        none.onSend(0, 4096);
        none.onCnp(0);
        assertEquals(0, none.earliestSend(0, 4096));
        assertEquals(5, none.earliestSend(5, 4096));
        assertEquals(Long.MAX_VALUE, none.windowBytes());
        assertEquals(Double.POSITIVE_INFINITY, none.rateBitsPerSecond());
        assertSame(CongestionControl.NONE, CongestionControl.NONE, "stateless, shared by every QP");
    }

    @Test
    void earliestSendSpacesPacketsByBytesTimesEightOverTheRate() {
        Dcqcn cc = new Dcqcn(DcqcnParameters.paper(), LINE);
        assertEquals(0, cc.earliestSend(0, 1000), "nothing sent yet");
        cc.onSend(0, 1000);
        assertEquals(200, cc.earliestSend(0, 1000), "8000 bits at 40 Gb/s: 200 ns");
        assertEquals(200, cc.earliestSend(150, 1000));
        cc.onSend(200, 1000);
        assertEquals(400, cc.earliestSend(200, 1000));
        cc.onSend(400, 4000);
        assertEquals(1200, cc.earliestSend(400, 64), "the gap is the previous packet's: 32000 bits, 800 ns");
        assertEquals(5000, cc.earliestSend(5000, 1000), "a late sender may go at once");
        cc.onSend(5000, 1000);
        assertEquals(5200, cc.earliestSend(5000, 1000), "and earns no burst from idling");
    }

    @Test
    void fractionsOfANanosecondCarryOverSoTheAverageRateIsExact() {
        DcqcnParameters p = new DcqcnParameters(1.0 / 256, 55 * US, 55 * US, 10_000_000, 5, 40_000_000, 200_000_000,
                100_000_000, 0.5);
        Dcqcn cc = new Dcqcn(p, LINE);
        cc.onCnp(0);                        // 40 Gb/s (1 - 0.5/2) = 30 Gb/s: 1000 bytes take 266.67 ns
        long[] expected = {0, 267, 534, 800, 1067, 1334, 1600};
        long t = 0;
        for (int k = 0; k < 150; k++) {
            t = cc.earliestSend(t, 1000);
            if (k < expected.length) {
                assertEquals(expected[k], t, "packet " + k + " at ceil(k * 266.67 ns)");
            }
            cc.onSend(t, 1000);
        }
        assertEquals(39_734, t, "packet 149 at ceil(149 * 8000 / 30) ns: no accumulated rounding");
    }

    @Test
    void aRateIncreaseThatFallsDueDuringTheGapShortensIt() {
        // T = 10 µs; after one CNP R_C = 20 Gb/s, R_T = 40 Gb/s. A 100 kB packet at 20 Gb/s takes
        // 40 µs; at 10 µs fast recovery gives 30 Gb/s (26.67 µs: not yet), at 20 µs 35 Gb/s
        // (22.857 µs, before the next event at 30 µs): it may leave at ceil(22857.14) ns.
        DcqcnParameters p = new DcqcnParameters(1.0 / 256, 55 * US, 10 * US, 10_000_000, 5, 40_000_000, 200_000_000,
                1_000_000_000, 1.0);
        Dcqcn cc = new Dcqcn(p, LINE);
        cc.onCnp(0);
        cc.onSend(0, 100_000);
        assertEquals(22_858, cc.earliestSend(0, 1000));
        assertEquals(20e9, cc.rateBitsPerSecond(), 0.0, "looking ahead changed nothing");
        assertEquals(22_858, cc.earliestSend(15 * US, 1000), "the same answer later");
        cc.advanceTo(22_858);
        assertEquals(35e9, cc.rateBitsPerSecond(), 0.0, "the rate in force when it leaves");
    }
}
