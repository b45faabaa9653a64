package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /**
     * Closing a device with work outstanding (issue 12, defect 4): its QPs go to ERR and every
     * outstanding work request completes with WR_FLUSH_ERR, a thread waiting on its CQ wakes,
     * and the QP, CQ, region and PD can all be closed afterwards.
     */
    @Test
    void closingADeviceFlushesItsOutstandingWorkAndWakesWaiters() throws Exception {
        try (io.rnic.transport.udp.UdpWire w = io.rnic.transport.udp.UdpWire.bind("127.0.87.210").open()) {
            RdmaDevice d = RdmaDevice.open(w);
            ProtectionDomain pd = d.allocPd();
            CompletionQueue cq = d.createCq(16);
            CompletionQueue idle = d.createCq(4);
            MemoryRegion mr = pd.registerMemory(java.nio.ByteBuffer.allocateDirect(4096),
                    io.rnic.verbs.AccessFlags.LOCAL_WRITE);
            QueuePair qp = pd.createQp(QpInitAttributes.rc(cq, cq));
            Connections.connect(qp, Connections.local(qp, 1, mr),
                    new ConnectionInfo(Gid.of(java.net.InetAddress.getByName("127.0.87.211")), 0x99, 7, 0, 0),
                    RcOptions.defaults());
            qp.postRecv(new RecvWorkRequest().wrId(1).sge(mr.address(), 64, mr.lkey()));
            qp.postSend(new io.rnic.verbs.SendWorkRequest().wrId(2)
                    .opcode(io.rnic.verbs.WrOpcode.SEND).signaled(true).sge(mr.address(), 64, mr.lkey()));
            java.util.concurrent.CompletableFuture<Boolean> waiter = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return idle.await(60_000_000_000L);
                } catch (InterruptedException e) {
                    return null;
                }
            });
            d.close();
            assertEquals(false, waiter.get(30, java.util.concurrent.TimeUnit.SECONDS),
                    "the waiter woke: nothing will complete on a closed device");
            java.util.List<Long> flushed = new java.util.ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            while (cq.poll(wc)) {
                assertEquals(io.rnic.verbs.WcStatus.WR_FLUSH_ERR, wc.status(), wc.toString());
                flushed.add(wc.wrId());
            }
            assertTrue(flushed.containsAll(java.util.List.of(1L, 2L)), "both outstanding requests flushed: " + flushed);
            qp.close();
            cq.close();
            idle.close();
            mr.close();
            pd.close();
        }
    }

    @Test
    void aCqWhoseCloseWasRefusedIsStillWokenAndDestroyedByTheDeviceClose() throws Exception {
        try (io.rnic.transport.udp.UdpWire w = io.rnic.transport.udp.UdpWire.bind("127.0.87.212").open()) {
            RdmaDevice d = RdmaDevice.open(w);
            ProtectionDomain pd = d.allocPd();
            CompletionQueue cq = d.createCq(16);
            QueuePair qp = pd.createQp(QpInitAttributes.rc(cq, cq));
            IllegalStateException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, cq::close);
            assertTrue(refused.getMessage().contains("in use by a QP"), refused.getMessage());
            java.util.concurrent.CompletableFuture<Boolean> waiter = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return cq.await(60_000_000_000L);
                } catch (InterruptedException e) {
                    return null;
                }
            });
            d.close();
            assertEquals(false, waiter.get(30, java.util.concurrent.TimeUnit.SECONDS),
                    "the device still owned the CQ whose close was refused, and woke its waiter");
            qp.close();
            cq.close();
            assertTrue(cq.isClosed());
            pd.close();
        }
    }
}
