package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketFields;
import io.rnic.transport.fault.Faults;
import io.rnic.transport.fault.PacketMatch;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * IBTA 1.5's ATOMIC WRITE (RC 0x1D) and FLUSH (RC 0x1C), with Linux rxe (6.2 and later) for what
 * the specification leaves open (reference §2.11, §2.12): both are answered by a READ RESPONSE
 * ONLY without data at the request's PSN, take a responder resource and count against
 * max_rd_atomic; ATOMIC WRITE needs REMOTE_WRITE, FLUSH the FLUSH_GLOBAL / FLUSH_PERSISTENT access
 * its placement type names, of the QP and of the region; duplicates are answered, not executed.
 * The scenarios of rdma-core's test_qpex.py (test_qp_ex_rc_atomic_write, test_qp_ex_rc_flush,
 * test_qp_ex_rc_flush_type_violate) are among them.
 */
class AtomicWriteFlushTest {
    static final int PSN_A = 0x300;
    static final int FLUSH_QP = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC
            | AccessFlags.FLUSH_GLOBAL | AccessFlags.FLUSH_PERSISTENT;

    @TempDir
    Path tmp;

    private static RcFixture rc(long seed) {
        return new RcFixture(seed, RcOptions.defaults().withAccess(FLUSH_QP), PSN_A, 0x900);
    }

    private static SendWorkRequest atomicWrite(RcFixture f, long id, long value, long remote, int rkey) {
        f.bufA.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(64, value);
        return new SendWorkRequest().wrId(id).signaled(true).sge(f.mrA.address() + 64, 8, f.mrA.lkey())
                .atomicWrite(remote, rkey);
    }

    private static long remoteLong(RcFixture f, int offset) {
        return f.bufB.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(offset);
    }

    @Test
    void atomicWritePlacesItsEightBytesVerbatimAndIsAnsweredByAReadResponseWithoutData() {
        try (RcFixture f = rc(1)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            f.postA(atomicWrite(f, 1, 0x1122334455667788L, f.mrB.address() + 4096, f.mrB.rkey()));
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(WcOpcode.ATOMIC_WRITE, wc.opcode());
            assertEquals(8, wc.byteLen());
            assertEquals(0x1122334455667788L, remoteLong(f, 4096), "the bytes as they were in A's memory");
            assertEquals("RC_ATOMIC_WRITE@" + PSN_A, sentA.get(0).toString());
            assertEquals("RC_RDMA_READ_RESPONSE_ONLY@" + PSN_A, sentB.get(0).toString().replaceAll("/.*", ""), "its PSN");
            assertEquals(0, sentB.get(0).syndrome() & 0x60, "an ACK syndrome");
            assertEquals(1, f.b.counters().get(Counter.ATOMIC_WRITES_EXECUTED));
        }
    }

