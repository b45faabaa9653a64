package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.wire.WireTap;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Congestion control in the HCA, on two simulated devices: how it is chosen (per device, per
 * QP), the reaction point's answer to a CNP (DCQCN's cut, counted {@code rp_cnp_handled}), and
 * the notification point's CNPs (RoCEv2 Annex A17 layout, at most one per N per QP).
 */
class CongestionControlTest {
    private static final long LINE = CongestionControlConfig.DEFAULT_LINE_RATE_BPS;

    private static PacketFields cnp(int destQp) {
        PacketFields f = new PacketFields().opcode(OpcodeTable.of(0x81));
        f.destQp = destQp;
        f.pkey = 0xFFFF;
        f.psn = 0;
        return f;
    }

    private static RcFixture pair(DeviceConfig config) {
        return new RcFixture(1, config, RcOptions.defaults(), 0x100, 0x200, QpCaps.defaults(), false);
    }

    @Test
    void invalidConfigurationIsRejectedWithWhatAndWhy() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> CongestionControlConfig.of(CongestionControlScheme.DCQCN).withFallbackLineRate(0));
        assertTrue(e.getMessage().contains("line rate 0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CongestionControlConfig.none().withCnpDscp(64));
        assertTrue(e.getMessage().contains("DSCP 64"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CongestionControlConfig.none().withCnpInterval(-1));
        assertTrue(e.getMessage().contains("CNP interval -1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CongestionControlScheme.fromCliName("reno"));
        assertTrue(e.getMessage().contains("'reno'") && e.getMessage().contains("dcqcn-mlx"), e.getMessage());
        assertThrows(NullPointerException.class, () -> DeviceConfig.defaults().withCongestionControl((CongestionControlConfig) null));
    }

    @Test
    void theDefaultIsNoCongestionControlAndNoCnps() {
        CongestionControlConfig c = DeviceConfig.defaults().congestionControl();
        assertEquals(CongestionControlScheme.NONE, c.scheme());
        assertTrue(!c.notificationPoint());
        assertTrue(CongestionControlConfig.of(CongestionControlScheme.DCQCN).notificationPoint(), "on with a scheme");
        for (CongestionControlScheme s : CongestionControlScheme.values()) {
            assertEquals(s, CongestionControlScheme.fromCliName(s.cliName().toUpperCase(java.util.Locale.ROOT)));
        }
        try (RcFixture f = pair(DeviceConfig.defaults())) {
            assertEquals(Double.POSITIVE_INFINITY, f.qpA.congestionRateBitsPerSecond());
            Wiretap.inject(f.wireB, f.qpB.sourcePort(), f.wireA, cnp(f.qpA.qpn()));
            f.net.scheduler().runUntilIdle();
            assertEquals(1, f.a.counters().get(Counter.RP_CNP_IGNORED));
            assertEquals(0, f.a.counters().get(Counter.RP_CNP_HANDLED));
        }
    }

    /** DCQCN (Zhu et al. 2015): on a CNP, Rc ← Rc·(1 − α/2) with α = 1 before any CNP: half the line rate. */
    @Test
    void aCnpHalvesTheRateOfADcqcnQpAndIsCountedHandled() {
        try (RcFixture f = pair(DeviceConfig.defaults().withCongestionControl(CongestionControlScheme.DCQCN))) {
            assertEquals(LINE, f.qpA.congestionRateBitsPerSecond(), "a QP starts at the line rate");
            Wiretap.inject(f.wireB, f.qpB.sourcePort(), f.wireA, cnp(f.qpA.qpn()));
            f.net.scheduler().runUntilIdle();
            assertEquals(1, f.a.counters().get(Counter.RP_CNP_HANDLED));
            assertEquals(0, f.a.counters().get(Counter.RP_CNP_IGNORED));
            assertEquals(LINE / 2.0, f.qpA.congestionRateBitsPerSecond(), 1.0);
        }
    }

    @Test
    void aQpOverridesItsDevicesScheme() {
        try (SimPair p = new SimPair(1, DeviceConfig.defaults())) {
            QueuePair dcqcn = p.pdA.createQp(QpInitAttributes.rc(p.cqA, p.cqA).withCongestionControl(CongestionControlScheme.DCQCN));
            QueuePair peer = p.pdB.createQp(QpInitAttributes.rc(p.cqB, p.cqB));
            Connections.connectPair(dcqcn, p.mrA, 1, peer, p.mrB, 2, RcOptions.defaults());
            assertEquals(LINE, dcqcn.congestionRateBitsPerSecond());
            assertEquals(Double.POSITIVE_INFINITY, peer.congestionRateBitsPerSecond());
        }
        try (SimPair p = new SimPair(1, DeviceConfig.defaults().withCongestionControl(CongestionControlScheme.TIMELY))) {
            QueuePair none = p.pdA.createQp(QpInitAttributes.rc(p.cqA, p.cqA).withCongestionControl(CongestionControlScheme.NONE));
            QueuePair peer = p.pdB.createQp(QpInitAttributes.rc(p.cqB, p.cqB));
            Connections.connectPair(none, p.mrA, 1, peer, p.mrB, 2, RcOptions.defaults());
            assertEquals(Double.POSITIVE_INFINITY, none.congestionRateBitsPerSecond());
            assertEquals(LINE, peer.congestionRateBitsPerSecond());
        }
    }

    /**
     * RoCEv2 Annex A17 as ConnectX sends it (the ConnectX-4 Lx capture of docs/icrc.md, BTH
     * {@code 8100ffff 40 000118 00000000} and 16 zero bytes): a CE-marked request at A produces one
     * CNP to B's QP; the marks that follow within N = 50 µs produce none; the first after N, one.
     * B accepts each (its ICRC checks) as a CNP for its QP.
     */
    @Test
    void ceMarksAreAnsweredWithAtMostOneCnpPerIntervalLaidOutAsConnectXSendsIt() {
        try (RcFixture f = pair(DeviceConfig.defaults().withCongestionControl(CongestionControlScheme.DCQCN))) {
            List<byte[]> cnps = new ArrayList<>();
            f.wireA.addTap((d, ts, p, s, dst) -> {
                if (d == WireTap.Direction.SENT && p.getUnsignedByte(p.readerIndex()) == 0x81) {
                    byte[] b = new byte[p.readableBytes()];
                    p.getBytes(p.readerIndex(), b);
                    cnps.add(b);
                }
            });
            int ce = 26 << 2 | 0b11;
            long n = CongestionControlConfig.DEFAULT_CNP_INTERVAL_NANOS;
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 40; i++) {
                    PacketFields dup = new PacketFields().opcode(OpcodeTable.byName("RC_SEND_ONLY"));
                    dup.destQp = f.qpA.qpn();
                    dup.pkey = 0xFFFF;
                    dup.psn = 0x1FF; // a duplicate: answered with an ACK, delivers nothing
                    Wiretap.inject(f.wireB, f.qpB.sourcePort(), f.wireA, dup, ce);
                    f.net.scheduler().runFor(n / 50);
                }
                f.net.scheduler().runFor(n / 5 + 1); // 40 marks over 0.8 N, then to just past N
            }
            f.net.scheduler().runUntilIdle();
            assertEquals(120, f.a.counters().get(Counter.NP_ECN_MARKED_ROCE_PACKETS));
            assertEquals(3, f.a.counters().get(Counter.NP_CNP_SENT), "one per N = 50 µs, however many marks");
            assertEquals(3, cnps.size());
            String bth = String.format("8100ffff40%06x00000000", f.qpB.qpn()) + "00".repeat(16);
            for (byte[] b : cnps) {
                assertEquals(12 + 16 + 4, b.length, "BTH, 16 reserved bytes, ICRC");
                assertEquals(bth, HexFormat.of().formatHex(b, 0, 28));
            }
            assertEquals(3, f.b.counters().get(Counter.RP_CNP_HANDLED), "B's QP took them: valid ICRC, its QP, its P_Key");
        }
    }

    /**
     * IBA 9.7 keeps responses in PSN order: an atomic's ACK follows the READ responses before it,
     * so the responder sends what its READ stream still holds first, at once. With DCQCN pacing
     * the READ responses, that flush sent nothing and looped for ever (found by `rnic soak` with
     * congestion control on); now the READ and the atomic both complete.
     */
    @Test
    void anAtomicBehindAPacedReadCompletesWithTheRead() {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () -> {
            try (SimPair s = new SimPair(21, DeviceConfig.defaults().withCongestionControl(CongestionControlScheme.DCQCN))) {
                QueuePair a = s.pdA.createQp(QpInitAttributes.rc(s.cqA, s.cqA));
                QueuePair b = s.pdB.createQp(QpInitAttributes.rc(s.cqB, s.cqB));
                Connections.connectPair(a, s.mrA, 1, b, s.mrB, 2, RcOptions.defaults());
                a.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_READ).signaled(true)
                        .sge(s.mrA.address(), 256 * 1024, s.mrA.lkey()).rdma(s.mrB.address(), s.mrB.rkey()));
                a.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                        .sge(s.mrA.address() + 512 * 1024, 8, s.mrA.lkey())
                        .atomic(s.mrB.address() + 512 * 1024, s.mrB.rkey(), 1, 0));
                List<WorkCompletion> wcs = s.await(s.cqA, 2);
                assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
                assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
                assertEquals(1, wcs.get(0).wrId());
                assertEquals(2, wcs.get(1).wrId());
            }
        });
    }
}
