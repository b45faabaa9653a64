package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Fast registration (the kernel's IB_WR_REG_MR, with rxe's rules: the region FREE, the same PD,
 * only the key byte changed) and its invalidation, locally (LOCAL_INV) and by a peer's SEND with
 * Invalidate, which revokes fast registrations and type 2 windows but never an ordinary region
 * (rxe_invalidate_mr).
 */
class FastRegistrationTest {
    private static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    private static final class Rig extends RcFixture {
        final ByteBuffer mem = ByteBuffer.allocateDirect(8192);
        final FastMemoryRegion fmr = pdB.allocMr(8192);

        Rig(long seed) {
            super(seed, RcOptions.defaults(), 0x500, 0x900);
            fmr.map(mem, 0, 8192);
        }

        /** REG_MR of the mapped memory at {@code iova} on B's QP; returns the key. */
        WorkCompletion register(int key, long iova) {
            qpB.postSend(new SendWorkRequest().wrId(50).signaled(true).regMr(fmr.lkey(), key, iova, ACCESS));
            return await(cqB);
        }

        SendWorkRequest write(long id, long remote, int rkey, int len) {
            return new SendWorkRequest().wrId(id).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(mrA.address(), len, mrA.lkey()).rdma(remote, rkey);
        }
    }

    @Test
    void regMrRegistersTheMappedMemoryUnderANewKeyByte() {
        try (Rig r = new Rig(1)) {
            int allocated = r.fmr.rkey();
            assertFalse(r.fmr.isRegistered(), "allocated without memory: FREE");
            int key = MemoryWindow.incRkey(allocated);
            WorkCompletion wc = r.register(key, 0x1_0000_0000L);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(WcOpcode.REG_MR, wc.opcode());
            assertEquals(key, r.fmr.rkey());
            assertTrue(r.fmr.isRegistered());
            SimPair.fill(r.bufA, 0, 3000, 2);
            r.qpA.postSend(r.write(1, 0x1_0000_0000L + 100, key, 3000));
            assertEquals(WcStatus.SUCCESS, r.await(r.cqA).status());
            assertTrue(SimPair.same(r.bufA, 0, r.mem, 100, 3000));
        }
    }

    @Test
    void localInvalidateRevokesAFastRegistrationWhichCanThenBeRegisteredAgain() {
        try (Rig r = new Rig(2)) {
            int k1 = MemoryWindow.incRkey(r.fmr.rkey());
            r.register(k1, 0x2000);
            r.qpB.postSend(new SendWorkRequest().wrId(51).signaled(true).localInvalidate(k1));
            WorkCompletion inv = r.await(r.cqB);
            assertEquals(WcStatus.SUCCESS, inv.status());
            assertEquals(WcOpcode.LOCAL_INV, inv.opcode());
            assertFalse(r.fmr.isRegistered());
            int k2 = MemoryWindow.incRkey(k1);
            assertEquals(WcStatus.SUCCESS, r.register(k2, 0x2000).status());
            SimPair.fill(r.bufA, 0, 8, 3);
            r.qpA.postSend(r.write(1, 0x2000, k2, 8));
            assertEquals(WcStatus.SUCCESS, r.await(r.cqA).status());
            r.qpA.postSend(r.write(2, 0x2000, k1, 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.await(r.cqA).status(), "the invalidated key is stale");
        }
    }

    @Test
    void aPeersSendWithInvalidateRevokesAFastRegistration() {
        try (Rig r = new Rig(3)) {
            int key = MemoryWindow.incRkey(r.fmr.rkey());
            r.register(key, 0x3000);
            r.qpB.postRecv(r.recvB(10, 0, 64));
            r.qpA.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND_WITH_INV).signaled(true)
                    .sge(r.mrA.address(), 8, r.mrA.lkey()).invalidate(key));
            WorkCompletion recv = r.await(r.cqB);
            assertEquals(WcStatus.SUCCESS, recv.status());
            assertEquals(key, recv.invalidatedRkey());
            assertFalse(r.fmr.isRegistered());
            r.await(r.cqA);
            r.qpA.postSend(r.write(2, 0x3000, key, 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.await(r.cqA).status());
        }
    }

    @Test
    void registeringARegisteredRegionAgainFailsWithLocQpOpErr() {
        try (Rig r = new Rig(4)) {
            int k1 = MemoryWindow.incRkey(r.fmr.rkey());
            r.register(k1, 0x4000);
            WorkCompletion again = r.register(MemoryWindow.incRkey(k1), 0x4000);
            assertEquals(WcStatus.LOC_QP_OP_ERR, again.status());
            assertEquals(QpState.ERR, r.qpB.state());
            assertEquals(k1, r.fmr.rkey(), "the registration in force stays");
        }
    }

    @Test
    void onlyTheKeyByteMayChange() {
        try (Rig r = new Rig(5)) {
            int foreign = r.fmr.rkey() + 0x100; // the next index's key
            assertEquals(WcStatus.LOC_QP_OP_ERR, r.register(foreign, 0x5000).status());
            assertFalse(r.fmr.isRegistered());
        }
    }

    @Test
    void aMappingLongerThanTheRegionWasAllocatedForIsRefused() {
        try (Rig r = new Rig(6)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> r.fmr.map(ByteBuffer.allocateDirect(16384), 0, 16384));
            assertTrue(e.getMessage().contains("exceeds"), e.getMessage());
        }
    }

    @Test
    void aFastRegistrationServesAsALocalKeyToo() {
        try (Rig r = new Rig(7)) {
            int key = MemoryWindow.incRkey(r.fmr.rkey());
            r.register(key, 0x6000);
            r.mem.put(10, (byte) 0x42);
            r.qpA.postRecv(new RecvWorkRequest().wrId(1).sge(r.mrA.address(), 64, r.mrA.lkey()));
            r.qpB.postSend(new SendWorkRequest().wrId(2).signaled(true).sge(0x6000 + 10, 1, key));
            assertEquals(WcStatus.SUCCESS, r.await(r.cqB).status());
            assertEquals(WcStatus.SUCCESS, r.await(r.cqA).status());
            assertEquals(0x42, r.bufA.get(0));
            assertNotEquals(0, key);
        }
    }
}
