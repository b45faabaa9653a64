package io.rnic.verbs;

import static io.rnic.verbs.LossRecoveryTest.MTU;
import static io.rnic.verbs.LossRecoveryTest.PSN_A;
import static io.rnic.verbs.LossRecoveryTest.ab;
import static io.rnic.verbs.LossRecoveryTest.ba;
import static io.rnic.verbs.LossRecoveryTest.fixture;
import static io.rnic.verbs.LossRecoveryTest.read;
import static io.rnic.verbs.LossRecoveryTest.send;
import static io.rnic.verbs.LossRecoveryTest.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.fault.Faults;
import io.rnic.transport.fault.PacketMatch;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The contract of the receive-window and response-window seams (go-back-N, the reorder buffer,
 * the extended protocol): whatever a mode does with packets ahead of their turn, the application
 * sees RC's guarantees, and a request that fails its checks touches no memory even when it
 * arrived early. Every test runs against every {@link LossRecovery} mode.
 */
class LossRecoveryContractTest {

    @ParameterizedTest
    @EnumSource(LossRecovery.class)
    void reorderedRequestsCompleteInPostingOrderWithExactData(LossRecovery mode) {
        try (RcFixture f = fixture(30, mode)) {
            ab(f).fault(Faults.delayPastNext(PacketMatch.psn(-1, PSN_A + 1)));
            RcFixture.fill(f.bufA, 0, 4 * MTU, 30);
            f.postA(write(f, 1, 0, 2 * MTU));
            f.postA(write(f, 2, 2 * MTU, 2 * MTU));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(List.of(1L, 2L), wcs.stream().map(WorkCompletion::wrId).toList());
            assertTrue(wcs.stream().allMatch(w -> w.status() == WcStatus.SUCCESS));
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 4 * MTU));
        }
    }

    @ParameterizedTest
    @EnumSource(LossRecovery.class)
    void aLostRequestAndALostResponseAreBothRecovered(LossRecovery mode) {
        try (RcFixture f = fixture(31, mode)) {
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A + 2));
            ba(f).fault(Faults.dropPsnOnce(-1, PSN_A + 8));
            RcFixture.fill(f.bufA, 0, 6 * MTU, 31);
            RcFixture.fill(f.bufB, 100_000, 4 * MTU, 32);
            f.postA(write(f, 1, 0, 6 * MTU));
            f.postA(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address() + 100_000, 4 * MTU, f.mrA.lkey()).rdma(f.mrB.address() + 100_000, f.mrB.rkey()));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(List.of(1L, 2L), wcs.stream().map(WorkCompletion::wrId).toList());
            assertTrue(wcs.stream().allMatch(w -> w.status() == WcStatus.SUCCESS), wcs.toString());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 6 * MTU));
            assertTrue(RcFixture.same(f.bufB, 100_000, f.bufA, 100_000, 4 * MTU));
        }
    }

    @ParameterizedTest
    @EnumSource(LossRecovery.class)
    void aRequestFailingItsAccessCheckTouchesNoMemoryEvenWhenItArrivesEarly(LossRecovery mode) {
        try (RcFixture f = fixture(32, mode)) {
            ByteBuffer readOnly = ByteBuffer.allocateDirect(4 * MTU);
            MemoryRegion ro = f.pdB.registerMemory(readOnly, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A)); // the WRITE before it: the bad one is early
            RcFixture.fill(f.bufA, 0, 4 * MTU, 33);
            f.postA(write(f, 1, 0, MTU));
            f.postA(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(f.mrA.address(), 2 * MTU, f.mrA.lkey()).rdma(ro.address(), ro.rkey()));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
            assertEquals(WcStatus.REM_ACCESS_ERR, wcs.get(1).status(), "the access error, in its turn");
            for (int i = 0; i < 4 * MTU; i++) {
                assertEquals(0, readOnly.get(i), "byte " + i + " of a region without REMOTE_WRITE was written");
            }
            assertEquals(0, io.rnic.core.hca.HcaAccess.of(f.b).reorderBytesHeld());
        }
    }

    @ParameterizedTest
    @EnumSource(LossRecovery.class)
    void aSendThatFindsNoReceiveWqeInItsTurnIsRnrNakedAndRetried(LossRecovery mode) {
        try (RcFixture f = fixture(33, mode)) {
            ab(f).fault(Faults.dropPsnOnce(-1, PSN_A));
            RcFixture.fill(f.bufA, 0, 3 * MTU, 34);
            f.postA(write(f, 1, 0, MTU));
            f.postA(send(f, 2, MTU, 2 * MTU)); // arrives ahead of the lost WRITE, with no receive posted
            f.net.scheduler().runFor(3_000_000);
            assertTrue(f.b.counters().get(Counter.SEND_RNR_ERR) > 0, f.b.counters().toString());
            f.postRecvB(f.recvB(7, 200_000, 4096));
            List<WorkCompletion> wcs = f.await(f.cqA, 2);
            assertTrue(wcs.stream().allMatch(w -> w.status() == WcStatus.SUCCESS), wcs.toString());
            WorkCompletion r = f.await(f.cqB);
            assertEquals(7, r.wrId());
            assertEquals(2 * MTU, r.byteLen());
            assertTrue(RcFixture.same(f.bufA, MTU, f.bufB, 200_000, 2 * MTU));
        }
    }

    @ParameterizedTest
    @EnumSource(LossRecovery.class)
    void aReadAndTheAtomicsAroundItAreExecutedOnceAndCompleteInOrder(LossRecovery mode) {
        try (RcFixture f = fixture(34, mode)) {
            ba(f).fault(Faults.dropPsnOnce(-1, PSN_A + 1)); // the atomic's answer
            ba(f).fault(Faults.dropPsnOnce(-1, PSN_A + 3)); // the READ's second response
            RcFixture.fill(f.bufB, 300_000, 4 * MTU, 35);
            ByteBuffer remote = f.bufB.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
            remote.putLong(8, 0);
            SendWorkRequest faa = new SendWorkRequest().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(f.mrA.address() + 64, 8, f.mrA.lkey()).atomic(f.mrB.address() + 8, f.mrB.rkey(), 5, 0);
            f.postA(write(f, 1, 0, 8));
            f.postA(faa.wrId(2));
            f.postA(read(f, 3, 300_000, 4 * MTU));
            f.postA(new SendWorkRequest().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true).wrId(4)
                    .sge(f.mrA.address() + 72, 8, f.mrA.lkey()).atomic(f.mrB.address() + 8, f.mrB.rkey(), 5, 0));
            List<WorkCompletion> wcs = f.await(f.cqA, 4);
            assertEquals(List.of(1L, 2L, 3L, 4L), wcs.stream().map(WorkCompletion::wrId).toList());
            assertTrue(wcs.stream().allMatch(w -> w.status() == WcStatus.SUCCESS), wcs.toString());
            assertEquals(10, remote.getLong(8), "each FETCH_ADD executed exactly once");
            assertEquals(2, f.b.counters().get(Counter.ATOMICS_EXECUTED));
            assertTrue(RcFixture.same(f.bufB, 300_000, f.bufA, 300_000, 4 * MTU));
        }
    }
}
