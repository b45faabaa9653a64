package io.rnic.verbs;

import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketFields;

/**
 * A {@link SimPair} with one connected reliable pair: an RC QP on each side, or (for the XRC run
 * of the same tests) an XRC initiator on A and an XRC target on B that delivers to one XRC SRQ
 * of B, whose completions go to B's CQ. Post through {@link #postA} and {@link #postRecvB}, which
 * address the SRQ when the pair is XRC.
 */
class RcFixture extends SimPair {
    final QueuePair qpA;
    final QueuePair qpB;
    /** B's XRC domain and SRQ, or {@code null} for an RC pair. */
    final XrcDomain xrcdB;
    final SharedReceiveQueue srqB;

    RcFixture(long seed) {
        this(seed, RcOptions.defaults(), 0x100, 0x200);
    }

    RcFixture(long seed, RcOptions options, int psnA, int psnB) {
        this(seed, options, psnA, psnB, QpCaps.defaults());
    }

    RcFixture(long seed, RcOptions options, int psnA, int psnB, QpCaps caps) {
        this(seed, options, psnA, psnB, caps, false);
    }

    RcFixture(long seed, RcOptions options, int psnA, int psnB, QpCaps caps, boolean xrc) {
        this(seed, DeviceConfig.defaults(), options, psnA, psnB, caps, xrc);
    }

    RcFixture(long seed, DeviceConfig config, RcOptions options, int psnA, int psnB, QpCaps caps, boolean xrc) {
        super(seed, config);
        if (xrc) {
            xrcdB = b.openXrcd("fixture");
            srqB = pdB.createXrcSrq(xrcdB, cqB, caps.maxRecvWr(), caps.maxRecvSge(), 0);
            qpA = pdA.createQp(new QpInitAttributes(QpType.XRC_SEND, cqA, null, caps, false, false));
            qpB = xrcdB.createTargetQp();
        } else {
            xrcdB = null;
            srqB = null;
            qpA = pdA.createQp(QpInitAttributes.rc(cqA, cqA).withCaps(caps));
            qpB = pdB.createQp(QpInitAttributes.rc(cqB, cqB).withCaps(caps));
        }
        Connections.connectPair(qpA, mrA, psnA, qpB, mrB, psnB, options);
    }

    /** Posts on A's QP, naming B's XRC SRQ when the pair is XRC. */
    void postA(SendWorkRequest wr) {
        if (srqB != null) {
            wr.xrc(srqB.srqn());
        }
        qpA.postSend(wr);
    }

    /** Posts a receive where B's messages take them: B's QP, or its XRC SRQ. */
    void postRecvB(RecvWorkRequest wr) {
        if (srqB != null) {
            srqB.postRecv(wr);
        } else {
            qpB.postRecv(wr);
        }
    }

    /** Fields of a packet to inject with the opcode called {@code name}, an XRC request naming B's SRQ. */
    PacketFields packet(String name) {
        PacketFields f = new PacketFields().opcode(OpcodeTable.byName(name));
        if (srqB != null) {
            f.xrcSrq = srqB.srqn();
        }
        return f;
    }
}
