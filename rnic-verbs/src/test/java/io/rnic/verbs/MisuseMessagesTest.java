package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What a misused API says: the value, what is wrong with it, and where a path exists, the way there. */
class MisuseMessagesTest {
    @Test
    void aNegativeSgeLengthIsNamedNegative() {
        IllegalArgumentException s = assertThrows(IllegalArgumentException.class,
                () -> new SendWorkRequest().sge(0x1000, -5, 1));
        assertEquals("an SGE's length is a byte count from 0 to 2^31 - 1; -5 is negative", s.getMessage());
        IllegalArgumentException r = assertThrows(IllegalArgumentException.class,
                () -> new RecvWorkRequest().sge(0x1000, -5, 1));
        assertEquals(s.getMessage(), r.getMessage());
    }

    @Test
    void anIllegalTransitionNamesTheLegalPath() {
        try (SimPair p = new SimPair(1)) {
            ProtectionDomain pd = p.a.allocPd();
            CompletionQueue cq = p.a.createCq(4);
            QueuePair qp = pd.createQp(QpInitAttributes.rc(cq, cq));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> qp.modify(new QpAttributes().state(QpState.RTS)));
            assertTrue(e.getMessage().contains("RESET -> RTS is not a legal transition for RC; the legal path is "
                    + "RESET -> INIT -> RTR -> RTS"), e.getMessage());
        }
    }
}
