package io.rnic.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A CM event names its reject reason (IBA table 112) and errno, not a bare number. */
class CmEventTextTest {
    @Test
    void aRejectIsPrintedWithItsReasonByName() {
        CmEvent e = new CmEvent(CmEventType.REJECTED, null, null, 8, null, null);
        assertEquals("REJ 8 (invalid service ID)", e.statusText());
        assertTrue(e.toString().startsWith("REJECTED REJ 8 (invalid service ID) on "), e.toString());
        assertEquals("consumer reject", CmRejectReason.name(CmId.REJ_CONSUMER_DEFINED));
        assertEquals("stale connection", CmRejectReason.name(CmId.REJ_STALE_CONN));
        assertEquals("reason 99", CmRejectReason.name(99));
    }

    @Test
    void anErrnoIsPrintedByName() {
        assertEquals("ETIMEDOUT (-110)", new CmEvent(CmEventType.UNREACHABLE, null, null, CmEvent.ETIMEDOUT, null, null)
                .statusText());
        assertEquals("", new CmEvent(CmEventType.ESTABLISHED, null, null, 0, null, null).statusText());
    }
}
