package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every RC operation on a clean simulated link: data and completions on both sides. */
class RcOperationsTest {

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 64, 1023, 1024, 1025, 10 * 1024, 65536})
    void sendDeliversEveryByteAndCompletesBothSides(int len) {
        try (RcFixture f = new RcFixture(1)) {
            RcFixture.fill(f.bufA, 0, len, 3);
            f.qpB.postRecv(new RecvWorkRequest().wrId(77).sge(f.mrB.address() + 4096, 70_000, f.mrB.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(5).opcode(WrOpcode.SEND).signaled(true)
                    .sge(f.mrA.address(), len, f.mrA.lkey()));
            WorkCompletion rwc = f.await(f.cqB);
            assertEquals(WcStatus.SUCCESS, rwc.status(), rwc.toString());
            assertEquals(WcOpcode.RECV, rwc.opcode());
            assertEquals(77, rwc.wrId());
            assertEquals(len, rwc.byteLen());
            assertEquals(f.qpB.qpn(), rwc.qpNum());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 4096, len));
            WorkCompletion swc = f.await(f.cqA);
            assertEquals(WcStatus.SUCCESS, swc.status(), swc.toString());
            assertEquals(WcOpcode.SEND, swc.opcode());
            assertEquals(5, swc.wrId());
        }
    }

    @Test
    void sendWithImmediateCarriesTheImmediateVerbatim() {
        try (RcFixture f = new RcFixture(2)) {
            f.qpB.postRecv(new RecvWorkRequest().wrId(1).sge(f.mrB.address(), 4096, f.mrB.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).imm(0xCAFEBABE).signaled(true)
                    .sge(f.mrA.address(), 100, f.mrA.lkey()));
            WorkCompletion rwc = f.await(f.cqB);
            assertEquals(WcStatus.SUCCESS, rwc.status());
            assertEquals(0xCAFEBABE, rwc.immData());
            assertEquals(WorkCompletion.WITH_IMM, rwc.wcFlags() & WorkCompletion.WITH_IMM);
            assertEquals(100, rwc.byteLen());
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
        }
    }

    @Test
    void rdmaWriteLandsAtTheRemoteAddressWithoutAReceiveCompletion() {
        try (RcFixture f = new RcFixture(3)) {
            int len = 10 * 1024 + 7;
            RcFixture.fill(f.bufA, 100, len, 9);
            f.qpA.postSend(new SendWorkRequest().wrId(9).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(f.mrA.address() + 100, len, f.mrA.lkey()).rdma(f.mrB.address() + 5000, f.mrB.rkey()));
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
            assertTrue(RcFixture.same(f.bufA, 100, f.bufB, 5000, len));
            f.settle();
            assertEquals(0, f.cqB.size(), "a plain WRITE is invisible to the responder's CQ");
        }
    }

    @Test
    void rdmaWriteWithImmediateConsumesAReceiveAndReportsTheLength() {
        try (RcFixture f = new RcFixture(4)) {
            f.qpB.postRecv(new RecvWorkRequest().wrId(40));
            RcFixture.fill(f.bufA, 0, 3000, 1);
            f.qpA.postSend(new SendWorkRequest().wrId(41).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).imm(0x01020304).signaled(true)
                    .sge(f.mrA.address(), 3000, f.mrA.lkey()).rdma(f.mrB.address(), f.mrB.rkey()));
            WorkCompletion rwc = f.await(f.cqB);
            assertEquals(WcStatus.SUCCESS, rwc.status(), rwc.toString());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, rwc.opcode());
            assertEquals(3000, rwc.byteLen());
            assertEquals(0x01020304, rwc.immData());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 3000));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
        }
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 8, 1024, 10 * 1024, 100_000})
    void rdmaReadFetchesRemoteMemory(int len) {
        try (RcFixture f = new RcFixture(5)) {
            RcFixture.fill(f.bufB, 2048, len, 77);
            f.qpA.postSend(new SendWorkRequest().wrId(50).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address() + 64, len, f.mrA.lkey()).rdma(f.mrB.address() + 2048, f.mrB.rkey()));
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(WcOpcode.RDMA_READ, wc.opcode());
            assertEquals(len, wc.byteLen());
            assertTrue(RcFixture.same(f.bufB, 2048, f.bufA, 64, len));
        }
    }

    @Test
    void compareAndSwapAndFetchAndAddReturnTheOriginalValue() {
        try (RcFixture f = new RcFixture(6)) {
            ByteBuffer b = f.bufB.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            b.putLong(512, 100);
            f.qpA.postSend(new SendWorkRequest().wrId(60).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                    .sge(f.mrA.address(), 8, f.mrA.lkey()).atomic(f.mrB.address() + 512, f.mrB.rkey(), 100, 555));
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(WcOpcode.COMP_SWAP, wc.opcode());
            ByteBuffer a = f.bufA.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(100, a.getLong(0), "the original value comes back");
            assertEquals(555, b.getLong(512), "compare matched: swapped");

            f.qpA.postSend(new SendWorkRequest().wrId(61).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                    .sge(f.mrA.address(), 8, f.mrA.lkey()).atomic(f.mrB.address() + 512, f.mrB.rkey(), 1, 999));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
            assertEquals(555, a.getLong(0));
            assertEquals(555, b.getLong(512), "compare failed: unchanged");

            f.qpA.postSend(new SendWorkRequest().wrId(62).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(f.mrA.address() + 8, 8, f.mrA.lkey()).atomic(f.mrB.address() + 512, f.mrB.rkey(), 45, 0));
            WorkCompletion fa = f.await(f.cqA);
            assertEquals(WcOpcode.FETCH_ADD, fa.opcode());
            assertEquals(555, a.getLong(8));
            assertEquals(600, b.getLong(512));
        }
    }

    @ParameterizedTest(name = "MTU {0}")
    @ValueSource(ints = {256, 512, 1024, 2048, 4096})
    void everyPathMtuSegmentsSendWriteAndRead(int mtu) {
        RcOptions o = RcOptions.defaults().withMtu(io.rnic.verbs.PathMtu.ofBytes(mtu));
        try (RcFixture f = new RcFixture(7, o, 11, 22)) {
            int len = 5 * mtu + 3;
            RcFixture.fill(f.bufA, 0, len, mtu);
            RcFixture.fill(f.bufB, 300_000, len, mtu + 1);
            f.qpB.postRecv(new RecvWorkRequest().wrId(1).sge(f.mrB.address() + 100_000, len, f.mrB.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(f.mrA.address(), len, f.mrA.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(f.mrA.address(), len, f.mrA.lkey()).rdma(f.mrB.address() + 200_000, f.mrB.rkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address() + 400_000, len, f.mrA.lkey()).rdma(f.mrB.address() + 300_000, f.mrB.rkey()));
            assertEquals(len, f.await(f.cqB).byteLen());
            for (WorkCompletion wc : f.await(f.cqA, 3)) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            }
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 100_000, len));
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 200_000, len));
            assertTrue(RcFixture.same(f.bufB, 300_000, f.bufA, 400_000, len));
            // six packets each way for the SEND and the WRITE, six READ responses
            assertEquals(6 + 6 + 1, f.a.counters().get(io.rnic.verbs.Counter.SENT_PKTS));
        }
    }
}
