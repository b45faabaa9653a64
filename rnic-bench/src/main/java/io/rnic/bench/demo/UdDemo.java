package io.rnic.bench.demo;

import io.rnic.core.packet.PseudoHeader;
import io.rnic.verbs.AddressHandle;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.Connections;
import io.rnic.verbs.Counter;
import io.rnic.verbs.QpType;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.io.PrintStream;
import java.net.InetAddress;

/**
 * The demo's scenario for UD: one UD QP on HCA A sends SEND and SEND with immediate to two
 * destinations (two UD QPs on HCA B, each named by the work request's address handle, QPN and
 * Q_Key); a datagram with the wrong Q_Key is dropped and counted; a datagram larger than the
 * port MTU is not sent and still completes (C10-93.1.1). Every byte, the 40-byte GRH area (the
 * IPv4 header the packet arrived with) and every completion is checked.
 */
public final class UdDemo extends DemoScenario {
    private static final int GRH = 40;
    private final QueuePair qpB2;
    private final AddressHandle ah;

    public UdDemo(DemoPair pair, PrintStream out) {
        super(pair, out);
        qpB2 = pair.createQpB(QpType.UD);
        Connections.readyDatagram(qpB2, DemoPair.QKEY, 0x4000);
        InetAddress b = pair.b.gid().toInetAddress();
        ah = pair.pdA.createAddressHandle(AddressVector.of(b).withPort(pair.b.wire().localAddress().getPort()));
    }

    @Override
    public String describe() {
        return String.format("UD QP 0x%x (UDP source port 0x%x) -> UD QPs 0x%x and 0x%x, Q_Key 0x%08x", p.qpA.qpn(),
                p.qpA.sourcePort(), p.qpB.qpn(), qpB2.qpn(), DemoPair.QKEY);
    }

    @Override
    public int run() throws InterruptedException {
        datagram(1, p.qpB, WrOpcode.SEND, 64, 0, "SEND 64 B to QP 0x" + Integer.toHexString(p.qpB.qpn()));
        datagram(3, qpB2, WrOpcode.SEND_WITH_IMM, 1000, 0xCAFEF00D,
                "SEND_WITH_IMM 1000 B to QP 0x" + Integer.toHexString(qpB2.qpn()));

        // A wrong Q_Key: sent (and completed) but dropped at B, whose WQE waits for the next one.
        long violations = p.b.counters().get(Counter.QKEY_VIOL_CNTR);
        p.qpB.postRecv(rwr.reset().wrId(5).sge(p.mrB.address(), 4096, p.mrB.lkey()));
        p.qpA.postSend(swr.reset().wrId(6).opcode(WrOpcode.SEND).signaled(true).sge(p.mrA.address(), 32, p.mrA.lkey())
                .ud(ah, p.qpB.qpn(), DemoPair.QKEY ^ 1));
        completion(p.cqA, 6, WcOpcode.SEND, 32, "wrong Q_Key: send completion");
        datagramTo(7, p.qpB, 5, WrOpcode.SEND, 48, 0, "then the right Q_Key: takes the waiting WQE");
        check("wrong Q_Key: dropped, qkey_viol_cntr counted it",
                p.b.counters().get(Counter.QKEY_VIOL_CNTR) == violations + 1,
                "qkey_viol_cntr " + p.b.counters().get(Counter.QKEY_VIOL_CNTR));

        // C10-93.1.1: larger than the port MTU: not sent, completed without error.
        int mtu = p.a.queryPort().activeMtu().bytes();
        long sent = p.a.counters().get(Counter.SENT_PKTS);
        p.qpA.postSend(swr.reset().wrId(9).opcode(WrOpcode.SEND).signaled(true).sge(p.mrA.address(), mtu + 1, p.mrA.lkey())
                .ud(ah, p.qpB.qpn(), DemoPair.QKEY));
        completion(p.cqA, 9, WcOpcode.SEND, mtu + 1, "datagram over the port MTU: completes");
        check("datagram over the port MTU: nothing sent", p.a.counters().get(Counter.SENT_PKTS) == sent,
                "sent_pkts " + (p.a.counters().get(Counter.SENT_PKTS) - sent));
        p.settle();
        ah.close();
        qpB2.close();
        return failed();
    }

    private void datagram(long id, QueuePair to, WrOpcode op, int len, int imm, String what) throws InterruptedException {
        to.postRecv(rwr.reset().wrId(id).sge(p.mrB.address(), 4096, p.mrB.lkey()));
        datagramTo(id + 1, to, id, op, len, imm, what);
    }

    /** Sends one datagram to {@code to} and checks both completions, the bytes and the GRH area. */
    private void datagramTo(long sendId, QueuePair to, long recvId, WrOpcode op, int len, int imm, String what)
            throws InterruptedException {
        fill(p.bufA, 0, len, (int) sendId);
        for (int i = 0; i < GRH; i++) {
            p.bufB.put(i, (byte) 0x55);
        }
        p.qpA.postSend(swr.reset().wrId(sendId).opcode(op).imm(imm).signaled(true).sge(p.mrA.address(), len, p.mrA.lkey())
                .ud(ah, to.qpn(), DemoPair.QKEY));
        if (completion(p.cqB, recvId, WcOpcode.RECV, len + GRH, what + ": receive completion")) {
            int flags = WorkCompletion.WITH_GRH | (op == WrOpcode.SEND_WITH_IMM ? WorkCompletion.WITH_IMM : 0);
            check(what + ": src_qp, QP, flags", wc.srcQp() == p.qpA.qpn() && wc.qpNum() == to.qpn()
                    && wc.wcFlags() == flags && (imm == 0 || wc.immData() == imm), wc.toString());
        }
        check(what + ": data after the GRH area", same(p.bufA, 0, p.bufB, GRH, len), null);
        check(what + ": GRH area holds the IPv4 header", grhOk(len, op == WrOpcode.SEND_WITH_IMM), grhHex());
        completion(p.cqA, sendId, WcOpcode.SEND, len, what + ": send completion");
    }

    /** 20 zero bytes, then IPv4 from A to B: UDP, the datagram's length, DF, a valid checksum. */
    private boolean grhOk(int payload, boolean immediate) {
        byte[] g = new byte[GRH];
        p.bufB.get(0, g);
        for (int i = 0; i < 20; i++) {
            if (g[i] != 0) {
                return false;
            }
        }
        int udpPayload = 12 + 8 + (immediate ? 4 : 0) + payload + (-payload & 3) + 4; // BTH DETH [ImmDt] data pad ICRC
        int total = ((g[22] & 0xFF) << 8) | (g[23] & 0xFF);
        byte[] a = p.a.gid().toInetAddress().getAddress();
        byte[] b = p.b.gid().toInetAddress().getAddress();
        byte[] check = java.util.Arrays.copyOfRange(g, 20, 40);
        int stored = ((check[10] & 0xFF) << 8) | (check[11] & 0xFF);
        check[10] = 0;
        check[11] = 0;
        return g[20] == 0x45 && g[29] == 17 && total == 20 + 8 + udpPayload && (g[26] & 0x40) != 0
                && java.util.Arrays.equals(java.util.Arrays.copyOfRange(g, 32, 36), a)
                && java.util.Arrays.equals(java.util.Arrays.copyOfRange(g, 36, 40), b)
                && stored == PseudoHeader.ipv4Checksum(check, 0);
    }

    private String grhHex() {
        byte[] g = new byte[GRH];
        p.bufB.get(0, g);
        return java.util.HexFormat.of().formatHex(g);
    }
}
