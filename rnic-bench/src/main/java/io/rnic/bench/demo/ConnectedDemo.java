package io.rnic.bench.demo;

import io.rnic.core.packet.Transport;
import io.rnic.core.engine.RequestKind;
import io.rnic.core.engine.TransportPolicy;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The demo's scenario for a connected transport: every operation the transport carries (for RC
 * every one, for UC SEND and WRITE) once or more between two HCAs, with every byte and every
 * completion checked. Prints one line per check.
 */
public class ConnectedDemo extends DemoScenario {
    private final Transport transport;
    private final boolean acked;
    /** Whether the network drops packets: a refused request's NAK may then be lost, ending in RETRY_EXC_ERR. */
    private final boolean faults;
    private long fenceId = 1_000_000;

    public ConnectedDemo(DemoPair pair, PrintStream out) {
        this(pair, out, false);
    }

    public ConnectedDemo(DemoPair pair, PrintStream out, boolean faults) {
        super(pair, out);
        this.faults = faults;
        TransportPolicy policy = TransportPolicy.of(pair.qpA.type());
        this.transport = policy.transport();
        this.acked = policy.ack().acked();
    }

    /**
     * Before checking what a WRITE placed: on a transport without acknowledgements its send
     * completion only says it left, so a SEND behind it on the same flow must arrive first.
     */
    private void delivered(String what) throws InterruptedException {
        if (acked) {
            return;
        }
        p.postRecvB(rwr.reset().wrId(fenceId));
        p.postA(swr.reset().wrId(fenceId + 1).opcode(WrOpcode.SEND).signaled(true));
        completion(p.cqB, fenceId, WcOpcode.RECV, 0, what + ": a SEND behind it arrived");
        completion(p.cqA, fenceId + 1, WcOpcode.SEND, 0, what + ": that SEND completed");
        fenceId += 2;
    }

    private boolean carries(WrOpcode op) {
        return RequestKind.of(op).transports().contains(transport);
    }

    @Override
    public String describe() {
        return String.format("%s QP 0x%x <-> QP 0x%x, UDP source port 0x%x", p.qpA.type(), p.qpA.qpn(), p.qpB.qpn(),
                p.qpA.sourcePort());
    }

