package io.rnic.bench.demo;

import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.Counter;
import io.rnic.verbs.EeContext;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.ReliableDatagramDomain;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import java.io.PrintStream;
import java.nio.ByteOrder;

/**
 * The demo's scenario for reliable datagram service (IBA 9.7.8): two RD QPs on node A send
 * through one shared EE context to two RD QPs on node B. Every operation RD carries, each
 * checked byte for byte and completion for completion; both QPs' messages interleaved on the one
 * context; an RNR NAK that suspends one QP's message while the other's goes through; and a
 * Q_Key violation that abandons a message, RESYNCs the context and leaves it running.
 */
public final class RdDemo extends DemoScenario {
    private static final int QKEY = DemoPair.QKEY;
    private static final QpCaps CAPS = new QpCaps(256, 256, 4, 4, 0);
    private final boolean faults;
    private final EeContext eecA;
    private final EeContext eecB;
    private final QueuePair a1;
    private final QueuePair a2;
    private final QueuePair b1;
    private final QueuePair b2;

    /**
     * @param faults whether the network drops or delays packets: a refused request's NAK may then
     *               be lost, and its context run out of retries instead of reading the NAK
     */
    public RdDemo(DemoPair pair, PrintStream out, boolean faults) {
        super(pair, out);
        this.faults = faults;
        eecA = pair.eecA;
        eecB = pair.eecB;
        a1 = pair.qpA;
        b1 = pair.qpB;
        a2 = rdQp(pair.pdA, pair.cqA, eecA.rdd());
        b2 = rdQp(pair.pdB, pair.cqB, eecB.rdd());
    }

    private static QueuePair rdQp(io.rnic.verbs.ProtectionDomain pd, CompletionQueue cq, ReliableDatagramDomain rdd) {
        QueuePair qp = pd.createRdQp(new QpInitAttributes(QpType.RD, cq, cq, CAPS, false, false), rdd);
        Connections.readyRd(qp, QKEY, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
                | AccessFlags.REMOTE_ATOMIC);
        qp.modify(new QpAttributes().minRnrTimer(12)); // 0.64 ms, as the pair's QPs
        return qp;
    }

    @Override
    public String describe() {
        return String.format("RD QPs 0x%x and 0x%x on A share EE context 0x%x -> context 0x%x on B, "
                + "RD QPs 0x%x and 0x%x there; Q_Key 0x%08x", a1.qpn(), a2.qpn(), eecA.eecn(), eecB.eecn(),
                b1.qpn(), b2.qpn(), QKEY);
    }

