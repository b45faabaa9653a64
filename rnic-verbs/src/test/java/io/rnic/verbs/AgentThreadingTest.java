package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.udp.HcaAgent;
import io.rnic.transport.udp.UdpWire;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every way an HCA agent can run (a thread per HCA, one thread for all, or the application's
 * own thread) with every idle strategy carries the same RC traffic over UDP on loopback: SENDs,
 * a WRITE and a READ, every byte and completion checked.
 */
class AgentThreadingTest {
    private static final AtomicInteger NEXT = new AtomicInteger(10);

    static java.util.stream.Stream<Arguments> modes() {
        java.util.List<Arguments> l = new java.util.ArrayList<>();
        for (HcaAgent.Threading t : HcaAgent.Threading.values()) {
            for (HcaAgent.Idle i : HcaAgent.Idle.values()) {
                l.add(Arguments.of(t, i));
            }
        }
        return l.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modes")
    void rcTrafficRunsOnEveryThreadingAndIdleStrategy(HcaAgent.Threading threading, HcaAgent.Idle idle) throws Exception {
        int n = NEXT.getAndIncrement();
        HcaAgent invoker = threading == HcaAgent.Threading.INVOKER ? HcaAgent.invoker(idle) : null;
        try (RdmaDevice a = RdmaDevice.open(wire("127.0.87." + n, threading, idle, invoker));
             RdmaDevice b = RdmaDevice.open(wire("127.0.88." + n, threading, idle, invoker))) {
            assertEquals(threading == HcaAgent.Threading.INVOKER, a.isCallerDriven());
            ProtectionDomain pa = a.allocPd();
            ProtectionDomain pb = b.allocPd();
            CompletionQueue ca = a.createCq(64);
            CompletionQueue cb = b.createCq(64);
            ByteBuffer ba = ByteBuffer.allocateDirect(1 << 16);
            ByteBuffer bb = ByteBuffer.allocateDirect(1 << 16);
            int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
            MemoryRegion ma = pa.registerMemory(ba, access);
            MemoryRegion mb = pb.registerMemory(bb, access);
            QueuePair qa = pa.createQp(QpInitAttributes.rc(ca, ca));
            QueuePair qb = pb.createQp(QpInitAttributes.rc(cb, cb));
            Connections.connectPair(qa, ma, 1, qb, mb, 2, RcOptions.defaults());
            for (int i = 0; i < 4096; i++) {
                ba.put(i, (byte) (i * 7 + n));
            }
            for (int i = 0; i < 8; i++) {
                qb.postRecv(new RecvWorkRequest().wrId(100 + i).sge(mb.address() + 8192 + 512L * i, 512, mb.lkey()));
            }
            for (int i = 0; i < 8; i++) {
                qa.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND).signaled(true)
                        .sge(ma.address() + 64L * i, 64, ma.lkey()));
            }
            qa.postSend(new SendWorkRequest().wrId(20).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(ma.address(), 4096, ma.lkey()).rdma(mb.address() + 16384, mb.rkey()));
            qa.postSend(new SendWorkRequest().wrId(21).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(ma.address() + 32768, 4096, ma.lkey()).rdma(mb.address() + 16384, mb.rkey()));
            WorkCompletion wc = new WorkCompletion();
            for (int i = 0; i < 10; i++) {
                assertTrue(ca.await(10_000_000_000L) && ca.poll(wc), "completion " + i);
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            }
            assertEquals(21, wc.wrId(), "the READ completes last, after the WRITE it reads back");
            for (int i = 0; i < 8; i++) {
                assertTrue(cb.await(10_000_000_000L) && cb.poll(wc));
                assertEquals(100 + i, wc.wrId());
                assertEquals(64, wc.byteLen());
            }
            for (int i = 0; i < 4096; i++) {
                assertEquals(ba.get(i), ba.get(32768 + i), "byte " + i + " went there and back");
            }
            qa.close();
            qb.close();
        } finally {
            if (invoker != null) {
                invoker.close();
            }
        }
    }

    private static UdpWire wire(String ip, HcaAgent.Threading threading, HcaAgent.Idle idle, HcaAgent invoker) {
        UdpWire.Builder b = UdpWire.bind(ip);
        return switch (threading) {
            case DEDICATED -> b.idle(idle).open();
            case SHARED -> b.agent(HcaAgent.shared(idle)).open();
            case INVOKER -> b.agent(invoker).open();
        };
    }

    /** A spinning application calls the duty cycle millions of times a second: an idle one must make no garbage. */
    @Test
    void anIdleDutyCycleAllocatesNothing() {
        HcaAgent invoker = HcaAgent.invoker(HcaAgent.Idle.SPIN);
        try (RdmaDevice d = RdmaDevice.open(UdpWire.bind("127.0.87.203").agent(invoker).open())) {
            CompletionQueue cq = d.createCq(4);
            WorkCompletion wc = new WorkCompletion();
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
                    .getThreadMXBean();
            for (int i = 0; i < 200_000; i++) { // the JIT's turn
                cq.poll(wc);
            }
            long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
            int cycles = 100_000;
            for (int i = 0; i < cycles; i++) {
                cq.poll(wc); // an empty poll runs one duty cycle
            }
            long perCycle = (mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before) / cycles;
            assertTrue(perCycle < 1, perCycle + " bytes allocated per idle duty cycle");
        } finally {
            invoker.close();
        }
    }

    @Test
    void anInvokerDrivenDeviceRefusesOtherThreadsWithAClearMessage() throws Exception {
        HcaAgent invoker = HcaAgent.invoker(HcaAgent.Idle.BACKOFF);
        try (RdmaDevice d = RdmaDevice.open(UdpWire.bind("127.0.87.200").agent(invoker).open())) {
            QueuePair qp = d.allocPd().createQp(QpInitAttributes.rc(d.createCq(4), d.createCq(4)));
            Throwable t = thrownOnAnotherThread(
                    () -> qp.modify(new io.rnic.verbs.QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0)));
            assertTrue(t instanceof IllegalStateException && t.getMessage().contains("invoker"), String.valueOf(t));
            assertEquals(QpState.RESET, qp.state(), "nothing changed");
            MemoryRegion mr = qp.pd().registerMemory(ByteBuffer.allocateDirect(64), AccessFlags.LOCAL_WRITE);
            Throwable dereg = thrownOnAnotherThread(mr::close);
            assertTrue(dereg instanceof IllegalStateException && dereg.getMessage().contains("invoker"), String.valueOf(dereg));
            assertTrue(io.rnic.core.hca.HcaAccess.of(d).keys().lookup(mr.lkey()) != null, "still registered");
            mr.close();
            assertEquals(null, io.rnic.core.hca.HcaAccess.of(d).keys().lookup(mr.lkey()), "deregistered from its own thread");
            MemoryWindow mw = qp.pd().allocMw(2);
            Throwable dealloc = thrownOnAnotherThread(mw::close);
            assertTrue(dealloc instanceof IllegalStateException && dealloc.getMessage().contains("invoker"), String.valueOf(dealloc));
            assertTrue(io.rnic.core.hca.HcaAccess.of(d).keys().lookupWindow(mw.rkey()) != null, "still allocated");
            mw.close();
            assertEquals(null, io.rnic.core.hca.HcaAccess.of(d).keys().lookupWindow(mw.rkey()), "deallocated from its own thread");
            qp.modify(new io.rnic.verbs.QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
            assertEquals(QpState.INIT, qp.state(), "from its own thread it works");
            qp.close();
        } finally {
            invoker.close();
        }
    }

    /** What {@code call} throws when run on a thread other than the caller's, or null. */
    private static Throwable thrownOnAnotherThread(Runnable call) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            try {
                call.run();
                return (Throwable) null;
            } catch (RuntimeException e) {
                return e;
            }
        }).get();
    }

    /**
     * Deregistration is a command the protocol thread runs between packets, so its copies need
     * only check a region's validity, not pin it with an atomic instruction per packet: while that
     * thread is busy, another thread's close waits and the region stays registered.
     */
    @Test
    void deregistrationWaitsForTheProtocolThreadAndRunsOnIt() throws Exception {
        try (RdmaDevice d = RdmaDevice.open(UdpWire.bind("127.0.87.204").agent(HcaAgent.dedicated(HcaAgent.Idle.BLOCK))
                .open())) {
            MemoryRegion mr = d.allocPd().registerMemory(ByteBuffer.allocateDirect(64), AccessFlags.LOCAL_WRITE);
            closeWaitsForTheProtocolThread(d, mr::close, () -> io.rnic.core.hca.HcaAccess.of(d).keys().lookup(mr.lkey()) != null);
        }
    }

    /**
     * A window's deallocation is such a command too: an access that checked the window, or a bind
     * of it under way, finishes before it, and none follows it.
     */
    @Test
    void windowDeallocationWaitsForTheProtocolThreadAndRunsOnIt() throws Exception {
        try (RdmaDevice d = RdmaDevice.open(UdpWire.bind("127.0.87.205").agent(HcaAgent.dedicated(HcaAgent.Idle.BLOCK))
                .open())) {
            MemoryWindow mw = d.allocPd().allocMw(2);
            closeWaitsForTheProtocolThread(d, mw::close, () -> io.rnic.core.hca.HcaAccess.of(d).keys().lookupWindow(mw.rkey()) != null);
        }
    }

    /** While the protocol thread is busy, {@code close} on another thread waits, and {@code present} stays true until it runs. */
    private static void closeWaitsForTheProtocolThread(RdmaDevice d, Runnable close, java.util.function.BooleanSupplier present)
            throws Exception {
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        CompletableFuture<Boolean> presentOnProtocolThread = new CompletableFuture<>();
        d.wire().scheduler().execute(() -> {
            busy.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            presentOnProtocolThread.complete(present.getAsBoolean());
        });
        busy.await();
        Thread closer = new Thread(close, "closer");
        boolean closedEarly;
        try {
            closer.start();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (closer.getState() != Thread.State.WAITING && closer.getState() != Thread.State.TIMED_WAITING
                    && closer.getState() != Thread.State.TERMINATED && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            closedEarly = !closer.isAlive();
        } finally {
            release.countDown(); // the protocol thread goes on whatever the outcome
        }
        closer.join(10_000);
        assertTrue(!closedEarly, "close returned while the protocol thread was busy");
        assertTrue(presentOnProtocolThread.get(), "nothing taken away behind the protocol thread");
        assertTrue(!closer.isAlive(), "close returned once the protocol thread was free");
        assertTrue(!present.getAsBoolean(), "gone once close returned");
    }

    @Test
    void theSharedAgentRunsEveryWireOnOneThreadAndStopsWithTheLast() {
        HcaAgent first;
        try (UdpWire x = UdpWire.bind("127.0.87.201").agent(HcaAgent.shared(HcaAgent.Idle.BLOCK)).open();
             UdpWire y = UdpWire.bind("127.0.87.202").agent(HcaAgent.shared(HcaAgent.Idle.BLOCK)).open()) {
            first = x.agent();
            assertSame(first, y.agent(), "one agent for both wires");
            assertEquals(HcaAgent.Threading.SHARED, first.threading());
        }
        HcaAgent later = HcaAgent.shared(HcaAgent.Idle.BLOCK);
        try (UdpWire z = UdpWire.bind("127.0.87.203").agent(later).open()) {
            assertNotSame(first, later, "the first agent stopped with its last wire; a new one serves the next");
            assertSame(later, z.agent());
        }
    }
}
