package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Error cases of the RC transport: the NAK the reference names and the status on both sides. */
class RcErrorsTest {
    /** RcFixture's path MTU (RcOptions' default). */
    private static final int MTU = 1024;

    private static SendWorkRequest write(RcFixture f, long remoteAddr, int rkey, int len) {
        return new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(f.mrA.address(), len, f.mrA.lkey()).rdma(remoteAddr, rkey);
    }

    @Test
    void rkeyViolationIsNakedRemoteAccessErrorAndTouchesNoMemory() {
        try (RcFixture f = new RcFixture(10)) {
            RcFixture.fill(f.bufA, 0, 64, 1);
            f.qpA.postSend(write(f, f.mrB.address(), f.mrB.rkey() ^ 0x01, 64));
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status());
            assertEquals(QpState.ERR, f.qpA.state());
            assertEquals(QpState.ERR, f.qpB.state(), "a remote access error is a class C error at the responder");
            for (int i = 0; i < 64; i++) {
                assertEquals(0, f.bufB.get(i));
            }
            assertEquals(1, f.b.counters().get(Counter.NAKS_SENT));
        }
    }

    @Test
    void writeBeyondTheRegionIsRemoteAccessError() {
        try (RcFixture f = new RcFixture(11)) {
            f.qpA.postSend(write(f, f.mrB.address() + RcFixture.BUF - 10, f.mrB.rkey(), 64));
            assertEquals(WcStatus.REM_ACCESS_ERR, f.await(f.cqA).status());
        }
    }

    @Test
    void writeToARegionWithoutRemoteWriteIsRemoteAccessError() {
        try (RcFixture f = new RcFixture(12)) {
            MemoryRegion ro = f.pdB.registerMemory(ByteBuffer.allocate(4096), AccessFlags.REMOTE_READ);
            f.qpA.postSend(write(f, ro.address(), ro.rkey(), 64));
            assertEquals(WcStatus.REM_ACCESS_ERR, f.await(f.cqA).status());
        }
    }

    @Test
    void readOnAQpWithoutRemoteReadIsInvalidRequest() {
        try (RcFixture f = new RcFixture(13, RcOptions.defaults().withAccess(AccessFlags.REMOTE_WRITE), 1, 2)) {
            f.qpA.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address(), 64, f.mrA.lkey()).rdma(f.mrB.address(), f.mrB.rkey()));
            assertEquals(WcStatus.REM_INV_REQ_ERR, f.await(f.cqA).status());
        }
    }

    @Test
    void zeroLengthWriteNeedsNoValidRkey() {
        try (RcFixture f = new RcFixture(14)) {
            f.qpA.postSend(write(f, 0xDEAD0000L, 0x12345678, 0));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status(), "C9-88: zero-length transfers are not validated");
        }
    }

    @Test
    void sendLargerThanTheReceiveBufferIsLocLenErrAtTheResponderAndInvalidRequestAtTheRequester() {
        try (RcFixture f = new RcFixture(15)) {
            f.qpB.postRecv(new RecvWorkRequest().wrId(9).sge(f.mrB.address(), 100, f.mrB.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(8).opcode(WrOpcode.SEND).signaled(true)
                    .sge(f.mrA.address(), 2000, f.mrA.lkey()));
            WorkCompletion r = f.await(f.cqB);
            assertEquals(WcStatus.LOC_LEN_ERR, r.status());
            assertEquals(9, r.wrId());
            assertEquals(WcStatus.REM_INV_REQ_ERR, f.await(f.cqA).status());
        }
    }

    @Test
    void sendWithoutAReceiveIsRnrNakedAndRetriedUntilOneIsPosted() {
        try (RcFixture f = new RcFixture(16)) {
            f.qpA.postSend(new SendWorkRequest().wrId(8).opcode(WrOpcode.SEND).signaled(true)
                    .sge(f.mrA.address(), 100, f.mrA.lkey()));
            f.net.scheduler().runFor(5_000_000); // several RNR timer periods (0.64 ms each)
            assertTrue(f.b.counters().get(Counter.SEND_RNR_ERR) >= 2);
            assertEquals(f.b.counters().get(Counter.SEND_RNR_ERR), f.a.counters().get(Counter.RCVD_RNR_ERR));
            assertEquals(0, f.cqA.size());
            f.qpB.postRecv(new RecvWorkRequest().wrId(9).sge(f.mrB.address(), 100, f.mrB.lkey()));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqB).status());
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status());
        }
    }

    @Test
    void rnrRetryZeroFailsWithRnrRetryExceeded() {
        try (RcFixture f = new RcFixture(17, RcOptions.defaults().withRetry(14, 7, 0), 1, 2)) {
            f.qpA.postSend(new SendWorkRequest().wrId(8).opcode(WrOpcode.SEND).signaled(true)
                    .sge(f.mrA.address(), 100, f.mrA.lkey()));
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, f.await(f.cqA).status());
            assertEquals(1, f.a.counters().get(Counter.RETRY_RNR_EXCEEDED_ERR));
        }
    }

    @Test
    void aBadLocalKeyIsLocalProtectionError() {
        try (RcFixture f = new RcFixture(18)) {
            f.qpA.postSend(new SendWorkRequest().wrId(8).opcode(WrOpcode.SEND).signaled(true)
                    .sge(f.mrA.address(), 100, f.mrA.lkey() + 0x100));
            assertEquals(WcStatus.LOC_PROT_ERR, f.await(f.cqA).status());
            assertEquals(QpState.ERR, f.qpA.state());
        }
    }

    @Test
    void anErrorFlushesEveryLaterWorkRequestEvenUnsignaledOnes() {
        try (RcFixture f = new RcFixture(19)) {
            f.qpB.postRecv(new RecvWorkRequest().wrId(100).sge(f.mrB.address(), 100, f.mrB.lkey()));
            f.qpA.postRecv(new RecvWorkRequest().wrId(200).sge(f.mrA.address(), 100, f.mrA.lkey()));
            f.qpA.postSend(write(f, f.mrB.address(), 0x0BAD0000, 64).wrId(1));
            f.qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(false)
                    .sge(f.mrA.address(), 8, f.mrA.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.SEND).signaled(true)
                    .sge(f.mrA.address(), 8, f.mrA.lkey()));
            List<WorkCompletion> wcs = f.await(f.cqA, 4);
            assertEquals(WcStatus.REM_ACCESS_ERR, wcs.get(0).status());
            assertEquals(1, wcs.get(0).wrId());
            List<Long> flushed = new ArrayList<>();
            for (WorkCompletion wc : wcs.subList(1, 4)) {
                assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), wc.toString());
                flushed.add(wc.wrId());
            }
            assertTrue(flushed.containsAll(List.of(2L, 3L, 200L)), flushed.toString());
            // Work posted in ERR completes at once, flushed.
            f.qpA.postRecv(new RecvWorkRequest().wrId(300));
            assertEquals(WcStatus.WR_FLUSH_ERR, f.await(f.cqA).status());
        }
    }

    @Test
    void unsignaledSuccessfulSendsProduceNoCompletion() {
        try (RcFixture f = new RcFixture(20)) {
            for (int i = 0; i < 3; i++) {
                f.qpB.postRecv(new RecvWorkRequest().wrId(i).sge(f.mrB.address(), 100, f.mrB.lkey()));
            }
            f.qpA.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).sge(f.mrA.address(), 8, f.mrA.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).sge(f.mrA.address(), 8, f.mrA.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.SEND).signaled(true).sge(f.mrA.address(), 8, f.mrA.lkey()));
            f.await(f.cqB, 3);
            WorkCompletion wc = f.await(f.cqA);
            assertEquals(3, wc.wrId());
            f.settle();
            assertEquals(0, f.cqA.size());
        }
    }

    @Test
    void psnsWrapFrom0xFFFFFFTo0OnBothSides() {
        try (RcFixture f = new RcFixture(21, RcOptions.defaults(), 0xFFFFF0, 0xFFFFFA)) {
            for (int i = 0; i < 20; i++) {
                f.qpB.postRecv(new RecvWorkRequest().wrId(i).sge(f.mrB.address() + 16384L * i, 16384, f.mrB.lkey()));
                f.qpA.postRecv(new RecvWorkRequest().wrId(i).sge(f.mrA.address() + 16384L * i, 16384, f.mrA.lkey()));
            }
            for (int i = 0; i < 20; i++) {
                RcFixture.fill(f.bufA, 400_000 + 10_000 * i, 10_000, i);
                f.qpA.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND).signaled(true)
                        .sge(f.mrA.address() + 400_000 + 10_000L * i, 10_000, f.mrA.lkey()));
                f.qpB.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_READ).signaled(true)
                        .sge(f.mrB.address() + 600_000, 3000, f.mrB.lkey()).rdma(f.mrA.address(), f.mrA.rkey()));
            }
            List<WorkCompletion> a = f.await(f.cqA, 20);
            a.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString()));
            List<WorkCompletion> b = f.await(f.cqB, 40);
            b.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString()));
            for (int i = 0; i < 20; i++) {
                assertTrue(RcFixture.same(f.bufA, 400_000 + 10_000 * i, f.bufB, 16384 * i, 10_000), "message " + i);
            }
        }
    }

    /**
     * A peer cannot revoke an ordinary registered region (issue 12, defect 1): remote invalidation
     * applies to memory windows and fast-registered regions only, as rxe's rxe_invalidate_mr
     * enforces. The region stays; the receive completes with REM_INV_REQ_ERR and the responder's
     * QP goes to ERR, while the message itself, delivered, is acknowledged (rxe).
     */
    @Test
    void sendWithInvalidateOfAnOrdinaryRegionIsRefusedAndTheRegionStays() {
        try (RcFixture f = new RcFixture(22)) {
            MemoryRegion exposed = f.pdB.registerMemory(ByteBuffer.allocateDirect(4096),
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            f.qpB.postRecv(new RecvWorkRequest().wrId(5).sge(f.mrB.address(), 100, f.mrB.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(6).opcode(WrOpcode.SEND_WITH_INV).invalidate(exposed.rkey()).signaled(true)
                    .sge(f.mrA.address(), 10, f.mrA.lkey()));
            WorkCompletion r = f.await(f.cqB);
            assertEquals(WcStatus.REM_INV_REQ_ERR, r.status());
            assertEquals(5, r.wrId());
            assertEquals(QpState.ERR, f.qpB.state());
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status(), "the message itself was delivered and ACKed (rxe)");
            io.rnic.core.memory.MemoryRegion core = io.rnic.core.hca.HcaAccess.of(f.b).keys().lookup(exposed.rkey());
            assertTrue(core != null && core.rkey() == exposed.rkey(), "the region and its R_Key stay");
            exposed.close();
        }
    }

    @Test
    void aPkeyMismatchIsDroppedSilentlyAndCounted() {
        io.rnic.transport.sim.SimNetwork net = new io.rnic.transport.sim.SimNetwork(23);
        try (net) {
            RdmaDevice a = RdmaDevice.open(net.attach("10.0.0.2"));
            RdmaDevice b = RdmaDevice.open(net.attach("10.0.0.3"),
                    DeviceConfig.defaults().withPkeys(new io.rnic.core.memory.PKeyTable(0x8001)));
            CompletionQueue cqA = a.createCq(8);
            CompletionQueue cqB = b.createCq(8);
            QueuePair qpA = a.allocPd().createQp(QpInitAttributes.rc(cqA, cqA));
            QueuePair qpB = b.allocPd().createQp(QpInitAttributes.rc(cqB, cqB));
            MemoryRegion mrA = qpA.pd().registerMemory(ByteBuffer.allocate(64), AccessFlags.LOCAL_WRITE);
            Connections.connectPair(qpA, mrA, 0, qpB, null, 0, RcOptions.defaults().withRetry(8, 2, 7));
            qpB.postRecv(new RecvWorkRequest().wrId(1));
            qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(mrA.address(), 8, mrA.lkey()));
            net.scheduler().runUntil(() -> cqA.size() > 0, 10_000_000_000L);
            WorkCompletion wc = new WorkCompletion();
            assertTrue(cqA.poll(wc));
            assertEquals(WcStatus.RETRY_EXC_ERR, wc.status(), "never answered: the requester times out");
            assertEquals(3, b.counters().get(Counter.BAD_PKEY_CNTR), "first try and two retries dropped");
            assertEquals(0, cqB.size());
        }
    }

    /**
     * An atomic's 8-byte local buffer split over two SGEs is refused at post: the original value
     * would otherwise be written whole at the first SGE, past its end (issue 12, defect 2). The
     * memory around it stays as it was and the QP goes on working.
     */
    @Test
    void anAtomicWhoseLocalBufferIsSplitOverSgesIsRefusedAtPostAndTouchesNothing() {
        try (RcFixture f = new RcFixture(27)) {
            for (int i = 0; i < 16; i++) {
                f.bufA.put(i, (byte) 0x5A);
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.qpA.postSend(
                    new SendWorkRequest().wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                            .sge(f.mrA.address(), 4, f.mrA.lkey()).sge(f.mrA.address() + 12, 4, f.mrA.lkey())
                            .atomic(f.mrB.address(), f.mrB.rkey(), 1, 0)));
            assertTrue(e.getMessage().contains("one SGE"), e.getMessage());
            f.settle();
            assertEquals(0, f.cqA.size(), "nothing was posted");
            for (int i = 0; i < 16; i++) {
                assertEquals((byte) 0x5A, f.bufA.get(i), "byte " + i);
            }
            f.qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(f.mrA.address(), 8, f.mrA.lkey()).atomic(f.mrB.address(), f.mrB.rkey(), 1, 0));
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status(), "the QP still works");
        }
    }

    /**
     * A misaligned atomic that reaches the responder (the verbs layer refuses to post one, so a
     * crafted packet stands in for a peer that does) is NAKed Invalid Request and touches no
     * memory (reference §5.5; rxe's class C error); the responder's QP goes to ERR.
     */
    @Test
    void aMisalignedAtomicAtTheResponderIsNakedInvalidRequestAndTouchesNothing() {
        try (RcFixture f = new RcFixture(28)) {
            var sentB = Wiretap.sent(f.wireB);
            f.bufB.putLong(0, 0x1122334455667788L);
            io.rnic.core.packet.PacketFields atomic = new io.rnic.core.packet.PacketFields()
                    .opcode(io.rnic.core.packet.OpcodeTable.byName("RC_FETCH_ADD"));
            atomic.destQp = f.qpB.qpn();
            atomic.psn = 0x100; // the PSN qpB expects first (qpA's first in RcFixture)
            atomic.ackReq = true;
            atomic.atomicVa = f.mrB.address() + 4;
            atomic.atomicRkey = f.mrB.rkey();
            atomic.atomicSwapAdd = 1;
            Wiretap.inject(f.wireA, f.qpA.sourcePort(), f.wireB, atomic);
            f.settle();
            Wiretap.Seen nak = sentB.get(sentB.size() - 1);
            assertEquals("RC_ACKNOWLEDGE", nak.opcode());
            assertEquals(io.rnic.core.packet.AethSyndrome.nak(io.rnic.core.packet.AethSyndrome.NAK_INVALID_REQUEST), nak.syndrome());
            assertEquals(0x1122334455667788L, f.bufB.getLong(0), "memory untouched");
            assertEquals(0, f.b.counters().get(Counter.ATOMICS_EXECUTED));
            assertEquals(QpState.ERR, f.qpB.state());
        }
    }

    /**
     * A connected QP takes packets only from its peer's address (reference §8.6): a well-formed
     * SEND with a valid ICRC from a third address is dropped and counted, and changes nothing.
     */
    @Test
    void aPacketFromAnAddressOtherThanThePeersIsDroppedAndCounted() {
        try (RcFixture f = new RcFixture(29)) {
            io.rnic.transport.sim.SimWire stranger = f.net.attach("10.0.0.9");
            var sentB = Wiretap.sent(f.wireB);
            f.qpB.postRecv(new RecvWorkRequest().wrId(1).sge(f.mrB.address(), 64, f.mrB.lkey()));
            io.rnic.core.packet.PacketFields send = new io.rnic.core.packet.PacketFields()
                    .opcode(io.rnic.core.packet.OpcodeTable.byName("RC_SEND_ONLY"));
            send.destQp = f.qpB.qpn();
            send.psn = 0x100; // the PSN qpB expects
            send.ackReq = true;
            send.payload(new byte[64]);
            Wiretap.inject(stranger, f.qpA.sourcePort(), f.wireB, send);
            f.settle();
            assertEquals(1, f.b.counters().get(Counter.RCVD_ADDR_MISMATCH));
            assertEquals(0, f.cqB.size(), "no receive completed");
            assertEquals(0, sentB.size(), "nothing answered");
            assertEquals(QpState.RTS, f.qpB.state());
        }
    }

    /**
     * A QP's state is true when its error completion appears (issue 12, defect 7): the state moves
     * to ERR before the completion is published, so an application polling it on another thread
     * never reads the old state. Watched at the instant of publication, on both sides.
     */
    @Test
    void theStateReadsErrWhenTheErrorCompletionIsPublished() {
        try (RcFixture f = new RcFixture(30)) {
            List<io.rnic.verbs.QpState> seenA = new java.util.ArrayList<>();
            List<io.rnic.verbs.QpState> seenB = new java.util.ArrayList<>();
            f.cqA.core.notifier(q -> seenA.add(f.qpA.state()));
            f.cqB.core.notifier(q -> seenB.add(f.qpB.state()));
            f.cqA.core.requestNotify(false);
            f.cqB.core.requestNotify(false);
            // a SEND longer than the receive: the responder's LOC_LEN_ERR, the requester's NAK
            f.qpB.postRecv(new RecvWorkRequest().wrId(1).sge(f.mrB.address(), 16, f.mrB.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                    .sge(f.mrA.address(), 64, f.mrA.lkey()));
            assertEquals(WcStatus.LOC_LEN_ERR, f.await(f.cqB).status());
            assertEquals(WcStatus.REM_INV_REQ_ERR, f.await(f.cqA).status());
            assertEquals(List.of(QpState.ERR), seenB, "the responder's QP read ERR as its error completion appeared");
            assertEquals(List.of(QpState.ERR), seenA, "the requester's QP read ERR as its error completion appeared");
        }
    }

    @Test
    void invalidPostsThrowWithAReasonAndPostNothing() {
        try (RcFixture f = new RcFixture(24)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.qpA.postSend(
                    new SendWorkRequest().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sge(f.mrA.address(), 8, f.mrA.lkey())
                            .atomic(f.mrB.address() + 4, f.mrB.rkey(), 1, 0)));
            assertTrue(e.getMessage().contains("8-byte aligned"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> f.qpA.postSend(
                    new SendWorkRequest().opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sge(f.mrA.address(), 4, f.mrA.lkey())));
            assertTrue(e.getMessage().contains("exactly 8 bytes"), e.getMessage());
            SendWorkRequest many = new SendWorkRequest().opcode(WrOpcode.SEND);
            for (int i = 0; i < 5; i++) {
                many.sge(f.mrA.address(), 1, f.mrA.lkey());
            }
            e = assertThrows(IllegalArgumentException.class, () -> f.qpA.postSend(many));
            assertTrue(e.getMessage().contains("max_send_sge"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> f.qpA.postSend(
                    new SendWorkRequest().opcode(WrOpcode.SEND).inline(true).sge(f.mrA.address(), 4096, f.mrA.lkey())));
            assertTrue(e.getMessage().contains("max_inline_data"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> f.qpA.postSend(new SendWorkRequest().opcode(WrOpcode.BIND_MW)));
            assertTrue(e.getMessage().contains("BIND_MW"), e.getMessage());
            f.settle();
            assertEquals(0, f.a.counters().get(Counter.SENT_PKTS), "a refused post sends nothing");
            assertEquals(0, f.cqA.size());
        }
    }

    @Test
    void postingOnAQpThatIsNotReadyIsRefused() {
        try (RcFixture f = new RcFixture(25)) {
            QueuePair fresh = f.pdA.createQp(QpInitAttributes.rc(f.cqA, f.cqA));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> fresh.postSend(new SendWorkRequest().opcode(WrOpcode.SEND)));
            assertTrue(e.getMessage().contains("RESET"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> fresh.postRecv(new RecvWorkRequest()));
        }
    }

    @Test
    void inlineSendsCopyTheDataAtPostTime() {
        try (RcFixture f = new RcFixture(26)) {
            RcFixture.fill(f.bufA, 0, 200, 4);
            byte[] expected = new byte[200];
            f.bufA.get(0, expected);
            f.qpB.postRecv(new RecvWorkRequest().wrId(1).sge(f.mrB.address(), 200, f.mrB.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).inline(true).signaled(true)
                    .sge(f.mrA.address(), 200, f.mrA.lkey()));
            RcFixture.fill(f.bufA, 0, 200, 99); // reused at once, as inline allows
            assertEquals(WcStatus.SUCCESS, f.await(f.cqB).status());
            byte[] got = new byte[200];
            f.bufB.get(0, got);
            org.junit.jupiter.api.Assertions.assertArrayEquals(expected, got);
        }
    }

    @Test
    void multipleSgesAreGatheredAndScatteredInOrder() {
        try (RcFixture f = new RcFixture(27)) {
            RcFixture.fill(f.bufA, 0, 3000, 8);
            f.qpB.postRecv(new RecvWorkRequest().wrId(1).sge(f.mrB.address() + 10_000, 500, f.mrB.lkey())
                    .sge(f.mrB.address() + 20_000, 2500, f.mrB.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                    .sge(f.mrA.address(), 1000, f.mrA.lkey()).sge(f.mrA.address() + 1000, 1000, f.mrA.lkey())
                    .sge(f.mrA.address() + 2000, 1000, f.mrA.lkey()));
            assertEquals(3000, f.await(f.cqB).byteLen());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 10_000, 500));
            assertTrue(RcFixture.same(f.bufA, 500, f.bufB, 20_000, 2500));
        }
    }

    /**
     * A region is deregistered at once even while work uses it (issue 12, defect 3; rxe refuses
     * deregistration only while memory windows are bound): a long SEND whose first 128 packets
     * left before the region was closed fails with a local protection error for the rest, and
     * nothing more is read from the region. The PD stays refused while its QPs exist.
     */
    @Test
    void aRegionInUseIsDeregisteredAtOnceAndTheWorkStillUsingItFails() {
        try (RcFixture f = new RcFixture(28)) {
            f.qpB.postRecv(new RecvWorkRequest().wrId(1).sge(f.mrB.address(), 200 * MTU, f.mrB.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                    .sge(f.mrA.address(), 200 * MTU, f.mrA.lkey()));
            f.net.scheduler().runNext(); // the doorbell: the first 128 packets (the PSN window) leave
            long sent = f.a.counters().get(Counter.SENT_PKTS);
            assertEquals(128, sent);
            f.mrA.close(); // not refused: succeeds at once
            assertEquals(WcStatus.LOC_PROT_ERR, f.await(f.cqA).status(), "the rest could not be read");
            assertEquals(QpState.ERR, f.qpA.state());
            IllegalStateException pd = assertThrows(IllegalStateException.class, f.pdA::close);
            assertTrue(pd.getMessage().contains("in use"), pd.getMessage());
        }
    }

    /**
     * A peer cannot keep a region registered by leaving a WRITE unfinished (issue 12, defect 3):
     * the region is deregistered at once, and the WRITE's next packet, naming a region that no
     * longer exists, is NAKed Remote Access Error and writes nothing.
     */
    @Test
    void aWriteWhoseRegionIsDeregisteredMidMessageIsNakedAndWritesNothingMore() {
        try (RcFixture f = new RcFixture(31)) {
            var sentB = Wiretap.sent(f.wireB);
            ByteBuffer target = ByteBuffer.allocateDirect(4 * MTU);
            MemoryRegion mr = f.pdB.registerMemory(target, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
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
            mr.close(); // the WRITE is unfinished: not refused
            io.rnic.core.packet.PacketFields last = new io.rnic.core.packet.PacketFields()
                    .opcode(io.rnic.core.packet.OpcodeTable.byName("RC_RDMA_WRITE_LAST"));
            last.destQp = f.qpB.qpn();
            last.psn = 0x101;
            last.ackReq = true;
            last.payload(ones);
            Wiretap.inject(f.wireA, f.qpA.sourcePort(), f.wireB, last);
            f.settle();
            assertEquals(0, target.get(MTU), "nothing written after deregistration");
            Wiretap.Seen nak = sentB.get(sentB.size() - 1);
            assertEquals(io.rnic.core.packet.AethSyndrome.nak(io.rnic.core.packet.AethSyndrome.NAK_REMOTE_ACCESS_ERROR),
                    nak.syndrome());
        }
    }

    @Test
    void completionQueueOverflowRaisesCqErr() {
        try (RcFixture f = new RcFixture(29)) {
            List<AsyncEvent> events = new ArrayList<>();
            f.a.addAsyncEventListener(events::add);
            CompletionQueue tiny = f.a.createCq(1);
            QueuePair qp = f.pdA.createQp(QpInitAttributes.rc(tiny, tiny));
            qp.modify(new io.rnic.verbs.QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
            qp.postRecv(new RecvWorkRequest().wrId(1));
            qp.postRecv(new RecvWorkRequest().wrId(2));
            qp.modify(new io.rnic.verbs.QpAttributes().state(QpState.ERR));
            f.settle();
            assertTrue(events.stream().anyMatch(e -> e.type() == AsyncEvent.Type.CQ_ERR), events.toString());
        }
    }

    @Test
    void solicitedOnlyNotificationWaitsForTheSolicitedSend() throws Exception {
        try (RcFixture f = new RcFixture(30)) {
            CompletionChannel ch = f.b.createCompletionChannel();
            CompletionQueue rcq = f.b.createCq(16, ch);
            QueuePair qpB2 = f.pdB.createQp(QpInitAttributes.rc(f.cqB, rcq));
            QueuePair qpA2 = f.pdA.createQp(QpInitAttributes.rc(f.cqA, f.cqA));
            Connections.connectPair(qpA2, f.mrA, 5, qpB2, f.mrB, 6, RcOptions.defaults());
            qpB2.postRecv(new RecvWorkRequest().wrId(1).sge(f.mrB.address(), 64, f.mrB.lkey()));
            qpB2.postRecv(new RecvWorkRequest().wrId(2).sge(f.mrB.address(), 64, f.mrB.lkey()));
            rcq.requestNotify(true);
            qpA2.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.SEND).sge(f.mrA.address(), 8, f.mrA.lkey()));
            f.settle();
            assertEquals(1, rcq.size());
            assertEquals(null, ch.pollEvent(), "an unsolicited SEND does not wake a solicited-only waiter");
            qpA2.postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.SEND).solicited(true).sge(f.mrA.address(), 8, f.mrA.lkey()));
            f.settle();
            assertEquals(rcq, ch.pollEvent());
            WorkCompletion wc = new WorkCompletion();
            assertTrue(rcq.poll(wc));
            assertTrue(rcq.poll(wc));
            assertEquals(WcOpcode.RECV, wc.opcode());
            assertFalse(rcq.poll(wc));
        }
    }

    @Test
    void fencedSendWaitsForEarlierReadsAndEverythingCompletesInOrder() {
        try (RcFixture f = new RcFixture(31, RcOptions.defaults().withRdAtomic(1, 1), 7, 8)) {
            f.qpB.postRecv(new RecvWorkRequest().wrId(1).sge(f.mrB.address(), 64, f.mrB.lkey()));
            for (int i = 0; i < 4; i++) {
                f.qpA.postSend(new SendWorkRequest().wrId(10 + i).opcode(WrOpcode.RDMA_READ).signaled(true)
                        .sge(f.mrA.address() + 5000L * i, 5000, f.mrA.lkey()).rdma(f.mrB.address(), f.mrB.rkey()));
            }
            f.qpA.postSend(new SendWorkRequest().wrId(20).opcode(WrOpcode.SEND).fence(true).signaled(true)
                    .sge(f.mrA.address(), 8, f.mrA.lkey()));
            List<WorkCompletion> wcs = f.await(f.cqA, 5);
            for (int i = 0; i < 4; i++) {
                assertEquals(10 + i, wcs.get(i).wrId());
                assertEquals(WcStatus.SUCCESS, wcs.get(i).status());
            }
            assertEquals(20, wcs.get(4).wrId());
        }
    }

    @Test
    void sendWithInvalidateOfAnUnknownKeyFailsTheReceiveAndErrorsTheResponderButIsAcked() {
        try (RcFixture f = new RcFixture(32)) {
            f.qpB.postRecv(new RecvWorkRequest().wrId(5).sge(f.mrB.address(), 100, f.mrB.lkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(6).opcode(WrOpcode.SEND_WITH_INV).invalidate(0x00BAD0_01).signaled(true)
                    .sge(f.mrA.address(), 10, f.mrA.lkey()));
            WorkCompletion r = f.await(f.cqB);
            assertEquals(WcStatus.REM_INV_REQ_ERR, r.status());
            assertEquals(5, r.wrId());
            assertEquals(QpState.ERR, f.qpB.state());
            assertEquals(WcStatus.SUCCESS, f.await(f.cqA).status(), "the message itself was delivered and ACKed (rxe)");
        }
    }
}