    @Override
    public int run() throws InterruptedException {
        long id = 1;
        out.println(" SEND, through the one context, to both QPs of B (o9-100):");
        for (int len : new int[] {64, 10 * 1024}) {
            QueuePair from = len == 64 ? a1 : a2;
            QueuePair dest = len == 64 ? b1 : b2;
            fill(p.bufA, 0, len, len);
            dest.postRecv(rwr.reset().wrId(id).sge(p.mrB.address(), 16 * 1024, p.mrB.lkey()));
            from.postSend(swr.reset().wrId(id + 1).opcode(WrOpcode.SEND_WITH_IMM).imm(len).signaled(true)
                    .sge(p.mrA.address(), len, p.mrA.lkey()).rd(eecA.eecn(), dest.qpn(), QKEY));
            String what = String.format("SEND %d B QP 0x%x -> 0x%x", len, from.qpn(), dest.qpn());
            if (completion(p.cqB, id, WcOpcode.RECV, len, what + ": receive")) {
                check(what + ": names both QPs", wc.qpNum() == dest.qpn() && wc.srcQp() == from.qpn()
                        && wc.immData() == len, wc.toString());
            }
            check(what + ": data", same(p.bufA, 0, p.bufB, 0, len), null);
            completion(p.cqA, id + 1, WcOpcode.SEND, -1, what + ": send completion");
            id += 2;
        }

        out.println(" RDMA WRITE, READ and atomics (o9-108):");
        fill(p.bufA, 0, 8192, 5);
        a2.postSend(swr.reset().wrId(id).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(p.mrA.address(), 8192, p.mrA.lkey()).rdma(p.mrB.address() + 100_000, p.mrB.rkey())
                .rd(eecA.eecn(), b1.qpn(), QKEY));
        completion(p.cqA, id++, WcOpcode.RDMA_WRITE, -1, "WRITE 8 KiB: completion");
        check("WRITE 8 KiB: data", same(p.bufA, 0, p.bufB, 100_000, 8192), null);
        b2.postRecv(rwr.reset().wrId(id).sge(p.mrB.address(), 64, p.mrB.lkey()));
        a1.postSend(swr.reset().wrId(id + 1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).imm(0x77).signaled(true)
                .sge(p.mrA.address(), 4096, p.mrA.lkey()).rdma(p.mrB.address() + 120_000, p.mrB.rkey())
                .rd(eecA.eecn(), b2.qpn(), QKEY));
        if (completion(p.cqB, id, WcOpcode.RECV_RDMA_WITH_IMM, 4096, "WRITE_WITH_IMM 4 KiB: receive")) {
            check("WRITE_WITH_IMM: immediate", wc.immData() == 0x77 && wc.qpNum() == b2.qpn(), wc.toString());
        }
        completion(p.cqA, id + 1, WcOpcode.RDMA_WRITE, -1, "WRITE_WITH_IMM 4 KiB: send completion");
        id += 2;
        fill(p.bufB, 200_000, 8192, 9);
        a1.postSend(swr.reset().wrId(id).opcode(WrOpcode.RDMA_READ).signaled(true)
                .sge(p.mrA.address() + 300_000, 8192, p.mrA.lkey()).rdma(p.mrB.address() + 200_000, p.mrB.rkey())
                .rd(eecA.eecn(), b2.qpn(), QKEY));
        completion(p.cqA, id++, WcOpcode.RDMA_READ, 8192, "READ 8 KiB: completion");
        check("READ 8 KiB: data", same(p.bufB, 200_000, p.bufA, 300_000, 8192), null);
        p.bufB.order(ByteOrder.LITTLE_ENDIAN).putLong(400_000, 100).order(ByteOrder.BIG_ENDIAN);
        a2.postSend(swr.reset().wrId(id).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                .sge(p.mrA.address() + 500_000, 8, p.mrA.lkey()).atomic(p.mrB.address() + 400_000, p.mrB.rkey(), 5, 0)
                .rd(eecA.eecn(), b1.qpn(), QKEY));
        completion(p.cqA, id++, WcOpcode.FETCH_ADD, 8, "FETCH_ADD 5: completion");
        a2.postSend(swr.reset().wrId(id).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                .sge(p.mrA.address() + 500_008, 8, p.mrA.lkey()).atomic(p.mrB.address() + 400_000, p.mrB.rkey(), 105, 7)
                .rd(eecA.eecn(), b1.qpn(), QKEY));
        completion(p.cqA, id++, WcOpcode.COMP_SWAP, 8, "CMP_AND_SWAP 105 -> 7: completion");
        var le = ByteOrder.LITTLE_ENDIAN;
        check("atomics: originals 100 and 105, memory 7",
                p.bufA.duplicate().order(le).getLong(500_000) == 100 && p.bufA.duplicate().order(le).getLong(500_008) == 105
                        && p.bufB.duplicate().order(le).getLong(400_000) == 7, null);

        id = interleaved(id);
        id = rnr(id);
        qkeyViolation(id);
        p.settle();
        return failed();
    }

    /** o9-102/103: both QPs post at once; the context carries one message at a time, each QP's in order. */
    private long interleaved(long id) throws InterruptedException {
        out.println(" both QPs at once, one message at a time on the context (o9-102, o9-103):");
        int n = 8;
        for (int i = 0; i < n; i++) {
            b1.postRecv(rwr.reset().wrId(id + 100 + i).sge(p.mrB.address() + 600_000 + i * 4096, 4096, p.mrB.lkey()));
            b2.postRecv(rwr.reset().wrId(id + 200 + i).sge(p.mrB.address() + 700_000 + i * 4096, 4096, p.mrB.lkey()));
        }
        fill(p.bufA, 0, 4096, 21);
        for (int i = 0; i < n; i++) {
            a1.postSend(swr.reset().wrId(id + 300 + i).signaled(true).sge(p.mrA.address(), 3000, p.mrA.lkey())
                    .rd(eecA.eecn(), b1.qpn(), QKEY));
            a2.postSend(swr.reset().wrId(id + 400 + i).signaled(true).sge(p.mrA.address(), 3000, p.mrA.lkey())
                    .rd(eecA.eecn(), b2.qpn(), QKEY));
        }
        long next1 = id + 300;
        long next2 = id + 400;
        boolean inOrder = true;
        for (int i = 0; i < 2 * n; i++) {
            if (!p.await(p.cqA, wc) || wc.status() != WcStatus.SUCCESS) {
                inOrder = false;
                break;
            }
            if (wc.qpNum() == a1.qpn()) {
                inOrder &= wc.wrId() == next1++;
            } else {
                inOrder &= wc.wrId() == next2++;
            }
        }
        check(2 * n + " SENDs of 3000 B: each QP's in order", inOrder, wc.toString());
        int got = 0;
        for (int i = 0; i < 2 * n && p.await(p.cqB, wc); i++) {
            got += wc.status() == WcStatus.SUCCESS && wc.byteLen() == 3000 ? 1 : 0;
        }
        check(2 * n + " receives", got == 2 * n, got + " received");
        boolean data = true;
        for (int i = 0; i < n; i++) {
            data &= same(p.bufA, 0, p.bufB, 600_000 + i * 4096, 3000) && same(p.bufA, 0, p.bufB, 700_000 + i * 4096, 3000);
        }
        check(2 * n + " receives: data", data, null);
        return id + 500;
    }

