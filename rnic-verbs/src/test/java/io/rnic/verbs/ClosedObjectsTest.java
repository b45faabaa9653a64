package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.transport.RecvWorkRequest;
import io.rnic.core.transport.WorkCompletion;
import org.junit.jupiter.api.Test;

/**
 * Closed means closed (issue 12, defect 6): a closed completion queue or device refuses further
 * use with an {@link IllegalStateException} that names it, and what was open on a closed device
 * can still be closed.
 */
class ClosedObjectsTest {

    @Test
    void aClosedCompletionQueueRefusesNewQpsAndPolls() {
        try (SimPair p = new SimPair(31)) {
            CompletionQueue cq = p.a.createCq(16);
            cq.close();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> p.pdA.createQp(QpInitAttributes.rc(cq, p.cqA)));
            assertTrue(e.getMessage().contains("completion queue") && e.getMessage().contains("closed"), e.getMessage());
            e = assertThrows(IllegalStateException.class, () -> cq.poll(new WorkCompletion()));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertTrue(cq.isClosed());
            cq.close(); // a second close is harmless
        }
    }

    @Test
    void aClosedDeviceRefusesWorkAndLetsItsObjectsBeClosed() {
        try (SimPair p = new SimPair(32)) {
            QueuePair qp = p.pdA.createQp(QpInitAttributes.rc(p.cqA, p.cqA));
            p.a.close();
            assertTrue(p.a.isClosed());
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> qp.postRecv(new RecvWorkRequest().wrId(1).sge(p.mrA.address(), 64, p.mrA.lkey())));
            assertTrue(e.getMessage().contains("device") && e.getMessage().contains("closed"), e.getMessage());
            e = assertThrows(IllegalStateException.class, () -> p.a.allocPd());
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            qp.close(); // returns at once: no protocol thread is left to wait for
            p.cqA.close(); // no longer in use by the QP
            p.mrA.close();
            p.pdA.close();
            assertEquals(true, p.cqA.isClosed());
        }
    }
}
