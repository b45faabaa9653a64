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
    /** The EE contexts of an RD pair ({@code qpA} and {@code qpB} are then RD QPs), or {@code null}. */
    final EeContext eecA;
    final EeContext eecB;
    static final int RD_QKEY = 0x22220000;

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
        this(seed, config, options, psnA, psnB, caps, xrc, false);
    }

    /**
     * With {@code rd}, a reliable datagram pair: an RD QP on each side and an EE context on each,
     * connected with the PSNs and options an RC pair would have; A's work requests go through
     * A's context to B's QP.
     */
    RcFixture(long seed, DeviceConfig config, RcOptions options, int psnA, int psnB, QpCaps caps, boolean xrc,
              boolean rd) {
        super(seed, config);
        if (rd) {
            xrcdB = null;
            srqB = null;
            eecA = a.allocRdd().createEeContext();
            eecB = b.allocRdd().createEeContext();
            Connections.connectEeContexts(eecA, psnA, eecB, psnB, options);
            qpA = pdA.createRdQp(new QpInitAttributes(QpType.RD, cqA, cqA, caps, false, false), eecA.rdd());
            qpB = pdB.createRdQp(new QpInitAttributes(QpType.RD, cqB, cqB, caps, false, false), eecB.rdd());
            Connections.readyRd(qpA, RD_QKEY, options.accessFlags());
            Connections.readyRd(qpB, RD_QKEY, options.accessFlags());
            // The RNR timer an RD responder NAKs with is its QP's (its receive queue's) own.
            qpA.modify(new QpAttributes().minRnrTimer(options.minRnrTimer()));
            qpB.modify(new QpAttributes().minRnrTimer(options.minRnrTimer()));
            return;
        }
        eecA = null;
        eecB = null;
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
        if (eecA != null) {
            wr.rd(eecA.eecn(), qpB.qpn(), RD_QKEY);
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
        if (eecA != null) { // responses name the requester's context, requests the responder's
            boolean response = OpcodeTable.byName(name).isResponse();
            f.rdethEec = response ? eecA.eecn() : eecB.eecn();
            f.dethQkey = RD_QKEY;
            f.dethSrcQp = qpA.qpn();
        }
        return f;
    }

    /** The UDP source port A's packets come from: its QP's flow, or its EE context's. */
    int portA() {
        return eecA != null ? eecA.sourcePort() : qpA.sourcePort();
    }

    /** The UDP source port B's packets come from. */
    int portB() {
        return eecB != null ? eecB.sourcePort() : qpB.sourcePort();
    }
}