    @Override
    public int run() throws InterruptedException {
        long id = 1;
        for (int len : new int[] {64, 10 * 1024}) {
            fill(p.bufA, 0, len, len);
            p.postRecvB(rwr.reset().wrId(id).sge(p.mrB.address() + 4096, 16 * 1024, p.mrB.lkey()));
            p.postA(swr.reset().wrId(id + 1).opcode(WrOpcode.SEND).signaled(true).sge(p.mrA.address(), len, p.mrA.lkey()));
            completion(p.cqB, id, WcOpcode.RECV, len, "SEND " + len + " B: receive completion");
            check("SEND " + len + " B: data", same(p.bufA, 0, p.bufB, 4096, len), null);
            completion(p.cqA, id + 1, WcOpcode.SEND, -1, "SEND " + len + " B: send completion");
            id += 2;
        }

        fill(p.bufA, 0, 256, 5);
        p.postRecvB(rwr.reset().wrId(id).sge(p.mrB.address() + 4096, 1024, p.mrB.lkey()));
        p.postA(swr.reset().wrId(id + 1).opcode(WrOpcode.SEND_WITH_IMM).imm(0xCAFEF00D).signaled(true)
                .sge(p.mrA.address(), 256, p.mrA.lkey()));
        if (completion(p.cqB, id, WcOpcode.RECV, 256, "SEND_WITH_IMM: receive completion")) {
            check("SEND_WITH_IMM: immediate data", (wc.wcFlags() & WorkCompletion.WITH_IMM) != 0 && wc.immData() == 0xCAFEF00D,
                    wc.toString());
        }
        check("SEND_WITH_IMM: data", same(p.bufA, 0, p.bufB, 4096, 256), null);
        completion(p.cqA, id + 1, WcOpcode.SEND, -1, "SEND_WITH_IMM: send completion");
        id += 2;

        for (int len : new int[] {64, 10 * 1024}) {
            fill(p.bufA, 0, len, len + 1);
            p.postA(swr.reset().wrId(id).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(p.mrA.address(), len, p.mrA.lkey()).rdma(p.mrB.address() + 65536, p.mrB.rkey()));
            completion(p.cqA, id, WcOpcode.RDMA_WRITE, -1, "WRITE " + len + " B: completion");
            delivered("WRITE " + len + " B");
            check("WRITE " + len + " B: data", same(p.bufA, 0, p.bufB, 65536, len), null);
            id++;
        }

        fill(p.bufA, 0, 3000, 9);
        p.postRecvB(rwr.reset().wrId(id));
        p.postA(swr.reset().wrId(id + 1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).imm(0x0BADF00D).signaled(true)
                .sge(p.mrA.address(), 3000, p.mrA.lkey()).rdma(p.mrB.address() + 131072, p.mrB.rkey()));
        if (completion(p.cqB, id, WcOpcode.RECV_RDMA_WITH_IMM, 3000, "WRITE_WITH_IMM: receive completion")) {
            check("WRITE_WITH_IMM: immediate data", wc.immData() == 0x0BADF00D, wc.toString());
        }
        check("WRITE_WITH_IMM: data", same(p.bufA, 0, p.bufB, 131072, 3000), null);
        completion(p.cqA, id + 1, WcOpcode.RDMA_WRITE, -1, "WRITE_WITH_IMM: send completion");
        id += 2;

        if (!carries(WrOpcode.RDMA_READ)) {
            p.settle();
            return failed();
        }
        for (int len : new int[] {64, 10 * 1024}) {
            fill(p.bufB, 200_000, len, len + 2);
            p.postA(swr.reset().wrId(id).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(p.mrA.address() + 300_000, len, p.mrA.lkey()).rdma(p.mrB.address() + 200_000, p.mrB.rkey()));
            completion(p.cqA, id, WcOpcode.RDMA_READ, len, "READ " + len + " B: completion");
            check("READ " + len + " B: data", same(p.bufB, 200_000, p.bufA, 300_000, len), null);
            id++;
        }

        ByteBuffer remote = p.bufB.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer local = p.bufA.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        remote.putLong(8192, 41);
        p.postA(swr.reset().wrId(id).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                .sge(p.mrA.address() + 512, 8, p.mrA.lkey()).atomic(p.mrB.address() + 8192, p.mrB.rkey(), 41, 42));
        completion(p.cqA, id, WcOpcode.COMP_SWAP, -1, "CMP_SWAP: completion");
        check("CMP_SWAP: original value 41 returned", local.getLong(512) == 41, "got " + local.getLong(512));
        check("CMP_SWAP: remote value swapped to 42", remote.getLong(8192) == 42, "got " + remote.getLong(8192));
        id++;

        p.postA(swr.reset().wrId(id).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                .sge(p.mrA.address() + 520, 8, p.mrA.lkey()).atomic(p.mrB.address() + 8192, p.mrB.rkey(), 1000, 0));
        completion(p.cqA, id, WcOpcode.FETCH_ADD, -1, "FETCH_ADD: completion");
        check("FETCH_ADD: original value 42 returned", local.getLong(520) == 42, "got " + local.getLong(520));
        check("FETCH_ADD: remote value now 1042", remote.getLong(8192) == 1042, "got " + remote.getLong(8192));
        id++;

        if (carries(WrOpcode.ATOMIC_WRITE)) {
            local.putLong(528, 0x0102030405060708L);
            p.postA(swr.reset().wrId(id).signaled(true).sge(p.mrA.address() + 528, 8, p.mrA.lkey())
                    .atomicWrite(p.mrB.address() + 8200, p.mrB.rkey()));
            completion(p.cqA, id, WcOpcode.ATOMIC_WRITE, 8, "ATOMIC_WRITE: completion");
            check("ATOMIC_WRITE: the 8 bytes landed verbatim", remote.getLong(8200) == 0x0102030405060708L,
                    "got " + Long.toHexString(remote.getLong(8200)));
            id++;
            p.postA(swr.reset().wrId(id).signaled(true).flush(p.mrB.address() + 65536, p.mrB.rkey(), 10 * 1024,
                    SendWorkRequest.FLUSH_GLOBAL, SendWorkRequest.FLUSH_RANGE));
            completion(p.cqA, id, WcOpcode.FLUSH, 10 * 1024, "FLUSH (global visibility, 10 KiB range): completion");
            id++;
        }
        if (p.qpB.type() == QpType.RC) {
            memoryWindow(id);
        }
        p.settle();
        return failed();
    }

