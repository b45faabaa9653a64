package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.rnic.core.packet.Icrc;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.transport.fault.Faults;
import io.rnic.transport.sim.SimWire;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulated network's ICRC offload ({@code SimNetwork.icrcOffload}): HCAs hand packets over
 * unsealed and skip the check of packets nothing touched, yet every byte anyone sees is the
 * byte a sealing HCA writes, and a damaged packet is still caught by the ICRC (reference §4.4).
 */
class IcrcOffloadTest {
    /** Every packet both wires send and receive, as bytes, in order. */
    private static List<byte[]> capture(SimWire... wires) {
        List<byte[]> seen = new ArrayList<>();
        for (SimWire w : wires) {
            w.addTap((dir, ts, p, s, d) -> {
                byte[] b = new byte[p.readableBytes()];
                p.getBytes(p.readerIndex(), b);
                seen.add(b);
                assertTrue(icrcHolds(p, s, d), "a tap sees a sealed packet");
            });
        }
        return seen;
    }

    private static boolean icrcHolds(ByteBuf p, java.net.InetSocketAddress s, java.net.InetSocketAddress d) {
        PseudoHeader ph = new PseudoHeader().addresses(s.getAddress(), d.getAddress()).ports(s.getPort(), d.getPort());
        return new Icrc().verify(ph, p, p.readerIndex(), p.readableBytes());
    }

    /** SEND, WRITE, READ and both atomics on one RC pair; returns every byte the wires carried. */
    private static List<byte[]> workload(boolean offload) {
        try (RcFixture f = new RcFixture(41)) {
            f.net.icrcOffload(offload);
            List<byte[]> seen = capture(f.wireA, f.wireB);
            RcFixture.fill(f.bufA, 0, 10_000, 5);
            f.qpB.postRecv(f.recvB(1, 0, 10_000));
            f.qpA.postSend(f.sendA(2, 0, 10_000));
            f.qpA.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(f.mrA.address(), 5000, f.mrA.lkey()).rdma(f.mrB.address() + 20_000, f.mrB.rkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(f.mrA.address() + 40_000, 6000, f.mrA.lkey()).rdma(f.mrB.address() + 20_000, f.mrB.rkey()));
            f.qpA.postSend(new SendWorkRequest().wrId(5).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                    .sge(f.mrA.address() + 60_000, 8, f.mrA.lkey()).atomic(f.mrB.address() + 64, f.mrB.rkey(), 7, 0));
            f.qpA.postSend(new SendWorkRequest().wrId(6).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                    .sge(f.mrA.address() + 60_008, 8, f.mrA.lkey()).atomic(f.mrB.address() + 64, f.mrB.rkey(), 7, 9));
            for (WorkCompletion wc : f.await(f.cqA, 5)) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            }
            assertEquals(WcStatus.SUCCESS, f.await(f.cqB).status());
            assertTrue(RcFixture.same(f.bufA, 0, f.bufA, 40_000, 5000), "the READ brought back what the WRITE put");
            assertEquals(0, f.a.counters().get(Counter.RCVD_ICRC_ERR) + f.b.counters().get(Counter.RCVD_ICRC_ERR));
            return seen;
        }
    }

    @Test
    void aSeedGivesTheSameBytesWithTheIcrcOffloadOnAndOff() {
        List<byte[]> on = workload(true);
        List<byte[]> off = workload(false);
        assertTrue(on.size() > 20, "packets seen: " + on.size());
        assertEquals(off.size(), on.size());
        for (int i = 0; i < on.size(); i++) {
            assertEquals(java.util.HexFormat.of().formatHex(off.get(i)), java.util.HexFormat.of().formatHex(on.get(i)),
                    "packet " + i);
        }
    }

    @Test
    void withTheIcrcOffloadADamagedPacketIsStillDroppedAndRecovered() {
        try (RcFixture f = new RcFixture(42)) {
            assertTrue(f.net.icrcOffload());
            f.net.direction(f.wireA, f.wireB).fault(Faults.corrupt(0.2));
            RcFixture.fill(f.bufA, 0, 64 * 40, 8);
            for (int i = 0; i < 40; i++) {
                f.qpA.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                        .sge(f.mrA.address() + 64L * i, 64, f.mrA.lkey()).rdma(f.mrB.address() + 64L * i, f.mrB.rkey()));
            }
            for (WorkCompletion wc : f.await(f.cqA, 40)) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            }
            assertTrue(RcFixture.same(f.bufA, 0, f.bufB, 0, 64 * 40), "every WRITE landed intact");
            long damaged = f.net.direction(f.wireA, f.wireB).faultStats().corrupted();
            assertTrue(damaged > 0, "the fault damaged packets");
            // A flipped bit in the headers may make the packet malformed before its ICRC is looked at.
            assertTrue(f.b.counters().get(Counter.RCVD_ICRC_ERR) > 0, f.b.counters().nonZero().toString());
            assertEquals(damaged, f.b.counters().get(Counter.RCVD_ICRC_ERR) + f.b.counters().get(Counter.RCVD_MALFORMED),
                    f.b.counters().nonZero().toString());
        }
    }
}
