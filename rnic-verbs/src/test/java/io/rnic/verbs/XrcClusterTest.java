package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rnic.transport.sim.SimNetwork;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * IBA 9.7.9.1's arithmetic, run: a cluster of N = 3 nodes with p = 4 processes each, every
 * process sending to every process of the other nodes. With RC that takes (N−1)·p·p QPs per
 * node (the seed's N·p·p, counting the N−1 remote nodes as it allows); with XRC each process
 * has one initiator QP per remote node, and one XRC SRQ, and each node one target QP per remote
 * initiator: (N−1)·p initiators, p SRQs and (N−1)·p targets per node. The test builds exactly
 * those objects on the simulated network, runs all-to-all SEND traffic through them, and
 * checks every message arrived once, whole, at the process it names.
 */
class XrcClusterTest {
    static final int NODES = 3;
    static final int PROCS = 4;
    static final int MSG = 256;

    /** One process: its PD, memory, CQ, XRC SRQ and one initiator QP per remote node. */
    static final class Proc {
        final int node;
        final int id;
        final ProtectionDomain pd;
        final ByteBuffer buf = ByteBuffer.allocateDirect(64 << 10);
        final MemoryRegion mr;
        final CompletionQueue cq;
        final XrcDomain xrcd;
        final SharedReceiveQueue srq;
        final QueuePair[] ini = new QueuePair[NODES];

        Proc(RdmaDevice dev, int node, int id) {
            this.node = node;
            this.id = id;
            pd = dev.allocPd();
            mr = pd.registerMemory(buf, AccessFlags.LOCAL_WRITE);
            cq = dev.createCq(1024);
            xrcd = dev.openXrcd("cluster"); // every process of the node opens the same domain
            srq = pd.createXrcSrq(xrcd, cq, 64, 1, 0);
        }
    }

    @Test
    void allToAllThroughXrcNeedsNpInitiatorsPSrqsAndNpTargetsPerNodeInsteadOfNppRcQps() {
        try (SimNetwork net = new SimNetwork(77)) {
            RdmaDevice[] dev = new RdmaDevice[NODES];
            Proc[][] procs = new Proc[NODES][PROCS];
            for (int n = 0; n < NODES; n++) {
                dev[n] = RdmaDevice.open(net.attach("10.0.1." + (n + 1)), DeviceConfig.defaults().withKeySeed(n));
                for (int i = 0; i < PROCS; i++) {
                    procs[n][i] = new Proc(dev[n], n, i);
                }
            }
            int[] initiators = new int[NODES];
            int[] targets = new int[NODES];
            Set<Integer> srqs = new HashSet<>();
            for (int n = 0; n < NODES; n++) {
                for (Proc pr : procs[n]) {
                    for (int m = 0; m < NODES; m++) {
                        if (m == n) {
                            continue;
                        }
                        // The remote node makes one target QP for this initiator, in its domain
                        // (here by its process with the same index, as ibv_xsrq_pingpong's server does).
                        QueuePair ini = pr.pd.createQp(QpInitAttributes.xrcSend(pr.cq));
                        QueuePair tgt = procs[m][pr.id].xrcd.createTargetQp();
                        Connections.connectPair(ini, null, 0x1000 * n + pr.id, tgt, null, 0x800 + m, RcOptions.defaults());
                        pr.ini[m] = ini;
                        initiators[n]++;
                        targets[m]++;
                    }
                    srqs.add(n * 1_000_000 + pr.srq.srqn());
                }
            }
            for (int n = 0; n < NODES; n++) {
                assertEquals((NODES - 1) * PROCS, initiators[n], "(N-1)·p initiator QPs on node " + n);
                assertEquals((NODES - 1) * PROCS, targets[n], "(N-1)·p target QPs on node " + n);
            }
            assertEquals(NODES * PROCS, srqs.size(), "p XRC SRQs per node");
            int xrcPerNode = initiators[0] + PROCS + targets[0];
            int rcPerNode = (NODES - 1) * PROCS * PROCS;
            assertEquals(20, xrcPerNode);
            assertEquals(32, rcPerNode, "RC would need a QP per pair of processes on different nodes");

            // Every process posts a receive per expected message, then sends to every remote process.
            int expected = (NODES - 1) * PROCS;
            for (Proc[] node : procs) {
                for (Proc pr : node) {
                    for (int k = 0; k < expected; k++) {
                        pr.srq.postRecv(new RecvWorkRequest().wrId(k).sge(pr.mr.address() + (long) k * MSG, MSG,
                                pr.mr.lkey()));
                    }
                }
            }
            int sends = 0;
            for (Proc[] node : procs) {
                for (Proc from : node) {
                    int slot = 0;
                    for (Proc[] remote : procs) {
                        for (Proc to : remote) {
                            if (to.node == from.node) {
                                continue;
                            }
                            int at = 32_768 + slot++ * MSG;
                            for (int b = 0; b < MSG; b += 4) {
                                from.buf.putInt(at + b, stamp(from, to));
                            }
                            from.ini[to.node].postSend(new SendWorkRequest().wrId(stamp(from, to)).signaled(true)
                                    .sge(from.mr.address() + at, MSG, from.mr.lkey()).xrc(to.srq.srqn()));
                            sends++;
                        }
                    }
                }
            }
            assertEquals(NODES * PROCS * expected, sends);
            net.scheduler().runUntil(() -> {
                for (Proc[] node : procs) {
                    for (Proc pr : node) {
                        if (pr.cq.size() < 2 * expected) { // its sends' and its receives' completions
                            return false;
                        }
                    }
                }
                return true;
            }, 10_000_000_000L);
            WorkCompletion wc = new WorkCompletion();
            for (Proc[] node : procs) {
                for (Proc pr : node) {
                    Set<Integer> from = new HashSet<>();
                    List<WcOpcode> kinds = new ArrayList<>();
                    while (pr.cq.poll(wc)) {
                        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                        kinds.add(wc.opcode());
                        if (wc.opcode() == WcOpcode.RECV) {
                            int stamp = pr.buf.getInt((int) wc.wrId() * MSG);
                            assertEquals(pr.node * 16 + pr.id, stamp & 0xFF, "delivered to the process it names");
                            for (int b = 0; b < MSG; b += 4) {
                                assertEquals(stamp, pr.buf.getInt((int) wc.wrId() * MSG + b), "whole");
                            }
                            from.add(stamp >>> 8);
                        }
                    }
                    assertEquals(expected, kinds.stream().filter(k -> k == WcOpcode.RECV).count());
                    assertEquals(expected, kinds.stream().filter(k -> k == WcOpcode.SEND).count());
                    assertEquals(expected, from.size(), "one message from every remote process");
                }
            }
        }
    }

    /** Sender in bits 8..15, receiver in bits 0..7: node · 16 + process. */
    private static int stamp(Proc from, Proc to) {
        return (from.node * 16 + from.id) << 8 | (to.node * 16 + to.id);
    }
}
