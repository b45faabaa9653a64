package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Error injection ({@link RdmaDevice#inject}): each error takes the real error's path, so the
 * application sees the same asynchronous events and completions, in the same order, as when the
 * device meets the error itself. Where the device can meet it for real (a wrong local key), the
 * test compares the two.
 */
class InjectionTest {

    private static List<String> events(RdmaDevice d) {
        List<String> out = java.util.Collections.synchronizedList(new ArrayList<>());
        d.addAsyncEventListener(e -> out.add(e.type() + "@" + e.resource()));
        return out;
    }

    private static QueuePair[] pair(SimPair s) {
        QueuePair a = s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA));
        QueuePair b = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB));
        Connections.connectPair(a, s.mrA, 1, b, s.mrB, 2, RcOptions.defaults());
        return new QueuePair[] {a, b};
    }

    private static List<String> statuses(List<WorkCompletion> wcs) {
        return wcs.stream().map(wc -> wc.wrId() + ":" + wc.status()).collect(Collectors.toList());
    }

    @Test
    void aQpErrorRaisesQpFatalAndFlushesItsWork() {
        try (SimPair s = new SimPair(1)) {
            QueuePair[] q = pair(s);
            List<String> ev = events(s.a);
            q[0].postRecv(new RecvWorkRequest().wrId(7).sge(s.mrA.address(), 64, s.mrA.lkey()));
            s.a.inject(Injection.qpError(q[0]));
            assertEquals(QpState.ERR, q[0].state());
            assertEquals(List.of("QP_FATAL@" + q[0].qpn()), ev);
            assertEquals(List.of("7:WR_FLUSH_ERR"), statuses(s.drain(s.cqA)));
            s.a.inject(Injection.qpError(q[0])); // a QP already in ERR: nothing more
            assertEquals(1, ev.size());
        }
    }

    /** A SEND whose local key the application got wrong, or one the injection spoils: the same story. */
    private static List<String> localProtection(boolean injected) {
        try (SimPair s = new SimPair(2)) {
            QueuePair[] q = pair(s);
            List<String> ev = events(s.a);
            q[1].postRecv(s.recvB(1, 0, 64));
            SendWorkRequest first = injected ? s.sendA(10, 0, 64)
                    : new SendWorkRequest().wrId(10).opcode(WrOpcode.SEND).signaled(true)
                            .sge(s.mrA.address(), 64, s.mrA.lkey() ^ 0x40); // a key no region has
            q[0].postSend(first);
            q[0].postSend(s.sendA(11, 0, 64));
            q[0].postSend(s.sendA(12, 0, 64));
            if (injected) {
                s.a.inject(Injection.localProtectionError(q[0]));
            }
            List<String> out = new ArrayList<>(statuses(s.drain(s.cqA)));
            out.add(q[0].state().toString());
            out.addAll(ev.stream().map(e -> e.replace("@" + q[0].qpn(), "@qp")).collect(Collectors.toList()));
            return out;
        }
    }

    @Test
    void anInjectedLocalProtectionErrorIsWhatAWrongLocalKeyDoes() {
        List<String> real = localProtection(false);
        assertEquals("10:LOC_PROT_ERR", real.get(0), real.toString());
        assertEquals(real, localProtection(true));
    }

    @Test
    void aLocalProtectionErrorNeedsAWorkRequestWaitingToStart() {
        try (SimPair s = new SimPair(3)) {
            QueuePair[] q = pair(s);
            IllegalStateException x = assertThrows(IllegalStateException.class,
                    () -> s.a.inject(Injection.localProtectionError(q[0])));
            assertTrue(x.getMessage().contains("no send work request waiting"), x.getMessage());
            assertEquals(QpState.RTS, q[0].state());
        }
    }

    @Test
    void aCqOverflowRaisesCqErrOnce() {
        try (SimPair s = new SimPair(4)) {
            List<String> ev = events(s.a);
            CompletionQueue cq = s.a.createCq(8);
            s.a.inject(Injection.cqOverflow(cq));
            s.a.inject(Injection.cqOverflow(cq));
            assertTrue(cq.hasOverflowed());
            assertEquals(1, ev.size());
            assertTrue(ev.get(0).startsWith("CQ_ERR@"), ev.toString());
        }
    }

    @Test
    void anSrqErrorRaisesSrqErrThenFailsEveryQpOnIt() {
        try (SimPair s = new SimPair(5)) {
            SharedReceiveQueue srq = s.pdB.createSrq(16, 1, 0);
            QueuePair a1 = s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA));
            QueuePair b1 = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB).withSrq(srq));
            QueuePair a2 = s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA));
            QueuePair b2 = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB).withSrq(srq));
            QueuePair other = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB));
            Connections.connectPair(a1, s.mrA, 1, b1, s.mrB, 2, RcOptions.defaults());
            Connections.connectPair(a2, s.mrA, 3, b2, s.mrB, 4, RcOptions.defaults());
            List<String> ev = events(s.b);
            s.b.inject(Injection.srqError(srq));
            assertEquals("SRQ_ERR@" + srq.srqn(), ev.get(0));
            assertEquals(QpState.ERR, b1.state());
            assertEquals(QpState.ERR, b2.state());
            assertEquals(QpState.RESET, other.state(), "a QP with its own receive queue is not touched");
            s.settle();
            assertTrue(ev.containsAll(List.of("QP_LAST_WQE_REACHED@" + b1.qpn(), "QP_LAST_WQE_REACHED@" + b2.qpn())),
                    ev.toString());
        }
    }

    @Test
    void aDeviceFatalErrorRaisesDeviceFatalThenFailsEveryQp() {
        try (SimPair s = new SimPair(6)) {
            QueuePair[] q = pair(s);
            List<String> ev = events(s.a);
            q[0].postRecv(new RecvWorkRequest().wrId(3).sge(s.mrA.address(), 64, s.mrA.lkey()));
            s.a.inject(Injection.deviceFatal());
            assertEquals(List.of("DEVICE_FATAL@-1"), ev);
            assertEquals(QpState.ERR, q[0].state());
            assertEquals(List.of("3:WR_FLUSH_ERR"), statuses(s.drain(s.cqA)));
            assertEquals(QpState.RTS, q[1].state(), "the peer's device is another device");
        }
    }

    @Test
    void anInjectionIsRefusedForAnotherDevicesObjectAndOnAClosedDevice() {
        try (SimPair s = new SimPair(7)) {
            QueuePair[] q = pair(s);
            assertThrows(IllegalArgumentException.class, () -> s.a.inject(Injection.qpError(q[1])));
            assertEquals(QpState.RTS, q[1].state());
            s.a.close();
            assertThrows(IllegalStateException.class, () -> s.a.inject(Injection.deviceFatal()));
        }
    }

    /**
     * On the simulated network, packet faults for the next N packets of one QP are added to the
     * running link (Faults.first with PacketMatch.toQp): RC recovers from each, and each is counted
     * where it belongs.
     */
    @Test
    void theNextPacketsOfOneQpCanBeDroppedCorruptedOrDelayedOnTheRunningNetwork() {
        for (String kind : List.of("drop", "corrupt", "delay")) {
            try (SimPair s = new SimPair(8)) {
                QueuePair[] q = pair(s);
                QueuePair bystanderA = s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA));
                QueuePair bystanderB = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB));
                Connections.connectPair(bystanderA, s.mrA, 5, bystanderB, s.mrB, 6, RcOptions.defaults());
                io.rnic.transport.fault.FaultModel fault = switch (kind) {
                    case "drop" -> io.rnic.transport.fault.Faults.drop(1);
                    case "corrupt" -> io.rnic.transport.fault.Faults.corrupt(1);
                    default -> io.rnic.transport.fault.Faults.delay(50_000);
                };
                s.net.direction(s.wireA, s.wireB).fault(io.rnic.transport.fault.Faults.first(
                        io.rnic.transport.fault.PacketMatch.toQp(q[1].qpn()), 3, fault));
                q[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                        .sge(s.mrA.address(), 8 * 1024, s.mrA.lkey()).rdma(s.mrB.address(), s.mrB.rkey()));
                bystanderA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                        .sge(s.mrA.address(), 8 * 1024, s.mrA.lkey()).rdma(s.mrB.address() + 65536, s.mrB.rkey()));
                List<WorkCompletion> wcs = s.await(s.cqA, 2);
                wcs.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), kind));
                io.rnic.transport.fault.FaultStats st = s.net.direction(s.wireA, s.wireB).faultStats();
                long bystanderDone = wcs.stream().filter(wc -> wc.wrId() == 2).count();
                assertEquals(1, bystanderDone);
                switch (kind) {
                    case "drop" -> {
                        assertEquals(3, st.dropped(), kind);
                        assertTrue(s.a.counters().get(Counter.RETRANSMITTED_PKTS) >= 3, kind);
                    }
                    case "corrupt" -> assertEquals(3, s.b.counters().get(Counter.RCVD_ICRC_ERR), kind);
                    default -> {
                        assertEquals(3, st.delayed(), kind);
                        // Later packets overtook the three: out of sequence at B, and go-back-N resent them.
                        assertTrue(s.b.counters().get(Counter.OUT_OF_SEQ_REQUEST) > 0, kind);
                    }
                }
            }
        }
    }
}
