package io.rnic.core.hca;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The extended protocol's RTO_low settings (IRN): the wire's default, a chosen value, or off. */
class RecoveryTuningTest {
    @Test
    void theDefaultRtoLowIsTheWires100MicrosecondsVirtualOneMillisecondReal() {
        RecoveryTuning d = RecoveryTuning.defaults();
        assertEquals(RecoveryTuning.RTO_LOW_BY_WIRE, d.rtoLowNanos());
        assertEquals(100_000, d.rtoLowNanos(true), "the simulated network");
        assertEquals(1_000_000, d.rtoLowNanos(false), "the UDP wire, in real time");
        assertEquals(3, d.rtoLowPackets());
        assertEquals(d, new RecoveryTuning(256, 64L << 20, 100_000, 8), "the four-value form keeps the defaults");
    }

    @Test
    void aChosenRtoLowHoldsOnEveryWireAndZeroTurnsItOff() {
        RecoveryTuning t = RecoveryTuning.defaults().withRtoLow(250_000, 5);
        assertEquals(250_000, t.rtoLowNanos(true));
        assertEquals(250_000, t.rtoLowNanos(false));
        assertEquals(5, t.rtoLowPackets());
        assertEquals(0, RecoveryTuning.defaults().withRtoLow(0, 3).rtoLowNanos(false));
    }

    @Test
    void anRtoLowOutOfRangeIsRefusedWithTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RecoveryTuning.defaults().withRtoLow(-2, 3));
        assertTrue(e.getMessage().contains("RTO_low must be >= 0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RecoveryTuning.defaults().withRtoLow(100_000, 0));
    }
}
