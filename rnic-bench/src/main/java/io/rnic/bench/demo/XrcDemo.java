package io.rnic.bench.demo;

import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.Counter;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import io.rnic.verbs.XrcDomain;
import java.io.PrintStream;
import java.nio.ByteBuffer;

/**
 * The demo's scenario for XRC (IBA 9.7.9): node B runs two "processes", each with its own
 * PD, memory, CQ and XRC SRQ in B's XRC domain; node A's one initiator QP reaches both through
 * one target QP. Every operation of the connected demo runs against process 1; then SENDs,
 * WRITE and READ against process 2 show its SRQ, PD and CQ are the ones used (o9-114.a7–a9);
 * last, a second initiator/target pair names an XRC SRQ of another domain, and the target
 * refuses it with a NAK and counts it (a6).
 */
public final class XrcDemo extends ConnectedDemo {
    private final ProtectionDomain pd2;
    private final ByteBuffer buf2 = ByteBuffer.allocateDirect(1 << 16);
    private final MemoryRegion mr2;
    private final CompletionQueue cq2;
    private final SharedReceiveQueue srq2;
    private final boolean faults;

    /**
     * @param faults whether the network drops or delays packets: the refused request's NAK may then
     *               be lost, and its initiator runs out of retries instead of reading the NAK
     */
    public XrcDemo(DemoPair pair, PrintStream out, boolean faults) {
        super(pair, out, faults);
        this.faults = faults;
        pd2 = pair.b.allocPd();
        mr2 = pd2.registerMemory(buf2, io.rnic.verbs.AccessFlags.LOCAL_WRITE | io.rnic.verbs.AccessFlags.REMOTE_WRITE
                | io.rnic.verbs.AccessFlags.REMOTE_READ);
        cq2 = pair.b.createCq(64);
        srq2 = pd2.createXrcSrq(pair.xrcdB, cq2, 16, 1, 0);
    }

    @Override
    public String describe() {
        return String.format("XRC initiator QP 0x%x -> target QP 0x%x, XRC SRQs %d (process 1) and %d (process 2) "
                + "of XRCD %s, UDP source port 0x%x", p.qpA.qpn(), p.qpB.qpn(), p.srqB.srqn(), srq2.srqn(),
                p.xrcdB.name(), p.qpA.sourcePort());
    }

    @Override
    public int run() throws InterruptedException {
        out.println(" process 1 (XRC SRQ " + p.srqB.srqn() + "):");
        super.run();
        out.println(" process 2 (XRC SRQ " + srq2.srqn() + ", its own PD and CQ):");
        int s2 = srq2.srqn();
        long id = 500;
        for (int len : new int[] {64, 10 * 1024}) {
            fill(p.bufA, 0, len, len + 3);
            srq2.postRecv(rwr.reset().wrId(id).sge(mr2.address(), 16 * 1024, mr2.lkey()));
            p.qpA.postSend(swr.reset().wrId(id + 1).opcode(WrOpcode.SEND_WITH_IMM).imm(s2).signaled(true)
                    .sge(p.mrA.address(), len, p.mrA.lkey()).xrc(s2));
            if (completion(cq2, id, WcOpcode.RECV, len, "SEND_WITH_IMM " + len + " B: on process 2's CQ")) {
                check("SEND_WITH_IMM " + len + " B: names the target QP", wc.qpNum() == p.qpB.qpn()
                        && wc.srcQp() == p.qpA.qpn() && wc.immData() == s2, wc.toString());
            }
            check("SEND_WITH_IMM " + len + " B: data in process 2's memory", same(p.bufA, 0, buf2, 0, len), null);
            completion(p.cqA, id + 1, WcOpcode.SEND, -1, "SEND_WITH_IMM " + len + " B: send completion");
            id += 2;
        }
        check("process 1's CQ got none of them", p.cqB.size() == 0, p.cqB.size() + " completions");
        fill(p.bufA, 0, 8192, 11);
        p.qpA.postSend(swr.reset().wrId(id).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(p.mrA.address(), 8192, p.mrA.lkey()).rdma(mr2.address() + 20_000, mr2.rkey()).xrc(s2));
        completion(p.cqA, id++, WcOpcode.RDMA_WRITE, -1, "WRITE 8 KiB to process 2: completion");
        check("WRITE 8 KiB: checked against process 2's PD, data", same(p.bufA, 0, buf2, 20_000, 8192), null);
        p.qpA.postSend(swr.reset().wrId(id).opcode(WrOpcode.RDMA_READ).signaled(true)
                .sge(p.mrA.address() + 400_000, 8192, p.mrA.lkey()).rdma(mr2.address() + 20_000, mr2.rkey()).xrc(s2));
        completion(p.cqA, id++, WcOpcode.RDMA_READ, 8192, "READ 8 KiB from process 2: completion");
        check("READ 8 KiB: data", same(buf2, 20_000, p.bufA, 400_000, 8192), null);

        domainViolation(id);
        p.settle();
        return failed();
    }

    /** o9-114.a6: an XRC SRQ of another domain, named through a second pair, is refused and counted. */
    private void domainViolation(long id) throws InterruptedException {
        out.println(" an XRC SRQ of another XRC domain (o9-114.a6):");
        try (XrcDomain other = p.b.openXrcd("other");
             CompletionQueue cq3 = p.b.createCq(4)) {
            SharedReceiveQueue foreign = p.pdB.createXrcSrq(other, cq3, 4, 1, 0);
            foreign.postRecv(rwr.reset().wrId(id).sge(p.mrB.address(), 64, p.mrB.lkey()));
            QueuePair ini = p.pdA.createQp(QpInitAttributes.xrcSend(p.cqA));
            QueuePair tgt = p.xrcdB.createTargetQp();
            Connections.connectPair(ini, p.mrA, 0x10, tgt, null, 0x20, RcOptions.defaults());
            long before = p.b.counters().get(Counter.XRC_DOMAIN_VIOLATIONS);
            ini.postSend(swr.reset().wrId(id + 1).signaled(true).sge(p.mrA.address(), 64, p.mrA.lkey()).xrc(foreign.srqn()));
            boolean got = p.await(p.cqA, wc);
            boolean refused = got && (wc.status() == WcStatus.REM_INV_REQ_ERR
                    || (faults && wc.status() == WcStatus.RETRY_EXC_ERR));
            check("SEND to XRC SRQ " + foreign.srqn() + " of XRCD other: refused", refused, got ? wc.toString() : "none");
            check("NAK Invalid Request, xrc_domain_violations counted",
                    p.b.counters().get(Counter.XRC_DOMAIN_VIOLATIONS) == before + 1,
                    "xrc_domain_violations " + p.b.counters().get(Counter.XRC_DOMAIN_VIOLATIONS));
            check("the foreign SRQ lost nothing, the target QP is in ERR", cq3.size() == 0 && tgt.state() == QpState.ERR,
                    cq3.size() + " completions, target " + tgt.state());
            WorkCompletion flushed = new WorkCompletion();
            p.settle();
            while (p.cqA.poll(flushed)) {
                // nothing else was outstanding on the refused initiator
            }
            ini.close();
            tgt.close();
            foreign.close();
        }
    }
}
