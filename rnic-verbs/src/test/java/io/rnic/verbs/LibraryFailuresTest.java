package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.udp.UdpWire;
import org.junit.jupiter.api.Test;

/** Failures of the library and what it runs on share one base type; the caller's mistakes do not. */
class LibraryFailuresTest {

    @Test
    void aWireThatCannotBindIsAWireExceptionAndSoAnRnicException() {
        // 192.0.2.1 (TEST-NET-1) is on no interface of this host: the bind fails.
        WireException e = assertThrows(WireException.class, () -> UdpWire.bind("192.0.2.1").open());
        assertTrue(e instanceof RnicException);
        assertTrue(e.getMessage().startsWith("cannot bind UDP 192.0.2.1:4791"), e.getMessage());
    }

    @Test
    void aWrongArgumentStaysAnIllegalArgumentException() {
        try (SimPair p = new SimPair(1)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.a.createCq(0));
            assertFalse(RnicException.class.isInstance(e), "the caller's mistake, not the library's failure");
            assertTrue(e.getMessage().contains("0"), e.getMessage());
        }
    }
}
