package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Rates and times as the command line and ns-3 write them. */
class RatesTest {

    @Test
    void shortRatesAreDecimalBitsPerSecond() {
        assertEquals(100_000_000_000L, Rates.parseRate("100G"));
        assertEquals(400_000_000_000L, Rates.parseRate("400G"));
        assertEquals(25_000_000_000L, Rates.parseRate("25G"));
        assertEquals(10_000_000_000L, Rates.parseRate("10G"));
        assertEquals(1_000_000_000L, Rates.parseRate("1G"));
        assertEquals(100_000_000L, Rates.parseRate("100M"));
        assertEquals(1_000L, Rates.parseRate("1K"));
        assertEquals(2_500_000_000L, Rates.parseRate("2.5G"));
        assertEquals(100_000_000_000L, Rates.parseRate("100g"));
        assertEquals(1_600_000_000_000L, Rates.parseRate("1.6T"));
    }

    @Test
    void ns3DataRateStringsParseAsNs3ReadsThem() {
        assertEquals(100_000_000_000L, Rates.parseRate("100Gbps"));
        assertEquals(400_000_000_000L, Rates.parseRate("400Gbps"));
        assertEquals(10_000_000L, Rates.parseRate("10Mbps"));
        assertEquals(40_000_000_000L, Rates.parseRate("40Gb/s"));
        assertEquals(5_000L, Rates.parseRate("5kbps"));
        assertEquals(5_000L, Rates.parseRate("5Kbps"));
        assertEquals(1_234L, Rates.parseRate("1234bps"));
        assertEquals(8_000_000_000L, Rates.parseRate("1GBps"), "B is bytes: 1 GB/s = 8 Gb/s");
        assertEquals(8L * 1024 * 1024, Rates.parseRate("1MiB/s"), "i is binary");
        assertEquals(1024L * 1024 * 1024, Rates.parseRate("1Gib/s"));
    }

    @Test
    void formattedRatesAreShortAndReadBack() {
        assertEquals("100G", Rates.formatRate(100_000_000_000L));
        assertEquals("400G", Rates.formatRate(400_000_000_000L));
        assertEquals("2500M", Rates.formatRate(2_500_000_000L));
        assertEquals("1234bps", Rates.formatRate(1_234L));
        for (long r : new long[] {1, 999, 1_000, 2_500_000_000L, 100_000_000_000L, 1_600_000_000_000L, 123_456_789L}) {
            assertEquals(r, Rates.parseRate(Rates.formatRate(r)));
        }
    }

    @Test
    void aRateWithoutAUnitOrWithAnUnknownOneIsRejectedWithTheForm() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Rates.parseRate("100X"));
        assertTrue(e.getMessage().startsWith("'100X' is not a rate: use a number and G, M or K, e.g. 100G"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Rates.parseRate("100"));
        assertThrows(IllegalArgumentException.class, () -> Rates.parseRate("G"));
        assertThrows(IllegalArgumentException.class, () -> Rates.parseRate(""));
        assertThrows(IllegalArgumentException.class, () -> Rates.parseRate("1.2.3G"));
        assertThrows(IllegalArgumentException.class, () -> Rates.parseRate("0G"));
        assertThrows(IllegalArgumentException.class, () -> Rates.parseRate("-1G"));
        assertThrows(IllegalArgumentException.class, () -> Rates.parseRate("0.5bps"), "not a whole number of bits");
        assertThrows(IllegalArgumentException.class, () -> Rates.parseRate("100000000000T"), "above 2^63");
        assertThrows(IllegalArgumentException.class, () -> Rates.parseRate("1kib/s"), "ns-3 has Kib/s, not kib/s");
    }

    @Test
    void ns3TimeStringsAreExactNanoseconds() {
        assertEquals(1_000, Rates.parseTimeNanos("1000ns"));
        assertEquals(1_000, Rates.parseTimeNanos("1us"));
        assertEquals(1_000, Rates.parseTimeNanos("0.001ms"), "decimal arithmetic: not 999");
        assertEquals(1_000_000_000L, Rates.parseTimeNanos("1s"));
        assertEquals(1_500, Rates.parseTimeNanos("1.5us"));
        assertEquals(2, Rates.parseTimeNanos("2000ps"));
        assertEquals(0, Rates.parseTimeNanos("0ns"));
        assertEquals("1us", Rates.formatNanos(1_000));
        assertEquals("1500ns", Rates.formatNanos(1_500));
        assertEquals("2s", Rates.formatNanos(2_000_000_000L));
        assertEquals("0ns", Rates.formatNanos(0));
    }

    @Test
    void aTimeWithoutAUnitOrAFractionOfANanosecondIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Rates.parseTimeNanos("5x"));
        assertEquals("'5x' is not a time: use a number and s, ms, us or ns, e.g. 1000ns", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Rates.parseTimeNanos("1000"));
        assertThrows(IllegalArgumentException.class, () -> Rates.parseTimeNanos("0.5ns"));
        assertThrows(IllegalArgumentException.class, () -> Rates.parseTimeNanos("-1us"));
    }

    @Test
    void bytesInATimeAtARateRoundUp() {
        // 1 us at 100 Gb/s: 100,000 bits = 12,500 bytes exactly.
        assertEquals(12_500, Rates.bytesIn(1_000, 100_000_000_000L));
        // 1 ns at 10 Gb/s: 10 bits = 1.25 bytes -> 2.
        assertEquals(2, Rates.bytesIn(1, 10_000_000_000L));
        // 1 s at 400 Gb/s: 5e10 bytes; nanos x bps (4e20) overflows a long, the result does not.
        assertEquals(50_000_000_000L, Rates.bytesIn(1_000_000_000L, 400_000_000_000L));
    }
}
