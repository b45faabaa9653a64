package io.rnic.bench.demo;

import io.rnic.core.transport.RecvWorkRequest;
import io.rnic.core.transport.SendWorkRequest;
import io.rnic.core.transport.WcOpcode;
import io.rnic.core.transport.WcStatus;
import io.rnic.core.transport.WorkCompletion;
import io.rnic.core.transport.WrOpcode;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The demo's scenario: every RC operation once or more between two HCAs, with every byte and
 * every completion checked. Prints one line per check and returns how many failed.
 */
public final class RcDemo {
    private final DemoPair p;
    private final PrintStream out;
    private final WorkCompletion wc = new WorkCompletion();
    private final SendWorkRequest swr = new SendWorkRequest();
    private final RecvWorkRequest rwr = new RecvWorkRequest();
    private int passed;
    private int failed;

    public RcDemo(DemoPair pair, PrintStream out) {
        this.p = pair;
        this.out = out;
    }

    public int passed() {
        return passed;
    }

    public int failed() {
        return failed;
    }

    private void check(String what, boolean ok, String detail) {
        if (ok) {
            passed++;
        } else {
            failed++;
        }
        out.printf("  %-44s %s%s%n", what, ok ? "ok" : "FAIL", ok || detail == null ? "" : "  (" + detail + ")");
    }

    private boolean completion(io.rnic.verbs.CompletionQueue cq, long wrId, WcOpcode op, int byteLen, String what)
            throws InterruptedException {
        if (!p.await(cq, wc)) {
            check(what, false, "no completion");
            return false;
        }
        boolean ok = wc.status() == WcStatus.SUCCESS && wc.wrId() == wrId && wc.opcode() == op
                && (byteLen < 0 || wc.byteLen() == byteLen);
        check(what, ok, wc.toString());
        return ok;
    }

    private static void fill(ByteBuffer b, int off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            b.put(off + i, (byte) (seed * 7 + i * 13));
        }
    }

    private static boolean same(ByteBuffer x, int xo, ByteBuffer y, int yo, int len) {
        for (int i = 0; i < len; i++) {
            if (x.get(xo + i) != y.get(yo + i)) {
                return false;
            }
        }
        return true;
    }

    /** Runs every operation; returns the number of failed checks. */
    public int run() throws InterruptedException {
        long id = 1;
        for (int len : new int[] {64, 10 * 1024}) {
            fill(p.bufA, 0, len, len);
            p.qpB.postRecv(rwr.reset().wrId(id).sge(p.mrB.address() + 4096, 16 * 1024, p.mrB.lkey()));
            p.qpA.postSend(swr.reset().wrId(id + 1).opcode(WrOpcode.SEND).signaled(true).sge(p.mrA.address(), len, p.mrA.lkey()));
            completion(p.cqB, id, WcOpcode.RECV, len, "SEND " + len + " B: receive completion");
            check("SEND " + len + " B: data", same(p.bufA, 0, p.bufB, 4096, len), null);
            completion(p.cqA, id + 1, WcOpcode.SEND, -1, "SEND " + len + " B: send completion");
            id += 2;
        }

        fill(p.bufA, 0, 256, 5);
        p.qpB.postRecv(rwr.reset().wrId(id).sge(p.mrB.address() + 4096, 1024, p.mrB.lkey()));
        p.qpA.postSend(swr.reset().wrId(id + 1).opcode(WrOpcode.SEND_WITH_IMM).imm(0xCAFEF00D).signaled(true)
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
            p.qpA.postSend(swr.reset().wrId(id).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(p.mrA.address(), len, p.mrA.lkey()).rdma(p.mrB.address() + 65536, p.mrB.rkey()));
            completion(p.cqA, id, WcOpcode.RDMA_WRITE, -1, "WRITE " + len + " B: completion");
            check("WRITE " + len + " B: data", same(p.bufA, 0, p.bufB, 65536, len), null);
            id++;
        }

        fill(p.bufA, 0, 3000, 9);
        p.qpB.postRecv(rwr.reset().wrId(id));
        p.qpA.postSend(swr.reset().wrId(id + 1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).imm(0x0BADF00D).signaled(true)
                .sge(p.mrA.address(), 3000, p.mrA.lkey()).rdma(p.mrB.address() + 131072, p.mrB.rkey()));
        if (completion(p.cqB, id, WcOpcode.RECV_RDMA_WITH_IMM, 3000, "WRITE_WITH_IMM: receive completion")) {
            check("WRITE_WITH_IMM: immediate data", wc.immData() == 0x0BADF00D, wc.toString());
        }
        check("WRITE_WITH_IMM: data", same(p.bufA, 0, p.bufB, 131072, 3000), null);
        completion(p.cqA, id + 1, WcOpcode.RDMA_WRITE, -1, "WRITE_WITH_IMM: send completion");
        id += 2;

        for (int len : new int[] {64, 10 * 1024}) {
            fill(p.bufB, 200_000, len, len + 2);
            p.qpA.postSend(swr.reset().wrId(id).opcode(WrOpcode.RDMA_READ).signaled(true)
                    .sge(p.mrA.address() + 300_000, len, p.mrA.lkey()).rdma(p.mrB.address() + 200_000, p.mrB.rkey()));
            completion(p.cqA, id, WcOpcode.RDMA_READ, len, "READ " + len + " B: completion");
            check("READ " + len + " B: data", same(p.bufB, 200_000, p.bufA, 300_000, len), null);
            id++;
        }

        ByteBuffer remote = p.bufB.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer local = p.bufA.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        remote.putLong(8192, 41);
        p.qpA.postSend(swr.reset().wrId(id).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                .sge(p.mrA.address() + 512, 8, p.mrA.lkey()).atomic(p.mrB.address() + 8192, p.mrB.rkey(), 41, 42));
        completion(p.cqA, id, WcOpcode.COMP_SWAP, -1, "CMP_SWAP: completion");
        check("CMP_SWAP: original value 41 returned", local.getLong(512) == 41, "got " + local.getLong(512));
        check("CMP_SWAP: remote value swapped to 42", remote.getLong(8192) == 42, "got " + remote.getLong(8192));
        id++;

        p.qpA.postSend(swr.reset().wrId(id).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                .sge(p.mrA.address() + 520, 8, p.mrA.lkey()).atomic(p.mrB.address() + 8192, p.mrB.rkey(), 1000, 0));
        completion(p.cqA, id, WcOpcode.FETCH_ADD, -1, "FETCH_ADD: completion");
        check("FETCH_ADD: original value 42 returned", local.getLong(520) == 42, "got " + local.getLong(520));
        check("FETCH_ADD: remote value now 1042", remote.getLong(8192) == 1042, "got " + remote.getLong(8192));
        p.settle();
        return failed;
    }
}