    @Test
    void atomicWriteNeedsRemoteWriteOnTheRegionNotRemoteAtomic() { // rdma-core test_qp_ex_rc_atomic_write
        try (RcFixture f = rc(2)) {
            ByteBuffer w = ByteBuffer.allocateDirect(4096);
            MemoryRegion writable = f.pdB.registerMemory(w, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            f.postA(atomicWrite(f, 1, 0x6363636363636363L, writable.address(), writable.rkey()));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertEquals(0x63, w.get(7));
            ByteBuffer a = ByteBuffer.allocateDirect(4096);
            MemoryRegion atomicOnly = f.pdB.registerMemory(a, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_ATOMIC);
            f.postA(atomicWrite(f, 2, -1L, atomicOnly.address(), atomicOnly.rkey()));
            assertEquals(WcStatus.REM_ACCESS_ERR, f.await(f.cqA).status());
            assertEquals(0, a.getLong(0), "untouched");
        }
    }

    @Test
    void atomicWriteOnAQpWithoutRemoteWriteIsAnInvalidRequest() {
        try (RcFixture f = new RcFixture(3, RcOptions.defaults().withAccess(AccessFlags.REMOTE_ATOMIC), PSN_A, 0x900)) {
            f.postA(atomicWrite(f, 1, 5, f.mrB.address(), f.mrB.rkey()));
            assertEquals(WcStatus.REM_INV_REQ_ERR, f.await(f.cqA).status());
            assertEquals(0, remoteLong(f, 0));
        }
    }

    @Test
    void aMisalignedAtomicWriteIsRefusedAtPostAndAnsweredInvalidRequestWhenCrafted() {
        try (RcFixture f = rc(4)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> f.postA(atomicWrite(f, 1, 5, f.mrB.address() + 4, f.mrB.rkey())));
            assertTrue(e.getMessage().contains("not 8-byte aligned"), e.getMessage());
            var sentB = Wiretap.sent(f.wireB);
            PacketFields aw = f.packet("RC_ATOMIC_WRITE");
            aw.destQp = f.qpB.qpn();
            aw.psn = PSN_A;
            aw.ackReq = true;
            aw.rethVa = f.mrB.address() + 4;
            aw.rethRkey = f.mrB.rkey();
            aw.rethLength = 8;
            aw.payload(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            Wiretap.inject(f.wireA, f.qpA.sourcePort(), f.wireB, aw);
            f.settle();
            assertEquals(0x60 | AethSyndrome.NAK_INVALID_REQUEST, sentB.get(0).syndrome());
            assertEquals(0, remoteLong(f, 0));
            assertEquals(0, f.b.counters().get(Counter.ATOMIC_WRITES_EXECUTED));
        }
    }

    @Test
    void aDuplicateAtomicWriteIsAnsweredWithoutWritingAgain() {
        try (RcFixture f = rc(5)) {
            f.net.direction(f.wireB, f.wireA).fault(Faults.dropFirst(
                    PacketMatch.opcode(OpcodeTable.byName("RC_RDMA_READ_RESPONSE_ONLY").code()), 1));
            f.postA(atomicWrite(f, 1, 42, f.mrB.address(), f.mrB.rkey()));
            f.net.scheduler().runUntil(() -> remoteLong(f, 0) == 42, 1_000_000_000L);
            f.bufB.putLong(0, 0); // the application changes it before the retry arrives
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertEquals(0, remoteLong(f, 0), "the retry was answered, not executed again");
            assertEquals(1, f.b.counters().get(Counter.ATOMIC_WRITES_EXECUTED));
            assertEquals(1, f.b.counters().get(Counter.DUPLICATE_REQUEST));
        }
    }

    @Test
    void atomicWriteAndFlushCountAgainstMaxRdAtomicAndNeedResponderResources() {
        try (RcFixture f = new RcFixture(6, RcOptions.defaults().withAccess(FLUSH_QP).withRdAtomic(1, 1), PSN_A, 0x900)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            MemoryRegion mr = flushable(f, AccessFlags.FLUSH_GLOBAL);
            f.postA(atomicWrite(f, 1, 1, mr.address(), mr.rkey()));
            f.postA(new SendWorkRequest().wrId(2).signaled(true).flush(mr.address(), mr.rkey(), 64,
                    SendWorkRequest.FLUSH_GLOBAL, SendWorkRequest.FLUSH_RANGE));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status(), wcs.get(1).toString());
            assertTrue(sentA.get(1).at() >= sentB.get(0).at(), "with max_rd_atomic 1 the FLUSH waits for the answer");
        }
        try (RcFixture f = new RcFixture(7, RcOptions.defaults().withAccess(FLUSH_QP).withRdAtomic(1, 0), PSN_A, 0x900)) {
            f.postA(atomicWrite(f, 1, 1, f.mrB.address(), f.mrB.rkey()));
            assertEquals(WcStatus.REM_INV_REQ_ERR, f.await(f.cqA).status(), "max_dest_rd_atomic 0: no resource");
        }
    }

    private MemoryRegion flushable(RcFixture f, int extra) {
        return f.pdB.registerMemory(ByteBuffer.allocateDirect(1024), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
                | extra);
    }

    @Test
    void flushAnswersAfterTheWritesBeforeItAndCompletesWithItsLength() { // rdma-core test_qp_ex_rc_flush
        try (RcFixture f = rc(8)) {
            var sentA = Wiretap.sent(f.wireA);
            var sentB = Wiretap.sent(f.wireB);
            MemoryRegion mr = flushable(f, AccessFlags.FLUSH_GLOBAL);
            SimPair.fill(f.bufA, 0, 1024, 3);
            f.postA(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(f.mrA.address(), 1024, f.mrA.lkey())
                    .rdma(mr.address(), mr.rkey()));
            f.postA(new SendWorkRequest().wrId(2).signaled(true).flush(mr.address(), mr.rkey(), 1024,
                    SendWorkRequest.FLUSH_GLOBAL, SendWorkRequest.FLUSH_RANGE));
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(2, wc.wrId());
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(WcOpcode.FLUSH, wc.opcode());
            assertEquals(1024, wc.byteLen());
            assertEquals(List.of("RC_RDMA_WRITE_ONLY", "RC_FLUSH"), sentA.stream().map(Wiretap.Seen::opcode).toList());
            // The unsignaled WRITE, followed at once by the FLUSH, asks for no ACK: the FLUSH's
            // answer acknowledges it too (an answer covers every earlier PSN, reference §5.3).
            assertEquals(List.of(false, true), sentA.stream().map(Wiretap.Seen::ackReq).toList());
            assertEquals(List.of("RC_RDMA_READ_RESPONSE_ONLY"),
                    sentB.stream().map(Wiretap.Seen::opcode).toList(), "the FLUSH's answer, after the WRITE");
            assertEquals(1, f.b.counters().get(Counter.FLUSHES_EXECUTED));
        }
    }