    /**
     * A type 2 memory window over 4 KiB of B's region: bound by B, written and read by A through
     * it, invalidated by A's SEND with Invalidate, then refused. The refusal stops the QPs, so it
     * comes last.
     */
    private void memoryWindow(long id) throws InterruptedException {
        MemoryWindow mw = p.pdB.allocMw(2);
        long base = p.mrB.address() + 262_144;
        int key = MemoryWindow.incRkey(mw.rkey());
        p.qpB.postSend(new SendWorkRequest().wrId(id).signaled(true)
                .bindMw(mw.rkey(), key, p.mrB.lkey(), base, 4096, AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ));
        completion(p.cqB, id, WcOpcode.BIND_MW, -1, "BIND_MW (type 2 window on 4 KiB of B): completion");
        check("BIND_MW: the window's key changed", mw.rkey() == key && key != p.mrB.rkey(),
                Integer.toHexString(mw.rkey()));
        fill(p.bufA, 0, 1000, 21);
        p.postA(swr.reset().wrId(id + 1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(p.mrA.address(), 1000, p.mrA.lkey()).rdma(base + 16, key));
        completion(p.cqA, id + 1, WcOpcode.RDMA_WRITE, -1, "WRITE through the window: completion");
        check("WRITE through the window: data", same(p.bufA, 0, p.bufB, 262_144 + 16, 1000), null);
        p.postA(swr.reset().wrId(id + 2).opcode(WrOpcode.RDMA_READ).signaled(true)
                .sge(p.mrA.address() + 500_000, 1000, p.mrA.lkey()).rdma(base + 16, key));
        completion(p.cqA, id + 2, WcOpcode.RDMA_READ, 1000, "READ through the window: completion");
        check("READ through the window: data", same(p.bufB, 262_144 + 16, p.bufA, 500_000, 1000), null);
        p.postRecvB(rwr.reset().wrId(id + 3).sge(p.mrB.address() + 4096, 64, p.mrB.lkey()));
        p.postA(swr.reset().wrId(id + 4).opcode(WrOpcode.SEND_WITH_INV).signaled(true)
                .sge(p.mrA.address(), 8, p.mrA.lkey()).invalidate(key));
        if (completion(p.cqB, id + 3, WcOpcode.RECV, 8, "SEND_WITH_INV of the window: receive completion")) {
            check("SEND_WITH_INV: invalidated the window's key", (wc.wcFlags() & WorkCompletion.WITH_INV) != 0
                    && wc.invalidatedRkey() == key && !mw.isBound(), wc.toString());
        }
        completion(p.cqA, id + 4, WcOpcode.SEND, -1, "SEND_WITH_INV: send completion");
        p.bufB.put(262_144 + 16, (byte) 0x5A);
        p.postA(swr.reset().wrId(id + 5).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(p.mrA.address(), 8, p.mrA.lkey()).rdma(base + 16, key));
        boolean got = p.await(p.cqA, wc);
        check("WRITE after the invalidation: refused (REM_ACCESS_ERR)", got && (wc.status() == WcStatus.REM_ACCESS_ERR
                || (faults && wc.status() == WcStatus.RETRY_EXC_ERR)), got ? wc.toString() : "no completion");
        check("WRITE after the invalidation: memory untouched", p.bufB.get(262_144 + 16) == 0x5A, null);
        mw.close();
    }
}
