package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * QP state changes through the verbs API: legal paths, refused ones with the attribute named,
 * and what each state does to queued work. The full table is tested rule by rule in rnic-core's
 * QpTransitionsTest.
 */
class QpTransitionsVerbsTest {

    private static QpAttributes init() {
        return new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0);
    }

    @Test
    void resetToInitToRtrToRtsAndQueryReportsTheAttributes() {
        try (RcFixture f = new RcFixture(40)) {
            QpAttributes q = f.qpA.query();
            assertEquals(QpState.RTS, q.state());
            assertEquals(PathMtu.MTU_1024, q.pathMtu());
            assertEquals(f.qpB.qpn(), q.destQpn());
            assertEquals(14, q.timeout());
            assertEquals(0x100, q.sqPsn());
        }
    }

    @Test
    void anIllegalTransitionIsRefusedAndChangesNothing() {
        try (RcFixture f = new RcFixture(41)) {
            QueuePair qp = f.pdA.createQp(QpInitAttributes.rc(f.cqA, f.cqA));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(1)));
            assertTrue(e.getMessage().contains("RESET -> RTS"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> qp.modify(new QpAttributes().state(QpState.ERR)));
            assertTrue(e.getMessage().contains("not a legal transition"), e.getMessage());
            assertEquals(QpState.RESET, qp.state());
        }
    }

    @Test
    void aMissingRequiredAttributeIsNamed() throws Exception {
        try (RcFixture f = new RcFixture(42)) {
            QueuePair qp = f.pdA.createQp(QpInitAttributes.rc(f.cqA, f.cqA));
            qp.modify(init());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> qp.modify(new QpAttributes()
                    .state(QpState.RTR).av(AddressVector.of(InetAddress.getByName("10.0.0.3"))).pathMtu(PathMtu.MTU_1024)
                    .destQpn(0x11).rqPsn(0).minRnrTimer(12)));
            assertTrue(e.getMessage().contains("MAX_DEST_RD_ATOMIC"), e.getMessage());
            assertEquals(QpState.INIT, qp.state());
        }
    }

    @Test
    void anAttributeTheTransitionDoesNotAcceptIsNamed() {
        try (RcFixture f = new RcFixture(43)) {
            QueuePair qp = f.pdA.createQp(QpInitAttributes.rc(f.cqA, f.cqA));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> qp.modify(init().sqPsn(5)));
            assertTrue(e.getMessage().contains("SQ_PSN"), e.getMessage());
        }
    }

    @Test
    void receivesPostedInInitAreKeptAndFlushedOnError() {
        try (RcFixture f = new RcFixture(44)) {
            QueuePair qp = f.pdA.createQp(QpInitAttributes.rc(f.cqA, f.cqA));
            qp.modify(init());
            qp.postRecv(new RecvWorkRequest().wrId(1));
            qp.postRecv(new RecvWorkRequest().wrId(2));
            f.settle();
            assertEquals(0, f.cqA.size());
            qp.modify(new QpAttributes().state(QpState.ERR));
            var wcs = f.await(f.cqA, 2);
            assertEquals(1, wcs.get(0).wrId());
            assertEquals(2, wcs.get(1).wrId());
            for (WorkCompletion wc : wcs) {
                assertEquals(WcStatus.WR_FLUSH_ERR, wc.status());
            }
        }
    }

    @Test
    void resetEmptiesTheQueuesWithoutCompletions() {
        try (RcFixture f = new RcFixture(45)) {
            f.qpB.postRecv(new RecvWorkRequest().wrId(1));
            f.qpB.modify(new QpAttributes().state(QpState.RESET));
            f.settle();
            assertEquals(0, f.cqB.size());
            assertEquals(QpState.RESET, f.qpB.state());
            f.qpB.modify(init()); // and it can be used again
            assertEquals(QpState.INIT, f.qpB.state());
        }
    }

    @Test
    void rtsToSqdDrainsAndRaisesSqDrainedThenBackToRts() {
        try (RcFixture f = new RcFixture(46)) {
            java.util.List<io.rnic.verbs.AsyncEvent> events = new java.util.ArrayList<>();
            f.a.addAsyncEventListener(events::add);
            f.qpA.modify(new QpAttributes().state(QpState.SQD).enSqdAsyncNotify(true));
            f.settle();
            assertTrue(events.stream().anyMatch(e -> e.type() == io.rnic.verbs.AsyncEvent.Type.SQ_DRAINED), events.toString());
            f.qpA.modify(new QpAttributes().state(QpState.RTS));
            assertEquals(QpState.RTS, f.qpA.state());
        }
    }
}