    @Test
    void aFlushOfTheWholeRegionIgnoresTheRangeItsRethCarries() { // test_qp_ex_rc_flush, SEL = MR
        try (RcFixture f = rc(9)) {
            MemoryRegion mr = flushable(f, AccessFlags.FLUSH_GLOBAL);
            for (long len : new long[] {0, 12_345_678}) {
                f.postA(new SendWorkRequest().wrId(len).signaled(true).flush(0xDEAD_0000L, mr.rkey(), len,
                        SendWorkRequest.FLUSH_GLOBAL, SendWorkRequest.FLUSH_MR));
                assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            }
        }
    }

    @Test
    void aFlushToPersistenceOfARegionThatGrantsOnlyGlobalVisibilityIsARemoteAccessError() { // ..._flush_type_violate
        try (RcFixture f = rc(10)) {
            MemoryRegion mr = flushable(f, AccessFlags.FLUSH_GLOBAL);
            f.postA(new SendWorkRequest().wrId(1).signaled(true).flush(mr.address(), mr.rkey(), 1024,
                    SendWorkRequest.FLUSH_PERSISTENT, SendWorkRequest.FLUSH_RANGE));
            assertEquals(WcStatus.REM_ACCESS_ERR, f.await(f.cqA).status());
            assertEquals(0, f.b.counters().get(Counter.FLUSHES_EXECUTED));
        }
    }

    @Test
    void aFlushOnAQpWithoutTheFlushAccessItsPlacementNeedsIsAnInvalidRequest() {
        try (RcFixture f = new RcFixture(11, RcOptions.defaults().withAccess(AccessFlags.REMOTE_WRITE
                | AccessFlags.FLUSH_PERSISTENT), PSN_A, 0x900)) {
            MemoryRegion mr = flushable(f, AccessFlags.FLUSH_GLOBAL);
            f.postA(new SendWorkRequest().wrId(1).signaled(true).flush(mr.address(), mr.rkey(), 8,
                    SendWorkRequest.FLUSH_GLOBAL, SendWorkRequest.FLUSH_RANGE));
            assertEquals(WcStatus.REM_INV_REQ_ERR, f.await(f.cqA).status());
        }
    }

    @Test
    void aFlushRangeOutsideTheRegionIsARemoteAccessError() {
        try (RcFixture f = rc(12)) {
            MemoryRegion mr = flushable(f, AccessFlags.FLUSH_GLOBAL);
            f.postA(new SendWorkRequest().wrId(1).signaled(true).flush(mr.address() + 1000, mr.rkey(), 100,
                    SendWorkRequest.FLUSH_GLOBAL, SendWorkRequest.FLUSH_RANGE));
            assertEquals(WcStatus.REM_ACCESS_ERR, f.await(f.cqA).status());
        }
    }

