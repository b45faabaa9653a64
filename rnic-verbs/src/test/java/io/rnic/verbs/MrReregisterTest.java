package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * {@code ibv_rereg_mr}: {@link MemoryRegion#reregister} with the flags of libibverbs. A PD or
 * access change keeps the keys (as rxe); a translation change, which rxe refuses, is supported
 * and keeps them (as mlx5); it is refused while windows are bound; and once it returns, every
 * access, a packet already on the wire included, is judged by the new attributes.
 */
class MrReregisterTest {
    private static final int MTU = 1024;
    private static final int RW = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    private static SendWorkRequest write(RcFixture f, long id, long remote, int rkey, int len) {
        return new SendWorkRequest().wrId(id).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(f.mrA.address(), len, f.mrA.lkey()).rdma(remote, rkey);
    }

    /** The scenario of the brief: WRITE allowed, rereg drops REMOTE_WRITE, the next WRITE is refused. */
    @Test
    void anAccessChangeKeepsTheKeysAndTheNextWriteIsJudgedByTheNewRights() {
        try (RcFixture f = new RcFixture(4520)) {
            ByteBuffer target = ByteBuffer.allocateDirect(8192);
            MemoryRegion mr = f.pdB.registerMemory(target, RW);
            int lkey = mr.lkey();
            int rkey = mr.rkey();
            long va = mr.address();
            SimPair.fill(f.bufA, 0, 100, 3);
            f.qpA.postSend(write(f, 1, va, rkey, 100));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(SimPair.same(f.bufA, 0, target, 0, 100));

            mr.reregister(MemoryRegion.REREG_CHANGE_ACCESS, null, null, 0, 0,
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
            assertEquals(lkey, mr.lkey(), "lkey kept");
            assertEquals(rkey, mr.rkey(), "rkey kept");
            assertEquals(va, mr.address(), "the translation is kept");
            assertEquals(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, mr.access());

            SimPair.fill(f.bufA, 0, 100, 9);
            f.qpA.postSend(write(f, 2, va, rkey, 100));
            assertEquals(WcStatus.REM_ACCESS_ERR, f.await(f.cqA).status(),
                    "the R_Key check: the region no longer grants REMOTE_WRITE");
            assertTrue(target.get(0) == (byte) 3, "nothing written");
        }
    }

    /** The WRITE left A before the call and arrives after it returns: the new rights judge it. */
    @Test
    void aWriteAlreadyOnTheWireIsJudgedByTheRightsInForceWhenItArrives() {
        try (RcFixture f = new RcFixture(4521)) {
            ByteBuffer target = ByteBuffer.allocateDirect(8192);
            MemoryRegion mr = f.pdB.registerMemory(target, RW);
            var sentA = Wiretap.sent(f.wireA);
            long received = f.b.counters().get(Counter.RCVD_PKTS);
            SimPair.fill(f.bufA, 0, 64, 5);
            f.qpA.postSend(write(f, 1, mr.address(), mr.rkey(), 64));
            f.net.scheduler().runNext(); // the doorbell: the WRITE leaves A
            assertEquals(1, sentA.size(), sentA.toString());
            assertEquals(received, f.b.counters().get(Counter.RCVD_PKTS), "still on the link");
            mr.reregister(MemoryRegion.REREG_CHANGE_ACCESS, null, null, 0, 0, AccessFlags.LOCAL_WRITE);
            assertEquals(WcStatus.REM_ACCESS_ERR, f.await(f.cqA).status());
            assertEquals(0, target.get(0), "nothing written");
        }
    }

    /**
     * A WRITE whose first packet landed before the call: its next packet finds the region it
     * resolved re-registered, and is NAKed as after deregistration; nothing more is written.
     */
    @Test
    void aWriteMidMessageFailsAtItsNextPacketAndWritesNothingMore() {
        try (RcFixture f = new RcFixture(4522)) {
            var sentB = Wiretap.sent(f.wireB);
            ByteBuffer target = ByteBuffer.allocateDirect(4 * MTU);
            MemoryRegion mr = f.pdB.registerMemory(target, RW);
            io.rnic.core.packet.PacketFields first = new io.rnic.core.packet.PacketFields()
                    .opcode(io.rnic.core.packet.OpcodeTable.byName("RC_RDMA_WRITE_FIRST"));
            first.destQp = f.qpB.qpn();
            first.psn = 0x100;
            first.rethVa = mr.address();
            first.rethRkey = mr.rkey();
            first.rethLength = 2 * MTU;
            byte[] ones = new byte[MTU];
            java.util.Arrays.fill(ones, (byte) 1);
            first.payload(ones);
            Wiretap.inject(f.wireA, f.qpA.sourcePort(), f.wireB, first);
            f.settle();
            assertEquals(1, target.get(0), "the first packet landed");
            mr.reregister(MemoryRegion.REREG_CHANGE_ACCESS, null, null, 0, 0, RW); // the same rights, a new registration
            io.rnic.core.packet.PacketFields last = new io.rnic.core.packet.PacketFields()
                    .opcode(io.rnic.core.packet.OpcodeTable.byName("RC_RDMA_WRITE_LAST"));
            last.destQp = f.qpB.qpn();
            last.psn = 0x101;
            last.ackReq = true;
            last.payload(ones);
            Wiretap.inject(f.wireA, f.qpA.sourcePort(), f.wireB, last);
            f.settle();
            assertEquals(0, target.get(MTU), "nothing written after the re-registration");
            Wiretap.Seen nak = sentB.get(sentB.size() - 1);
            assertEquals(io.rnic.core.packet.AethSyndrome.nak(io.rnic.core.packet.AethSyndrome.NAK_REMOTE_ACCESS_ERROR),
                    nak.syndrome());
        }
    }

    @Test
    void aTranslationChangeKeepsTheKeysAndMovesTheRegionToTheNewMemory() {
        try (RcFixture f = new RcFixture(4523)) {
            ByteBuffer before = ByteBuffer.allocateDirect(8192);
            ByteBuffer after = ByteBuffer.allocate(16384);
            MemoryRegion mr = f.pdB.registerMemory(before, RW);
            int rkey = mr.rkey();
            long oldVa = mr.address();
            mr.reregister(MemoryRegion.REREG_CHANGE_TRANSLATION, null, after, 4096, 12288, 0);
            assertEquals(rkey, mr.rkey());
            assertEquals(12288, mr.length());
            assertNotEquals(oldVa, mr.address(), "a new address, as ibv_rereg_mr's addr");
            assertEquals(RW, mr.access(), "the rights are kept");
            SimPair.fill(f.bufA, 0, 300, 7);
            f.qpA.postSend(write(f, 1, mr.address() + 10, rkey, 300));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(SimPair.same(f.bufA, 0, after, 4096 + 10, 300), "landed in the new memory");
            assertEquals(0, before.get(10), "not in the old");
            // Locally too: a receive into the new memory under the same lkey.
            SimPair.fill(f.bufA, 0, 64, 8);
            f.qpB.postRecv(new RecvWorkRequest().wrId(3).sge(mr.address(), 64, mr.lkey()));
            f.qpA.postSend(f.sendA(3, 0, 64));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqB).status());
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(SimPair.same(f.bufA, 0, after, 4096, 64));
            f.qpA.postSend(write(f, 2, oldVa, rkey, 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, f.await(f.cqA).status(), "the old address is outside the region");
        }
    }

    @Test
    void aPdChangeKeepsTheKeysAndOnlyQpsOfTheNewPdMayUseTheRegion() {
        try (RcFixture f = new RcFixture(4524)) {
            ProtectionDomain other = f.b.allocPd();
            ByteBuffer mem = ByteBuffer.allocateDirect(8192);
            MemoryRegion mr = f.pdB.registerMemory(mem, RW);
            int rkey = mr.rkey();
            mr.reregister(MemoryRegion.REREG_CHANGE_PD, other, null, 0, 0, 0);
            assertEquals(rkey, mr.rkey());
            assertTrue(mr.pd() == other);
            f.qpA.postSend(write(f, 1, mr.address(), rkey, 8));
            assertEquals(WcStatus.REM_ACCESS_ERR, f.await(f.cqA).status(),
                    "the R_Key check: the region is no longer in the PD of B's QP");
            IllegalStateException inUse = assertThrows(IllegalStateException.class, other::close);
            assertTrue(inUse.getMessage().contains("in use"), inUse.getMessage());
            // A QP in the new PD may use it.
            CompletionQueue cq = f.b.createCq(16);
            QueuePair qpB2 = other.createQp(QpInitAttributes.rc(cq, cq));
            QueuePair qpA2 = f.pdA.createQp(QpInitAttributes.rc(f.cqA, f.cqA));
            Connections.connectPair(qpA2, f.mrA, 50, qpB2, null, 60, RcOptions.defaults());
            SimPair.fill(f.bufA, 0, 8, 2);
            qpA2.postSend(write(f, 2, mr.address(), rkey, 8));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertTrue(SimPair.same(f.bufA, 0, mem, 0, 8));
            mr.reregister(MemoryRegion.REREG_CHANGE_PD, f.pdB, null, 0, 0, 0);
            qpB2.close();
            other.close(); // released by the move back: the old PD no longer counts the region
        }
    }

    @Test
    void refusedWhileAWindowIsBoundAndUnchanged() {
        try (RcFixture f = new RcFixture(4525)) {
            MemoryRegion mr = f.pdB.registerMemory(ByteBuffer.allocateDirect(8192),
                    AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
            MemoryWindow mw = f.pdB.allocMw(1);
            f.qpB.bindMw(5, true, mw, mr, mr.address(), 4096, AccessFlags.REMOTE_WRITE);
            assertEquals(WcStatus.SUCCESS, f.await(f.cqB).status());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> mr.reregister(
                    MemoryRegion.REREG_CHANGE_ACCESS, null, null, 0, 0, AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND
                            | AccessFlags.REMOTE_READ));
            assertTrue(e.getMessage().contains("window"), e.getMessage());
            assertEquals(AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND, mr.access(), "unchanged");
            f.qpA.postSend(write(f, 1, mr.address(), mw.rkey(), 8));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status(), "the window still grants its rights");
            f.qpB.bindMw(6, true, mw, mr, 0, 0, 0); // unbind
            assertEquals(WcStatus.SUCCESS, f.await(f.cqB).status());
            mr.reregister(MemoryRegion.REREG_CHANGE_ACCESS, null, null, 0, 0, AccessFlags.LOCAL_WRITE);
            assertEquals(AccessFlags.LOCAL_WRITE, mr.access());
        }
    }

    @Test
    void invalidArgumentsAreRefusedAndChangeNothing() {
        try (RcFixture f = new RcFixture(4526); RcFixture g = new RcFixture(4527)) {
            MemoryRegion mr = f.pdB.registerMemory(ByteBuffer.allocateDirect(8192), RW);
            int key = mr.rkey();
            long va = mr.address();
            IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                    () -> mr.reregister(0, null, null, 0, 0, 0));
            assertTrue(none.getMessage().contains("0x0"), none.getMessage());
            assertThrows(IllegalArgumentException.class, () -> mr.reregister(8, null, null, 0, 0, 0));
            NullPointerException pd = assertThrows(NullPointerException.class,
                    () -> mr.reregister(MemoryRegion.REREG_CHANGE_PD, null, null, 0, 0, 0));
            assertEquals("pd", pd.getMessage());
            NullPointerException buf = assertThrows(NullPointerException.class,
                    () -> mr.reregister(MemoryRegion.REREG_CHANGE_TRANSLATION, null, null, 0, 16, 0));
            assertEquals("buffer", buf.getMessage());
            IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
                    () -> mr.reregister(MemoryRegion.REREG_CHANGE_PD, g.pdB, null, 0, 0, 0));
            assertTrue(foreign.getMessage().contains("another device"), foreign.getMessage());
            IllegalArgumentException rights = assertThrows(IllegalArgumentException.class,
                    () -> mr.reregister(MemoryRegion.REREG_CHANGE_ACCESS, null, null, 0, 0, AccessFlags.REMOTE_WRITE));
            assertTrue(rights.getMessage().contains("LOCAL_WRITE"), rights.getMessage());
            IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
                    () -> mr.reregister(MemoryRegion.REREG_CHANGE_TRANSLATION, null, ByteBuffer.allocate(100), 50, 100, 0));
            assertTrue(outside.getMessage().contains("outside the buffer"), outside.getMessage());
            assertEquals(key, mr.rkey());
            assertEquals(va, mr.address());
            assertEquals(RW, mr.access());
            f.qpA.postSend(write(f, 1, va, key, 8));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status(), "still registered as before");
            mr.close();
            IllegalStateException closed = assertThrows(IllegalStateException.class,
                    () -> mr.reregister(MemoryRegion.REREG_CHANGE_ACCESS, null, null, 0, 0, RW));
            assertTrue(closed.getMessage().contains("deregistered"), closed.getMessage());
        }
    }
}