    /** o9-111, 9.7.8.5: an RNR NAK suspends a1's message; a2's goes through the context meanwhile. */
    private long rnr(long id) throws InterruptedException {
        out.println(" an RNR NAK suspends one QP's message, not the context (o9-111, o9-107):");
        long suspended = p.a.counters().get(Counter.RD_MESSAGES_SUSPENDED);
        a1.postSend(swr.reset().wrId(id).signaled(true).sge(p.mrA.address(), 64, p.mrA.lkey()).rd(eecA.eecn(), b1.qpn(), QKEY));
        // a2's SEND is posted once a1's is suspended: posted together, the two QPs' order on the
        // context is the scheduler's, and a1's could still be on its way when b1 gets its receive.
        boolean wasSuspended = p.until(() -> p.a.counters().get(Counter.RD_MESSAGES_SUSPENDED) > suspended);
        b2.postRecv(rwr.reset().wrId(id + 1).sge(p.mrB.address(), 64, p.mrB.lkey()));
        a2.postSend(swr.reset().wrId(id + 2).signaled(true).sge(p.mrA.address(), 64, p.mrA.lkey()).rd(eecA.eecn(), b2.qpn(), QKEY));
        completion(p.cqB, id + 1, WcOpcode.RECV, 64, "QP 0x" + Integer.toHexString(b2.qpn()) + " received meanwhile");
        completion(p.cqA, id + 2, WcOpcode.SEND, -1, "the other QP's SEND completed first");
        check("the SEND to the QP without a receive was suspended", wasSuspended, p.a.counters().nonZero().toString());
        b1.postRecv(rwr.reset().wrId(id + 3).sge(p.mrB.address(), 64, p.mrB.lkey()));
        completion(p.cqB, id + 3, WcOpcode.RECV, 64, "posted a receive: the restarted SEND arrives");
        completion(p.cqA, id, WcOpcode.SEND, -1, "the suspended SEND completed");
        return id + 4;
    }

    /** 9.7.8.1, o9-107, o9-114.a1/a2: a Q_Key violation abandons the message; the context RESYNCs and goes on. */
    private void qkeyViolation(long id) throws InterruptedException {
        out.println(" a Q_Key violation abandons the message and RESYNCs the context (o9-107, o9-114.a2):");
        long resyncs = p.a.counters().get(Counter.RD_RESYNCS_COMPLETED);
        b1.postRecv(rwr.reset().wrId(id).sge(p.mrB.address(), 64, p.mrB.lkey()));
        a1.postSend(swr.reset().wrId(id + 1).signaled(true).sge(p.mrA.address(), 64, p.mrA.lkey())
                .rd(eecA.eecn(), b1.qpn(), 0x0BAD0000));
        boolean got = p.await(p.cqA, wc);
        check("wrong Q_Key: NAK Invalid RD Request", got && (wc.status() == WcStatus.REM_INV_RD_REQ_ERR
                || (faults && wc.status() == WcStatus.RETRY_EXC_ERR)), got ? wc.toString() : "none");
        if (got && wc.status() == WcStatus.RETRY_EXC_ERR) {
            return; // the context ran out of retries: nothing more to show on it
        }
        check("the QP's send queue is in error, the contexts run", a1.state() == QpState.SQE
                && eecA.state() == QpState.RTS && eecB.state() == QpState.RTS, a1.state() + " " + eecA.state());
        a1.modify(new QpAttributes().state(QpState.RTS));
        a1.postSend(swr.reset().wrId(id + 2).signaled(true).sge(p.mrA.address(), 64, p.mrA.lkey()).rd(eecA.eecn(), b1.qpn(), QKEY));
        completion(p.cqB, id, WcOpcode.RECV, 64, "back in RTS, the right Q_Key: received");
        completion(p.cqA, id + 2, WcOpcode.SEND, -1, "and completed");
        check("the context RESYNCed its peer", p.a.counters().get(Counter.RD_RESYNCS_COMPLETED) > resyncs,
                p.a.counters().nonZero().toString());
    }
}
