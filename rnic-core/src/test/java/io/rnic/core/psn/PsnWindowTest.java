package io.rnic.core.psn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PsnWindowTest {

    @Test
    void requesterReservesAcrossTheWrapAndReadsTakeOnePsnPerResponse() {
        RequesterPsnWindow w = new RequesterPsnWindow(128);
        w.reset(0xFFFFFD);
        assertEquals(0xFFFFFD, w.reserve(1));      // SEND
        assertEquals(0xFFFFFE, w.reserve(3));      // READ of three response packets
        assertEquals(0x000001, w.next());
        assertEquals(4, w.inFlight());
    }

    @Test
    void requesterClassifiesResponsesIntoValidDuplicateAndGhostRegions() {
        RequesterPsnWindow w = new RequesterPsnWindow(128);
        w.reset(0xFFFFFE);
        w.reserve(4);                               // 0xFFFFFE .. 0x000001 in flight
        assertEquals(ResponseRegion.VALID, w.classify(0xFFFFFE));
        assertEquals(ResponseRegion.VALID, w.classify(0x000001));
        assertEquals(ResponseRegion.DUPLICATE, w.classify(0xFFFFFD));
        assertEquals(ResponseRegion.INVALID, w.classify(0x000002), "after the last PSN sent: ghost");
        assertTrue(w.acknowledge(0xFFFFFF));        // a coalesced ACK covers everything up to it
        assertEquals(0x000000, w.oldestUnacked());
        assertEquals(ResponseRegion.DUPLICATE, w.classify(0xFFFFFF), "already acknowledged");
        assertFalse(w.acknowledge(0xFFFFFF), "a stale ACK changes nothing");
        assertFalse(w.acknowledge(0x000005), "a ghost ACK changes nothing");
        assertTrue(w.acknowledgeBefore(0x000001), "a NAK at PSN 1 acknowledges PSN 0");
        assertEquals(1, w.inFlight());
    }

    @Test
    void requesterEnforcesTheInFlightLimit() {
        RequesterPsnWindow w = new RequesterPsnWindow(4);
        w.reset(10);
        assertTrue(w.canReserve(4));
        w.reserve(3);
        assertFalse(w.canReserve(2));
        assertTrue(w.canReserve(1));
        assertThrows(IllegalArgumentException.class, () -> new RequesterPsnWindow(0));
        assertThrows(IllegalArgumentException.class, () -> new RequesterPsnWindow(Psn.WINDOW + 1));
    }

    @Test
    void emptyRequesterWindowTreatsEverythingAsDuplicateOrGhost() {
        RequesterPsnWindow w = new RequesterPsnWindow(16);
        w.reset(0);
        assertEquals(ResponseRegion.DUPLICATE, w.classify(0xFFFFFF));
        assertEquals(ResponseRegion.INVALID, w.classify(0));
    }

    @Test
    void responderClassifiesRequestsAcrossTheWrap() {
        ResponderPsnWindow w = new ResponderPsnWindow();
        w.reset(0xFFFFFF);
        assertEquals(RequestRegion.EXPECTED, w.classify(0xFFFFFF));
        assertEquals(RequestRegion.DUPLICATE, w.classify(0xFFFFFE));
        assertEquals(RequestRegion.OUT_OF_SEQUENCE, w.classify(0));
        w.advance(1);
        assertEquals(0, w.expected());
        assertEquals(0xFFFFFF, w.lastAccepted());
        assertEquals(RequestRegion.DUPLICATE, w.classify(0xFFFFFF));
        assertEquals(RequestRegion.DUPLICATE, w.classify(Psn.add(0, -Psn.WINDOW)), "2^23 behind is still duplicate");
        assertEquals(RequestRegion.OUT_OF_SEQUENCE, w.classify(Psn.WINDOW - 1));
        w.advance(5);                               // a READ of five response packets
        assertEquals(5, w.expected());
    }
}