    @Test
    void flushToPersistenceNeedsMemoryThatCanPersistAndForcesTheMappedFile() throws Exception {
        try (RcFixture f = rc(13)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> flushable(f, AccessFlags.FLUSH_PERSISTENT));
            assertTrue(e.getMessage().contains("persist"), e.getMessage());
            Path file = tmp.resolve("pmem");
            MappedByteBuffer map;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                map = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096);
            }
            MemoryRegion pmem = f.pdB.registerPersistentMemory(map, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
                    | AccessFlags.FLUSH_GLOBAL | AccessFlags.FLUSH_PERSISTENT);
            SimPair.fill(f.bufA, 0, 4096, 9);
            f.postA(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(f.mrA.address(), 4096, f.mrA.lkey())
                    .rdma(pmem.address(), pmem.rkey()));
            f.postA(new SendWorkRequest().wrId(2).signaled(true).flush(pmem.address(), pmem.rkey(), 4096,
                    SendWorkRequest.FLUSH_GLOBAL | SendWorkRequest.FLUSH_PERSISTENT, SendWorkRequest.FLUSH_RANGE));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            byte[] onDisk = Files.readAllBytes(file);
            assertTrue(SimPair.same(f.bufA, 0, ByteBuffer.wrap(onDisk), 0, 4096), "the file holds the WRITE's bytes");
        }
    }

    @Test
    void aDuplicateFlushIsAnsweredAgainNotExecutedAgain() {
        try (RcFixture f = rc(14)) {
            MemoryRegion mr = flushable(f, AccessFlags.FLUSH_GLOBAL);
            f.net.direction(f.wireB, f.wireA).fault(Faults.dropFirst(
                    PacketMatch.opcode(OpcodeTable.byName("RC_RDMA_READ_RESPONSE_ONLY").code()), 1));
            f.postA(new SendWorkRequest().wrId(1).signaled(true).flush(mr.address(), mr.rkey(), 64,
                    SendWorkRequest.FLUSH_GLOBAL, SendWorkRequest.FLUSH_RANGE));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertEquals(1, f.b.counters().get(Counter.FLUSHES_EXECUTED));
            assertEquals(1, f.b.counters().get(Counter.DUPLICATE_REQUEST));
        }
    }

    @Test
    void aFlushWithAReservedSelectivityIsAnInvalidRequest() {
        try (RcFixture f = rc(15)) {
            MemoryRegion mr = flushable(f, AccessFlags.FLUSH_GLOBAL);
            var sentB = Wiretap.sent(f.wireB);
            PacketFields fl = f.packet("RC_FLUSH");
            fl.destQp = f.qpB.qpn();
            fl.psn = PSN_A;
            fl.ackReq = true;
            fl.fethSelectivity = 2;
            fl.fethPlacement = 1;
            fl.rethVa = mr.address();
            fl.rethRkey = mr.rkey();
            fl.rethLength = 8;
            Wiretap.inject(f.wireA, f.qpA.sourcePort(), f.wireB, fl);
            f.settle();
            assertEquals(0x60 | AethSyndrome.NAK_INVALID_REQUEST, sentB.get(0).syndrome());
            assertEquals(0, f.b.counters().get(Counter.FLUSHES_EXECUTED));
        }
    }

    @Test
    void postingAFlushOrAnAtomicWriteTheyCannotCarryIsRefusedAndPostsNothing() {
        try (RcFixture f = rc(16)) {
            assertThrows(IllegalArgumentException.class, () -> f.postA(new SendWorkRequest().wrId(1)
                    .flush(f.mrB.address(), f.mrB.rkey(), 8, 0, SendWorkRequest.FLUSH_RANGE)), "no placement type");
            assertThrows(IllegalArgumentException.class, () -> f.postA(new SendWorkRequest().wrId(1)
                    .flush(f.mrB.address(), f.mrB.rkey(), 8, 1, 2)), "a reserved selectivity");
            assertThrows(IllegalArgumentException.class, () -> f.postA(new SendWorkRequest().wrId(1)
                    .sge(f.mrA.address(), 8, f.mrA.lkey()).flush(f.mrB.address(), f.mrB.rkey(), 8, 1, 0)), "an SGE");
            assertThrows(IllegalArgumentException.class, () -> f.postA(new SendWorkRequest().wrId(1)
                    .sge(f.mrA.address(), 16, f.mrA.lkey()).atomicWrite(f.mrB.address(), f.mrB.rkey())), "16 bytes");
            f.settle();
            assertEquals(0, f.a.counters().get(Counter.SENT_PKTS));
        }
        try (SimPair p = new SimPair(17)) {
            QueuePair uc = p.pdA.createQp(QpInitAttributes.uc(p.cqA, p.cqA));
            QueuePair ucB = p.pdB.createQp(QpInitAttributes.uc(p.cqB, p.cqB));
            Connections.connectPair(uc, p.mrA, 1, ucB, p.mrB, 2, RcOptions.defaults());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> uc.postSend(
                    new SendWorkRequest().flush(p.mrB.address(), p.mrB.rkey(), 8, 1, 0)));
            assertTrue(e.getMessage().contains("cannot be posted on a UC QP"), e.getMessage());
        }
    }

    @Test
    void atomicWriteAndFlushRunThroughXrcWithTheirXrcOpcodes() {
        try (RcFixture f = new RcFixture(18, RcOptions.defaults().withAccess(FLUSH_QP), PSN_A, 0x900, QpCaps.defaults(),
                true)) {
            var sentA = Wiretap.sent(f.wireA);
            MemoryRegion mr = flushable(f, AccessFlags.FLUSH_GLOBAL);
            f.postA(atomicWrite(f, 1, 77, mr.address(), mr.rkey()));
            f.postA(new SendWorkRequest().wrId(2).signaled(true).flush(mr.address(), mr.rkey(), 8,
                    SendWorkRequest.FLUSH_GLOBAL, SendWorkRequest.FLUSH_RANGE));
            f.await(f.cqA, 2).forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString()));
            assertEquals(List.of("XRC_ATOMIC_WRITE", "XRC_FLUSH"), sentA.stream().map(Wiretap.Seen::opcode).toList());
        }
    }
}
