package io.rnic.verbs.fuzz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.Counter;
import io.rnic.verbs.DeviceConfig;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.WorkCompletion;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Points an attacker at HCA B's receive path: packets of arbitrary bytes, and well-formed packets
 * (valid ICRC, B's QP numbers, PSNs near the expected one, B's real keys and addresses, the
 * canaries' keys) with fuzzer-chosen fields, sent from HCA A's address. After each input it
 * checks what no input may break: no exception escaped the simulated network's event loop, the
 * canary regions (one in B's PD without remote rights, one in another PD with every right) are
 * byte-identical and still registered.
 *
 * <p>The choices come from a {@link Choices} source, so the same harness runs under Jazzer
 * (coverage-guided) and under a seeded random source in every CI run.
 */
final class ResponderHarness implements AutoCloseable {
    /** The fuzzer's side of the conversation: every decision the harness asks for. */
    interface Choices {
        int intIn(int min, int max);

        long anyLong();

        boolean bool();

        byte[] bytes(int maxLength);
    }

    static final int TARGET_BYTES = 64 * 1024;
    static final int CANARY_BYTES = 4096;
    private static final List<Opcode> OPCODES = OpcodeTable.all();
    private static final List<Opcode> RC_REQUESTS = OPCODES.stream()
            .filter(o -> o.transport() == io.rnic.core.packet.Transport.RC && !o.isResponse()).toList();
    private static final List<Opcode> RD_REQUESTS = OPCODES.stream()
            .filter(o -> o.transport() == io.rnic.core.packet.Transport.RD && !o.isResponse()).toList();
    private static final int QKEY = 0x11111111;
    private static final int PSN_A = 0x100;
    private static final int PSN_B = 0x200;
    /** PSNs B's responder may run ahead of A's requester before the pair is rebuilt. */
    private static final int MAX_DRIFT = 1024;

    private final SimNetwork net = new SimNetwork(1);
    private final SimWire wireA = net.attach("10.0.0.1");
    private final SimWire wireB = net.attach("10.0.0.2");
    private final RdmaDevice a = RdmaDevice.open(wireA, DeviceConfig.defaults().withKeySeed(1));
    private final RdmaDevice b = RdmaDevice.open(wireB, DeviceConfig.defaults().withKeySeed(2));
    private final ProtectionDomain pdA = a.allocPd();
    private final ProtectionDomain pdB = b.allocPd();
    private final ProtectionDomain otherPdB = b.allocPd();
    private final CompletionQueue cqA = a.createCq(4096);
    private final CompletionQueue cqB = b.createCq(4096);
    private final MemoryRegion mrA = pdA.registerMemory(ByteBuffer.allocateDirect(TARGET_BYTES), AccessFlags.LOCAL_WRITE
            | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
    private final ByteBuffer targetBuf = ByteBuffer.allocateDirect(TARGET_BYTES);
    private final MemoryRegion target = pdB.registerMemory(targetBuf, AccessFlags.LOCAL_WRITE
            | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
    private final ByteBuffer canaryBuf = ByteBuffer.allocateDirect(CANARY_BYTES);
    private final MemoryRegion canary = pdB.registerMemory(canaryBuf, AccessFlags.LOCAL_WRITE);
    private final ByteBuffer otherPdBuf = ByteBuffer.allocateDirect(CANARY_BYTES);
    private final MemoryRegion otherPd = otherPdB.registerMemory(otherPdBuf, AccessFlags.LOCAL_WRITE
            | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
    private final QueuePair ud = pdB.createQp(QpInitAttributes.ud(cqB, cqB));
    private final PacketEncoder encoder = new PacketEncoder();
    private final RocePacket scratch = new RocePacket();
    private final WorkCompletion wc = new WorkCompletion();
    private final byte[] canarySnapshot = new byte[CANARY_BYTES];
    private final byte[] otherPdSnapshot = new byte[CANARY_BYTES];
    private QueuePair rcA;
    private QueuePair rcB;
    // RD (IBA 9.7.8): B's EE context, an RD QP behind it, and one of another RDD.
    private final io.rnic.verbs.ReliableDatagramDomain rddA = a.allocRdd();
    private final io.rnic.verbs.ReliableDatagramDomain rddB = b.allocRdd();
    private final QueuePair strangerRd = pdB.createRdQp(QpInitAttributes.rd(cqB, cqB), b.allocRdd());
    private io.rnic.verbs.EeContext eecA;
    private io.rnic.verbs.EeContext eecB;
    private QueuePair rdB;
    private int receivesPosted;
    private long inputs;
    private long packets;
    private long rebuilds;
    private long rcRebuilds;
    private long rdRebuilds;

    ResponderHarness() {
        for (int i = 0; i < CANARY_BYTES; i++) {
            canaryBuf.put(i, (byte) (0xC3 ^ i));
            otherPdBuf.put(i, (byte) (0x5A ^ i * 7));
        }
        canaryBuf.get(0, canarySnapshot);
        otherPdBuf.get(0, otherPdSnapshot);
        Connections.readyDatagram(ud, QKEY, 0);
        Connections.readyRd(strangerRd, QKEY, AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
        connect();
        connectRd();
    }

    private void connectRd() {
        eecA = rddA.createEeContext();
        eecB = rddB.createEeContext();
        Connections.connectEeContexts(eecA, PSN_A, eecB, PSN_B, RcOptions.defaults().withRetry(10, 1, 1));
        rdB = pdB.createRdQp(QpInitAttributes.rd(cqB, cqB), rddB);
        Connections.readyRd(rdB, QKEY, AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
        for (int i = 0; i < 4; i++) {
            rdB.postRecv(new RecvWorkRequest().wrId(1000 + i).sge(target.address() + 16384, 8192, target.lkey()));
        }
    }

    private void connect() {
        rcA = pdA.createQp(QpInitAttributes.rc(cqA, cqA));
        rcB = pdB.createQp(QpInitAttributes.rc(cqB, cqB));
        Connections.connectPair(rcA, mrA, PSN_A, rcB, target, PSN_B, RcOptions.defaults().withRetry(10, 1, 1));
        receivesPosted = 0;
        topUpReceives();
    }

    private void topUpReceives() {
        while (cqB.poll(wc)) {
            if (wc.qpNum() == rcB.qpn()) {
                receivesPosted--;
            }
        }
        while (cqA.poll(wc)) {
            // A only sees answers to nothing it asked: ghost responses it drops
        }
        while (receivesPosted < 4) {
            rcB.postRecv(new RecvWorkRequest().wrId(receivesPosted).sge(target.address() + 32768, 8192, target.lkey()));
            receivesPosted++;
        }
    }

    /** Runs one input: one to four packets at B, then the network until it is quiet, then the checks. */
    void exercise(Choices in) {
        inputs++;
        int n = in.intIn(1, 4);
        boolean rd = in.intIn(0, 3) == 0; // a quarter of the inputs are RD requests at B's EE context
        // The responder's live expected PSN (ibv_query_qp's rq_psn): the requests the attacker
        // gets accepted move it, and PSNs near it reach the deepest checks.
        int expected = rd ? eecB.query().rqPsn() : rcB.query().rqPsn();
        for (int i = 0; i < n; i++) {
            ByteBuf packet = in.intIn(0, 7) == 0 ? raw(in) : crafted(in, expected + i, rd);
            if (packet != null) {
                packets++;
                wireA.send(packet, rd ? eecA.sourcePort() : rcA.sourcePort(), wireB.localAddress());
            }
        }
        net.scheduler().runUntil(() -> false, 50_000_000_000L);
        check();
        if (eecB.state() != QpState.RTS || eecA.state() != QpState.RTS || rdB.state() != QpState.RTS
                || outOfSync(eecA.query().sqPsn(), eecB.query().rqPsn())) {
            rebuilds++;
            rdRebuilds++;
            rdB.close();
            eecA.close();
            eecB.close();
            connectRd();
        }
        if (rcB.state() != QpState.RTS || rcA.state() != QpState.RTS
                || outOfSync(rcA.query().sqPsn(), rcB.query().rqPsn())) {
            // An input that legitimately errors the QPs (a class-B NAK, say) would leave every
            // later input talking to a dead QP: start the next one on a fresh pair.
            rebuilds++;
            rcRebuilds++;
            rcA.close();
            rcB.close();
            connect();
        } else {
            topUpReceives();
        }
    }

    /**
     * Whether a pair has drifted apart: the requests the attacker got accepted in A's name moved
     * B's expected PSN away from A's next PSN, which never moves (A sends nothing). A little
     * drift keeps multi-input sequences possible; past {@link #MAX_DRIFT} PSNs the pair no longer
     * resembles a connection and a fresh one is made.
     */
    private static boolean outOfSync(int requesterNext, int responderExpected) {
        return io.rnic.core.psn.Psn.forward(requesterNext, responderExpected) > MAX_DRIFT;
    }

    /** Arbitrary bytes: the decoder's business. */
    private ByteBuf raw(Choices in) {
        byte[] bytes = in.bytes(600);
        return Unpooled.wrappedBuffer(bytes);
    }

    /** A well-formed packet, ICRC and all, whose fields the fuzzer picks among meaningful and arbitrary values. */
    private ByteBuf crafted(Choices in, int psnHint, boolean rd) {
        // Mostly RC (or RD) requests, which reach the deepest checks of the QP (or EE context);
        // every other opcode too.
        List<Opcode> requests = rd ? RD_REQUESTS : RC_REQUESTS;
        Opcode op = in.intIn(0, 9) < 7 ? requests.get(in.intIn(0, requests.size() - 1))
                : OPCODES.get(in.intIn(0, OPCODES.size() - 1));
        PacketFields f = new PacketFields().opcode(op);
        f.destQp = switch (in.intIn(0, 3)) {
            case 0 -> rd ? (in.bool() ? strangerRd.qpn() : rcB.qpn()) : ud.qpn();
            case 1 -> in.intIn(0, 0xFFFFFF);
            default -> rd ? rdB.qpn() : rcB.qpn();
        };
        // The context an RDETH names: B's EE context, a QP (no context in EE mode), or anything.
        f.rdethEec = switch (in.intIn(0, 5)) {
            case 0 -> rdB.qpn();
            case 1 -> in.intIn(0, 0xFFFFFF);
            default -> eecB.eecn();
        };
        f.psn = switch (in.intIn(0, 3)) {
            case 0, 1 -> psnHint;
            case 2 -> psnHint + in.intIn(-4, 4);
            default -> in.intIn(0, 0xFFFFFF);
        } & 0xFFFFFF;
        f.pkey = in.intIn(0, 15) == 0 ? in.intIn(0, 0xFFFF) : 0xFFFF;
        f.solicited = in.bool();
        f.ackReq = in.bool();
        f.migReq = in.bool();
        long va = address(in);
        int rkey = rkey(in);
        f.rethVa = va;
        f.rethRkey = rkey;
        f.rethLength = switch (in.intIn(0, 3)) {
            case 0 -> in.intIn(0, 64);
            case 1 -> in.intIn(0, 8192);
            case 2 -> (int) in.anyLong();
            default -> 8;
        };
        f.atomicVa = va;
        f.atomicRkey = rkey;
        f.atomicSwapAdd = in.anyLong();
        f.atomicCompare = in.anyLong();
        f.immediate = (int) in.anyLong();
        f.invalidateRkey = rkey(in);
        f.dethQkey = in.bool() ? QKEY : (int) in.anyLong();
        f.dethSrcQp = rd ? in.intIn(0, 0xFFFFFF) : rcA.qpn();
        f.aethSyndrome = in.intIn(0, 0xFF);
        f.aethMsn = in.intIn(0, 0xFFFFFF);
        f.fethSelectivity = in.intIn(0, 3);
        f.fethPlacement = in.intIn(0, 3);
        f.payload(switch (op.payload()) {
            case NONE -> new byte[0];
            case EIGHT_BYTES -> java.util.Arrays.copyOf(in.bytes(8), 8);
            // the path MTU (1024) exactly, as FIRST and MIDDLE packets must be, or any length
            case DATA -> in.bool() ? java.util.Arrays.copyOf(in.bytes(1024), 1024) : in.bytes(4096);
        });
        PseudoHeader ph = new PseudoHeader().addresses(wireA.localAddress().getAddress(), wireB.localAddress().getAddress())
                .ports(rd ? eecA.sourcePort() : rcA.sourcePort(), wireB.localAddress().getPort());
        ByteBuf buf = Unpooled.buffer();
        try {
            encoder.encode(f, ph, buf, scratch);
        } catch (IllegalArgumentException | IllegalStateException e) {
            buf.release();
            return null; // a combination the encoder refuses to build: nothing to send
        }
        if (in.intIn(0, 31) == 0) {
            int at = in.intIn(0, buf.readableBytes() - 1);
            buf.setByte(at, buf.getByte(at) ^ (1 << in.intIn(0, 7))); // a bit flipped in flight
        }
        return buf;
    }

    private long address(Choices in) {
        return switch (in.intIn(0, 5)) {
            case 0 -> target.address() + in.intIn(-64, TARGET_BYTES + 64);
            case 1 -> canary.address() + in.intIn(-64, CANARY_BYTES + 64);
            case 2 -> otherPd.address() + in.intIn(0, CANARY_BYTES);
            case 3 -> -in.intIn(1, 4096); // just below 2^64: a length that wraps
            case 4 -> in.anyLong();
            default -> target.address() + 8L * in.intIn(0, TARGET_BYTES / 8 - 1);
        };
    }

    private int rkey(Choices in) {
        return switch (in.intIn(0, 5)) {
            case 0 -> canary.rkey();
            case 1 -> otherPd.rkey();
            case 2 -> canary.lkey();
            case 3 -> (int) in.anyLong();
            case 4 -> target.rkey() ^ (1 << in.intIn(0, 7)); // a stale key byte
            default -> target.rkey();
        };
    }

    /** What no input may break. */
    void check() {
        if (net.scheduler().errors() != 0) {
            throw new AssertionError("an exception escaped the event loop after " + inputs + " inputs",
                    net.scheduler().lastError());
        }
        long internal = a.counters().get(Counter.INTERNAL_ERRORS) + b.counters().get(Counter.INTERNAL_ERRORS);
        if (internal != 0) {
            // The HCA caught it (and logged it): still a bug that a packet could provoke.
            throw new AssertionError(internal + " internal errors in the HCAs after " + inputs + " inputs (see the log)");
        }
        assertUntouched("canary (B's PD, no remote rights)", canaryBuf, canarySnapshot);
        assertUntouched("region of another PD", otherPdBuf, otherPdSnapshot);
        for (MemoryRegion mr : new MemoryRegion[] {canary, otherPd, target}) {
            if (io.rnic.core.hca.HcaAccess.of(b).keys().lookup(mr.lkey()) == null || io.rnic.core.hca.HcaAccess.of(b).keys().lookup(mr.rkey()) == null) {
                throw new AssertionError("a peer revoked registered region " + mr);
            }
        }
    }

    private static void assertUntouched(String what, ByteBuffer buf, byte[] snapshot) {
        for (int i = 0; i < snapshot.length; i++) {
            if (buf.get(i) != snapshot[i]) {
                throw new AssertionError(what + " changed at byte " + i + ": a request that failed its checks touched memory");
            }
        }
    }

    long inputs() {
        return inputs;
    }

    long packets() {
        return packets;
    }

    long rebuilds() {
        return rebuilds;
    }

    /** RC pairs rebuilt (errored or out of sync). */
    long rcRebuilds() {
        return rcRebuilds;
    }

    /** RD pairs of EE contexts rebuilt. */
    long rdRebuilds() {
        return rdRebuilds;
    }

    RdmaDevice responder() {
        return b;
    }

    @Override
    public void close() {
        a.close();
        b.close();
        net.close();
    }
}
