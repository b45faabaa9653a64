package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.packet.AethSyndrome;
import io.rnic.verbs.testing.RcPair;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Invalidating a memory window stops a WRITE already under way through it, as deregistering a
 * region does (issue 39, defect 7): once a LOCAL_INV has completed, or {@link MemoryWindow#close}
 * has returned, no byte of the WRITE's later packets lands, and those packets are NAKed Remote
 * Access Error, so the WRITE completes REM_ACCESS_ERR (reference §8.3: the R_Key of a window
 * must name a bound, valid window; IBA 10.6.7: an invalidated or deallocated window's R_Key
 * grants no access; §3.3 NAK code 2).
 *
 * <p>On the simulated network the invalidation falls between two packets of the WRITE, after a
 * known number of them. On UDP the two race, and the assertion holds whatever the interleaving:
 * the memory the window covers does not change after the invalidation completed, and the WRITE
 * succeeds only if all of it had landed before.
 */
class WindowInvalidationMidWriteTest {
    private static final int MTU = 1024; // RcOptions.defaults()
    private static final int SIM_WRITE = 16 * MTU;
    private static final int UDP_WRITE = 1 << 20;
    private static final long UDP_TIMEOUT_NANOS = 20_000_000_000L;

    /** How the window stops granting access: a LOCAL_INV of a type 2 window, or deallocating a type 1 window. */
    enum Revoke { LOCAL_INV, DEALLOC }

    @Test
    void localInvalidateBetweenTwoPacketsOfAWriteStopsTheRestOfItOnTheSimulatedNetwork() {
        simulated(Revoke.LOCAL_INV, 71);
    }

    @Test
    void deallocatingAWindowBetweenTwoPacketsOfAWriteStopsTheRestOfItOnTheSimulatedNetwork() {
        simulated(Revoke.DEALLOC, 72);
    }

    private static void simulated(Revoke how, long seed) {
        try (RcFixture f = new RcFixture(seed)) {
            var sentB = Wiretap.sent(f.wireB);
            ByteBuffer win = ByteBuffer.allocateDirect(SIM_WRITE);
            MemoryRegion winMr = f.pdB.registerMemory(win, AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
            MemoryWindow mw = bind(f.pdB, f.qpB, winMr, how, SIM_WRITE, () -> f.await(f.cqB));
            nonZero(f.bufA, SIM_WRITE);
            long before = f.b.counters().get(Counter.RCVD_PKTS);
            f.qpA.postSend(write(f.mrA, winMr, mw.rkey(), SIM_WRITE));
            // Four of the sixteen packets reach B, then the window is revoked between two packets.
            f.net.scheduler().runUntil(() -> f.b.counters().get(Counter.RCVD_PKTS) - before >= 4, 1_000_000_000L);
            revoke(how, mw, f.qpB, () -> f.await(f.cqB));
            long landed = f.b.counters().get(Counter.RCVD_PKTS) - before;
            assertTrue(landed >= 4 && landed < SIM_WRITE / MTU, "revoked mid-WRITE, after " + landed + " packets");
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), wc.toString());
            assertTrue(SimPair.same(f.bufA, 0, win, 0, (int) landed * MTU), "what arrived before the revocation landed");
            for (int i = (int) landed * MTU; i < SIM_WRITE; i++) {
                assertEquals(0, win.get(i), "byte " + i + " landed after the window was revoked");
            }
            Wiretap.Seen nak = sentB.get(sentB.size() - 1);
            assertEquals(AethSyndrome.nak(AethSyndrome.NAK_REMOTE_ACCESS_ERROR), nak.syndrome(), sentB.toString());
            assertEquals(QpState.ERR, f.qpA.state());
        }
    }

    /**
     * A READ's responses stream out chunk by chunk; a window revoked between two chunks ends the
     * stream, as a deregistered region does (IBA 9.7, repeated duplicate requests rule 4): no response carries the
     * window's bytes after the revocation. The requester's retry of the rest is a duplicate READ
     * whose key now grants nothing, silently dropped (rule 3), so its retries run out.
     */
    @Test
    void revokingAWindowBetweenTwoChunksOfAReadStopsItsResponses() {
        for (Revoke how : Revoke.values()) {
            try (RcFixture f = new RcFixture(73 + how.ordinal())) {
                int length = 256 * MTU; // sixteen chunks of responses
                ByteBuffer win = ByteBuffer.allocateDirect(length);
                nonZero(win, length);
                MemoryRegion winMr = f.pdB.registerMemory(win, AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
                MemoryWindow mw = bindForRead(f, how, winMr, length);
                long before = f.a.counters().get(Counter.RCVD_PKTS);
                f.qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).signaled(true)
                        .sge(f.mrA.address(), length, f.mrA.lkey()).rdma(winMr.address(), mw.rkey()));
                f.net.scheduler().runUntil(() -> f.a.counters().get(Counter.RCVD_PKTS) - before >= 32, 1_000_000_000L);
                revoke(how, mw, f.qpB, () -> f.await(f.cqB));
                long sent = f.b.counters().get(Counter.READ_RESPONSES_SENT);
                assertTrue(sent >= 32 && sent < length / MTU, how + ": revoked mid-READ, after " + sent + " responses");
                WorkCompletion wc = f.await(f.cqA);
                assertEquals(WcStatus.RETRY_EXC_ERR, wc.status(), how + ": " + wc);
                assertEquals(sent, f.b.counters().get(Counter.READ_RESPONSES_SENT),
                        how + ": no response left B after the window was revoked");
            }
        }
    }

    private static MemoryWindow bindForRead(RcFixture f, Revoke how, MemoryRegion winMr, int length) {
        return bind(f.pdB, f.qpB, winMr, how, length, () -> f.await(f.cqB), AccessFlags.REMOTE_READ);
    }

    @Test
    void localInvalidateRacingAWriteOverUdpLetsNothingLandAfterIt() throws Exception {
        udp(Revoke.LOCAL_INV, "127.0.195.1", "127.0.196.1");
    }

    @Test
    void deallocatingAWindowRacingAWriteOverUdpLetsNothingLandAfterIt() throws Exception {
        udp(Revoke.DEALLOC, "127.0.195.2", "127.0.196.2");
    }

    private static void udp(Revoke how, String ipA, String ipB) throws Exception {
        try (RcPair p = RcPair.udp(ipA, ipB, RcOptions.defaults())) {
            ByteBuffer win = ByteBuffer.allocateDirect(UDP_WRITE);
            MemoryRegion winMr = p.mrB().pd().registerMemory(win, AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
            MemoryWindow mw = bind(p.mrB().pd(), p.qpB(), winMr, how, UDP_WRITE, () -> p.awaitB(1).get(0));
            ByteBuffer src = ByteBuffer.allocateDirect(UDP_WRITE);
            nonZero(src, UDP_WRITE);
            MemoryRegion srcMr = p.mrA().pd().registerMemory(src, AccessFlags.LOCAL_WRITE);
            long before = p.b().counters().get(Counter.RCVD_PKTS);
            p.qpA().postSend(write(srcMr, winMr, mw.rkey(), UDP_WRITE));
            long deadline = System.nanoTime() + UDP_TIMEOUT_NANOS;
            while (p.b().counters().get(Counter.RCVD_PKTS) - before < 2) { // under way: revoke the window now
                assertTrue(System.nanoTime() < deadline, "the WRITE never began");
                Thread.onSpinWait();
            }
            revoke(how, mw, p.qpB(), () -> p.awaitB(1).get(0));
            // Every byte that landed did so before the revocation completed: nothing changes after it.
            byte[] atRevocation = new byte[UDP_WRITE];
            win.get(0, atRevocation);
            WorkCompletion wc = p.awaitA(1).get(0);
            byte[] after = new byte[UDP_WRITE];
            win.get(0, after);
            int landed = landedPrefix(atRevocation);
            for (int i = 0; i < UDP_WRITE; i++) {
                if (after[i] != atRevocation[i]) {
                    throw new AssertionError("byte " + i + " landed after the window was revoked (" + landed
                            + " bytes had landed before; the WRITE completed " + wc.status() + ")");
                }
            }
            if (wc.status() == WcStatus.SUCCESS) {
                assertEquals(UDP_WRITE, landed, "a WRITE may succeed only if all of it landed before the revocation");
            } else {
                assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), wc.toString());
                assertTrue(landed < UDP_WRITE);
            }
            System.out.printf("WindowInvalidationMidWriteTest %s over UDP: %d of %d bytes landed before it, %s%n",
                    how, landed, UDP_WRITE, wc.status());
        }
    }

    /** Binds a window over {@code winMr} with REMOTE_WRITE: type 2 on {@code qp} for LOCAL_INV, type 1 to deallocate. */
    private static MemoryWindow bind(ProtectionDomain pd, QueuePair qp, MemoryRegion winMr, Revoke how, int length,
                                     java.util.function.Supplier<WorkCompletion> await) {
        return bind(pd, qp, winMr, how, length, await, AccessFlags.REMOTE_WRITE);
    }

    private static MemoryWindow bind(ProtectionDomain pd, QueuePair qp, MemoryRegion winMr, Revoke how, int length,
                                     java.util.function.Supplier<WorkCompletion> await, int access) {
        MemoryWindow mw = pd.allocMw(how == Revoke.LOCAL_INV ? 2 : 1);
        if (how == Revoke.LOCAL_INV) {
            qp.postSend(new SendWorkRequest().wrId(77).signaled(true).bindMw(mw.rkey(), MemoryWindow.incRkey(mw.rkey()), winMr.lkey(),
                    winMr.address(), length, access));
        } else {
            qp.bindMw(77, true, mw, winMr, winMr.address(), length, access);
        }
        WorkCompletion bound = await.get();
        assertEquals(WcStatus.SUCCESS, bound.status(), bound.toString());
        assertEquals(WcOpcode.BIND_MW, bound.opcode());
        return mw;
    }

    /**
     * Revokes the window and returns once that is done: the LOCAL_INV's completion polled, or the
     * deallocation returned.
     */
    private static void revoke(Revoke how, MemoryWindow mw, QueuePair qp,
                               java.util.function.Supplier<WorkCompletion> await) {
        if (how == Revoke.DEALLOC) {
            mw.close();
            return;
        }
        qp.postSend(new SendWorkRequest().wrId(78).signaled(true).localInvalidate(mw.rkey()));
        WorkCompletion inv = await.get();
        assertEquals(WcStatus.SUCCESS, inv.status(), inv.toString());
        assertEquals(WcOpcode.LOCAL_INV, inv.opcode());
    }

    private static SendWorkRequest write(MemoryRegion from, MemoryRegion winMr, int rkey, int length) {
        return new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(from.address(), length, from.lkey()).rdma(winMr.address(), rkey);
    }

    /** Fills {@code b} with bytes none of which is 0, so a landed byte always shows. */
    private static void nonZero(ByteBuffer b, int length) {
        for (int i = 0; i < length; i++) {
            b.put(i, (byte) (1 + i % 251));
        }
    }

    /** How many bytes from the start have landed (are not 0). */
    private static int landedPrefix(byte[] b) {
        int i = 0;
        while (i < b.length && b[i] != 0) {
            i++;
        }
        return i;
    }
}
