package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Memory windows (reference §8.1, §8.3; libibverbs semantics, Linux rxe for what the
 * specification leaves open): type 1 bound with the bind verb, type 2 (2B) with a BIND_MW work
 * request and tied to that QP; R_Keys that change with every bind; LOCAL_INV and a peer's SEND
 * with Invalidate for type 2; every failure with its completion status and nothing touched.
 * rdma-core's tests/test_mr.py MW cases are among them (named in each test's comment).
 */
class MemoryWindowTest {
    static final int PSN_A = 0x400;

    /** B's memory that windows are bound to: LOCAL_WRITE | MW_BIND, no remote rights of its own. */
    private static final class Rig extends RcFixture {
        final ByteBuffer win = ByteBuffer.allocateDirect(16384);
        final MemoryRegion winMr = pdB.registerMemory(win, AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);

        Rig(long seed) {
            super(seed, RcOptions.defaults(), PSN_A, 0x900);
        }

        /** Binds type 2 window {@code mw} on B's QP and waits for the bind's completion. */
        WorkCompletion bind2(MemoryWindow mw, long offset, long length, int access) {
            int next = MemoryWindow.incRkey(mw.rkey());
            qpB.postSend(new SendWorkRequest().wrId(77).signaled(true)
                    .bindMw(mw.rkey(), next, winMr.lkey(), winMr.address() + offset, length, access));
            return await(cqB);
        }

        SendWorkRequest write(long id, long remote, int rkey, int len) {
            return new SendWorkRequest().wrId(id).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(mrA.address(), len, mrA.lkey()).rdma(remote, rkey);
        }
    }

