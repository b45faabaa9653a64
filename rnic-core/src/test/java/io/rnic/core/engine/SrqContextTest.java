package io.rnic.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.memory.ProtectionDomain;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.RecvWorkRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shared receive queue's own rules (libibverbs {@code ibv_modify_srq}, rxe's checks). */
class SrqContextTest {
    final List<AsyncEvent> events = new ArrayList<>();
    final ProtectionDomain pd = new ProtectionDomain(1);
    final SrqContext srq = new SrqContext(TestHca.create(events), pd, 16, 1, 0);

    private void post(int n) {
        for (int i = 0; i < n; i++) {
            srq.post(new RecvWorkRequest().wrId(i).sge(0, 8, 1));
        }
    }

    private long limitEvents() {
        return events.stream().filter(e -> e.type() == AsyncEvent.Type.SRQ_LIMIT_REACHED).count();
    }

    @Test
    void srqLimitReachedFiresOnceWhenTheCountDropsBelowTheArmedLimitThenDisarms() {
        // rdma-core tests/test_srq.py test_modify_srq_limit: 10 posted, limit 7, 4 receives.
        post(10);
        srq.modify(-1, 7);
        assertEquals(7, srq.limit());
        srq.take();
        srq.take();
        srq.take();
        assertEquals(0, limitEvents(), "7 left is not below 7");
        srq.take();
        assertEquals(1, limitEvents(), "6 left is below 7");
        assertEquals(srq.srqn(), events.get(0).resource());
        assertEquals(0, srq.limit(), "the event disarms the limit");
        srq.take();
        assertEquals(1, limitEvents(), "once per arming");
    }

    @Test
    void aLimitGivenAtCreationIsArmed() {
        SrqContext armed = new SrqContext(TestHca.create(events), pd, 8, 1, 2);
        armed.post(new RecvWorkRequest().wrId(1));
        armed.post(new RecvWorkRequest().wrId(2));
        armed.take();
        assertEquals(1, limitEvents());
    }

    @Test
    void armingALimitAboveTheCountDoesNotFireUntilAWqeIsTaken() {
        post(2);
        srq.modify(-1, 5);
        assertEquals(0, limitEvents());
        srq.take();
        assertEquals(1, limitEvents());
    }

    @Test
    void resizeKeepsPostedAndHeldWqesInOrder() {
        post(6);
        RecvWqe held = srq.take();
        srq.modify(32, -1);
        assertEquals(32, srq.maxWr());
        assertEquals(5, srq.available());
        RecvWqe next = srq.take();
        assertEquals(1, next.wrId(), "posted order survives the resize");
        srq.retire(next);
        srq.retire(held); // the WQE a message held is still the queue's
        for (int i = 0; i < 4; i++) {
            srq.retire(srq.take());
        }
        for (int i = 0; i < 32; i++) {
            srq.post(new RecvWorkRequest().wrId(100 + i));
        }
        assertThrows(IllegalStateException.class, () -> srq.post(new RecvWorkRequest()));
    }

    @Test
    void resizeBelowTheWqesInUseIsRefusedAndChangesNothing() {
        post(6);
        srq.take(); // held
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> srq.modify(5, -1));
        assertTrue(e.getMessage().contains("6 WQEs"), e.getMessage());
        assertEquals(16, srq.maxWr());
        srq.modify(6, -1);
        assertEquals(6, srq.maxWr());
    }

    @Test
    void aLimitAboveMaxWrAndAMaxWrBelowTheArmedLimitAreRefused() {
        // rxe: srq_limit may equal the capacity, not exceed it; the same rule at creation.
        assertThrows(IllegalArgumentException.class, () -> srq.modify(-1, 17));
        srq.modify(-1, 16);
        assertThrows(IllegalArgumentException.class, () -> new SrqContext(TestHca.create(), pd, 8, 1, 9));
        srq.modify(-1, 10);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> srq.modify(8, -1));
        assertTrue(e.getMessage().contains("armed limit 10"), e.getMessage());
        srq.modify(8, 4); // both at once: the new limit fits the new size
        assertEquals(4, srq.limit());
    }

    @Test
    void destroyIsRefusedWhileAQpUsesIt() {
        srq.attach();
        IllegalStateException e = assertThrows(IllegalStateException.class, srq::destroy);
        assertTrue(e.getMessage().contains("in use by 1 QP"), e.getMessage());
        srq.detach();
        srq.destroy();
        assertThrows(IllegalStateException.class, () -> srq.post(new RecvWorkRequest()));
        assertEquals(0, pd.useCount(), "the SRQ gave back its hold on the PD");
    }
}