    @Test
    void aType1WindowBoundByTheBindVerbGrantsRemoteWriteUnderItsNewKey() { // test_mw_type1
        try (Rig r = new Rig(1)) {
            MemoryWindow mw = r.pdB.allocMw(1);
            int before = mw.rkey();
            int key = r.qpB.bindMw(5, true, mw, r.winMr, r.winMr.address(), 16384, AccessFlags.REMOTE_WRITE);
            WorkCompletion bind = r.await(r.cqB);
            assertEquals(WcStatus.SUCCESS, bind.status());
            assertEquals(WcOpcode.BIND_MW, bind.opcode());
            assertEquals(MemoryWindow.incRkey(before), key, "ibv_inc_rkey");
            assertEquals(key, mw.rkey());
            assertTrue(mw.isBound());
            SimPair.fill(r.bufA, 0, 3000, 4);
            r.qpA.postSend(r.write(1, r.winMr.address() + 100, key, 3000));
            assertEquals(WcStatus.SUCCESS, r.await(r.cqA).status());
            assertTrue(SimPair.same(r.bufA, 0, r.win, 100, 3000));
            r.qpA.postSend(r.write(2, r.winMr.address(), before, 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.await(r.cqA).status(), "the key before the bind is stale");
        }
    }

    @Test
    void aZeroLengthBindUnbindsAType1Window() { // test_invalidate_mw_type1
        try (Rig r = new Rig(2)) {
            MemoryWindow mw = r.pdB.allocMw(1);
            int key = r.qpB.bindMw(5, false, mw, r.winMr, r.winMr.address(), 4096, AccessFlags.REMOTE_WRITE);
            int unbound = r.qpB.bindMw(6, true, mw, r.winMr, 0, 0, 0);
            assertEquals(WcStatus.SUCCESS, r.await(r.cqB).status());
            assertFalse(mw.isBound());
            assertNotEquals(key, unbound, "the key changes on an unbind too");
            r.qpA.postSend(r.write(1, r.winMr.address(), key, 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.await(r.cqA).status());
            assertEquals(0, r.win.get(0), "untouched");
        }
    }

    @Test
    void aType2WindowBoundByAWorkRequestTakesTheNewKeyByteAndGrantsItsRights() { // test_mw_type2
        try (Rig r = new Rig(3)) {
            MemoryWindow mw = r.pdB.allocMw(2);
            assertFalse(mw.isBound(), "a type 2 window starts FREE");
            int before = mw.rkey();
            WorkCompletion bind = r.bind2(mw, 0, 16384, AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            assertEquals(WcStatus.SUCCESS, bind.status());
            assertEquals(WcOpcode.BIND_MW, bind.opcode());
            assertEquals(MemoryWindow.incRkey(before), mw.rkey());
            assertNotEquals(before, mw.rkey());
            SimPair.fill(r.bufA, 0, 2048, 6);
            r.qpA.postSend(r.write(1, r.winMr.address() + 4096, mw.rkey(), 2048));
            assertEquals(WcStatus.SUCCESS, r.await(r.cqA).status());
            assertTrue(SimPair.same(r.bufA, 0, r.win, 4096, 2048));
            r.qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(r.mrA.address() + 50_000, 2048, r.mrA.lkey()).rdma(r.winMr.address() + 4096, mw.rkey()));
            assertEquals(WcStatus.SUCCESS, r.await(r.cqA).status());
            assertTrue(SimPair.same(r.win, 4096, r.bufA, 50_000, 2048));
        }
    }

    @Test
    void localInvalidateRevokesAType2Window() { // test_mw_type2_invalidate_local
        try (Rig r = new Rig(4)) {
            MemoryWindow mw = r.pdB.allocMw(2);
            r.bind2(mw, 0, 4096, AccessFlags.REMOTE_WRITE);
            r.qpB.postSend(new SendWorkRequest().wrId(8).signaled(true).localInvalidate(mw.rkey()));
            WorkCompletion inv = r.await(r.cqB);
            assertEquals(WcStatus.SUCCESS, inv.status());
            assertEquals(WcOpcode.LOCAL_INV, inv.opcode());
            assertFalse(mw.isBound());
            r.qpA.postSend(r.write(1, r.winMr.address(), mw.rkey(), 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.await(r.cqA).status());
            assertEquals(0, r.win.get(0));
        }
    }

    @Test
    void aPeersSendWithInvalidateRevokesAType2Window() { // test_mw_type2_invalidate_remote
        try (Rig r = new Rig(5)) {
            MemoryWindow mw = r.pdB.allocMw(2);
            r.bind2(mw, 0, 4096, AccessFlags.REMOTE_WRITE);
            r.qpB.postRecv(r.recvB(10, 0, 64));
            r.qpA.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND_WITH_INV).signaled(true)
                    .sge(r.mrA.address(), 8, r.mrA.lkey()).invalidate(mw.rkey()));
            assertEquals(WcStatus.SUCCESS, r.await(r.cqA).status());
            WorkCompletion recv = r.await(r.cqB);
            assertEquals(WcStatus.SUCCESS, recv.status());
            assertEquals(WorkCompletion.WITH_INV, recv.wcFlags() & WorkCompletion.WITH_INV);
            assertEquals(mw.rkey(), recv.invalidatedRkey());
            assertFalse(mw.isBound());
            r.qpA.postSend(r.write(2, r.winMr.address(), mw.rkey(), 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.await(r.cqA).status());
        }
    }

    @Test
    void deallocatingABoundWindowRevokesIt() { // test_mw_type2_invalidate_dealloc
        try (Rig r = new Rig(6)) {
            MemoryWindow mw = r.pdB.allocMw(2);
            r.bind2(mw, 0, 4096, AccessFlags.REMOTE_WRITE);
            int key = mw.rkey();
            IllegalStateException e = assertThrows(IllegalStateException.class, r.winMr::close);
            assertTrue(e.getMessage().contains("memory window"), "a region with a bound window stays: " + e.getMessage());
            mw.close();
            r.qpA.postSend(r.write(1, r.winMr.address(), key, 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.await(r.cqA).status());
            r.winMr.close(); // nothing bound any more
        }
    }

    @Test
    void onlyTypes1And2Exist() { // test_reg_mw_wrong_type
        try (Rig r = new Rig(7)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> r.pdB.allocMw(3));
            assertTrue(e.getMessage().contains("not 1 or 2"), e.getMessage());
        }
    }

    @Test
    void bindingToARegionWithoutMwBindFailsWithMwBindErrAndTheQpErrs() {
        try (Rig r = new Rig(8)) {
            MemoryWindow mw = r.pdB.allocMw(2);
            MemoryRegion plain = r.pdB.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
            r.qpB.postSend(new SendWorkRequest().wrId(1).signaled(true)
                    .bindMw(mw.rkey(), MemoryWindow.incRkey(mw.rkey()), plain.lkey(), plain.address(), 4096, AccessFlags.REMOTE_WRITE));
            assertEquals(WcStatus.MW_BIND_ERR, r.await(r.cqB).status());
            assertEquals(QpState.ERR, r.qpB.state());
            assertFalse(mw.isBound());
        }
    }

    @Test
    void aWindowGrantsOnlyItsOwnRightsAndOnlyWithinItsBounds() { // test_qp_ex_rc_bind_mw, and bounds
        try (Rig r = new Rig(9)) {
            MemoryWindow ro = r.pdB.allocMw(2);
            r.bind2(ro, 4096, 4096, AccessFlags.REMOTE_READ);
            r.qpA.postSend(r.write(1, r.winMr.address() + 4096, ro.rkey(), 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.await(r.cqA).status(), "a READ-only window refuses a WRITE");
            assertEquals(0, r.win.get(4096));
        }
        try (Rig r = new Rig(10)) {
            MemoryWindow mw = r.pdB.allocMw(2);
            r.bind2(mw, 4096, 4096, AccessFlags.REMOTE_WRITE);
            r.qpA.postSend(r.write(1, r.winMr.address() + 8000, mw.rkey(), 200));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.await(r.cqA).status(),
                    "past the window's end, though inside the region (rxe checks only the region)");
            assertEquals(0, r.win.get(8191));
        }
    }

    @Test
    void aType2WindowServesOnlyTheQpItIsBoundTo() { // type 2B
        try (Rig r = new Rig(11)) {
            MemoryWindow mw = r.pdB.allocMw(2);
            r.bind2(mw, 0, 4096, AccessFlags.REMOTE_WRITE);
            QueuePair otherA = r.pdA.createQp(QpInitAttributes.rc(r.cqA, r.cqA));
            QueuePair otherB = r.pdB.createQp(QpInitAttributes.rc(r.cqB, r.cqB));
            Connections.connectPair(otherA, r.mrA, 1, otherB, r.mrB, 2, RcOptions.defaults());
            otherA.postSend(r.write(1, r.winMr.address(), mw.rkey(), 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.await(r.cqA).status(), "another QP of the same PD");
            assertEquals(0, r.win.get(0));
        }
    }

    @Test
    void aBoundType2WindowCannotBeBoundAgainUntilInvalidated() {
        try (Rig r = new Rig(12)) {
            MemoryWindow mw = r.pdB.allocMw(2);
            r.bind2(mw, 0, 4096, AccessFlags.REMOTE_WRITE);
            assertEquals(WcStatus.MW_BIND_ERR, r.bind2(mw, 0, 4096, AccessFlags.REMOTE_WRITE).status());
        }
    }

    @Test
    void invalidatingAType1WindowOrAnOrdinaryRegionFailsWithLocQpOpErr() {
        try (Rig r = new Rig(13)) {
            MemoryWindow mw = r.pdB.allocMw(1);
            r.qpB.bindMw(5, false, mw, r.winMr, r.winMr.address(), 4096, AccessFlags.REMOTE_WRITE);
            r.qpB.postSend(new SendWorkRequest().wrId(1).signaled(true).localInvalidate(MemoryWindow.incRkey(mw.rkey())));
            assertEquals(WcStatus.LOC_QP_OP_ERR, r.await(r.cqB).status());
            assertEquals(QpState.ERR, r.qpB.state());
        }
        try (Rig r = new Rig(14)) {
            r.qpB.postSend(new SendWorkRequest().wrId(1).signaled(true).localInvalidate(r.mrB.rkey()));
            assertEquals(WcStatus.LOC_QP_OP_ERR, r.await(r.cqB).status());
        }
    }

    @Test
    void aZeroBasedType2WindowIsAddressedFromZero() {
        try (Rig r = new Rig(15)) {
            MemoryWindow mw = r.pdB.allocMw(2);
            r.bind2(mw, 8192, 4096, AccessFlags.REMOTE_WRITE | AccessFlags.ZERO_BASED);
            SimPair.fill(r.bufA, 0, 100, 8);
            r.qpA.postSend(r.write(1, 10, mw.rkey(), 100));
            assertEquals(WcStatus.SUCCESS, r.await(r.cqA).status());
            assertTrue(SimPair.same(r.bufA, 0, r.win, 8192 + 10, 100), "offset 10 of the window");
        }
    }

    @Test
    void atomicsThroughAWindowReachTheRegion() {
        try (Rig r = new Rig(16)) {
            MemoryWindow mw = r.pdB.allocMw(2);
            r.bind2(mw, 0, 4096, AccessFlags.REMOTE_ATOMIC);
            r.win.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(64, 10);
            r.qpA.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(r.mrA.address(), 8, r.mrA.lkey()).atomic(r.winMr.address() + 64, mw.rkey(), 5, 0));
            assertEquals(WcStatus.SUCCESS, r.await(r.cqA).status());
            assertEquals(15, r.win.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(64));
        }
    }

    @Test
    void aType2WindowCannotBeBoundThroughXrc() { // IBA 9.7.9.1: no type 2 windows on XRC
        try (RcFixture f = new RcFixture(17, RcOptions.defaults(), PSN_A, 0x900, QpCaps.defaults(), true)) {
            MemoryRegion mr = f.pdA.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE
                    | AccessFlags.MW_BIND);
            MemoryWindow mw = f.pdA.allocMw(2);
            f.qpA.postSend(new SendWorkRequest().wrId(1).signaled(true)
                    .bindMw(mw.rkey(), MemoryWindow.incRkey(mw.rkey()), mr.lkey(), mr.address(), 4096, AccessFlags.REMOTE_WRITE));
            assertEquals(WcStatus.MW_BIND_ERR, f.await(f.cqA).status());
        }
    }

    @Test
    void theBindVerbChecksWhatLibibverbsChecksBeforePosting() {
        try (Rig r = new Rig(18)) {
            MemoryWindow two = r.pdB.allocMw(2);
            assertThrows(IllegalArgumentException.class,
                    () -> r.qpB.bindMw(1, true, two, r.winMr, r.winMr.address(), 8, AccessFlags.REMOTE_WRITE), "type 2");
            MemoryWindow one = r.pdA.allocMw(1);
            assertThrows(IllegalArgumentException.class,
                    () -> r.qpA.bindMw(1, true, one, r.winMr, r.winMr.address(), 8, AccessFlags.REMOTE_WRITE),
                    "the region is in another PD (EPERM)");
            assertThrows(IllegalArgumentException.class, () -> r.qpB.postSend(new SendWorkRequest().wrId(1)
                    .sge(r.mrB.address(), 8, r.mrB.lkey()).localInvalidate(1)), "a local operation takes no SGEs");
        }
    }

    /**
     * rdma-core test_qp_ex_rc_bind_mw: a region with REMOTE_WRITE | MW_BIND but no LOCAL_WRITE,
     * a type 2 window over all of it with LOCAL_WRITE only: the bind succeeds (a window without
     * remote write rights needs no local write on the region), and a peer's WRITE through it is a
     * remote access error.
     */
    @Test
    void aWindowWithoutRemoteRightsBindsButAWriteThroughItIsRefused() {
        try (Rig r = new Rig(19)) {
            ByteBuffer mem = ByteBuffer.allocateDirect(1024);
            MemoryRegion mr = r.pdB.registerMemory(mem, AccessFlags.MW_BIND | AccessFlags.REMOTE_READ);
            MemoryWindow mw = r.pdB.allocMw(2);
            r.qpB.postSend(new SendWorkRequest().wrId(1).signaled(true)
                    .bindMw(mw.rkey(), MemoryWindow.incRkey(mw.rkey()), mr.lkey(), mr.address(), 1024, AccessFlags.LOCAL_WRITE));
            assertEquals(WcStatus.SUCCESS, r.await(r.cqB).status());
            r.qpA.postSend(r.write(2, mr.address(), mw.rkey(), 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.await(r.cqA).status());
            assertEquals(0, mem.get(0));
        }
    }

    /** A window with REMOTE_WRITE on a region its owner cannot write locally cannot be bound. */
    @Test
    void aWindowWithRemoteWriteNeedsLocalWriteOnTheRegion() {
        try (Rig r = new Rig(20)) {
            MemoryRegion mr = r.pdB.registerMemory(ByteBuffer.allocateDirect(1024), AccessFlags.MW_BIND
                    | AccessFlags.REMOTE_READ);
            MemoryWindow mw = r.pdB.allocMw(2);
            r.qpB.postSend(new SendWorkRequest().wrId(1).signaled(true)
                    .bindMw(mw.rkey(), MemoryWindow.incRkey(mw.rkey()), mr.lkey(), mr.address(), 1024, AccessFlags.REMOTE_WRITE));
            assertEquals(WcStatus.MW_BIND_ERR, r.await(r.cqB).status());
        }
    }
}
