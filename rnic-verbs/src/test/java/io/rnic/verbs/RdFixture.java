package io.rnic.verbs;

/**
 * A {@link SimPair} set up for reliable datagram service: one RDD per node, one EE context on A
 * connected to one on B, and two RD QPs on each node (Q_Key {@link #QKEY}), A's sending through
 * the one context to either of B's. Tests add contexts or QPs they need.
 */
class RdFixture extends SimPair {
    static final int QKEY = 0x11110000;
    final ReliableDatagramDomain rddA;
    final ReliableDatagramDomain rddB;
    final EeContext eecA;
    final EeContext eecB;
    final QueuePair a1;
    final QueuePair a2;
    final QueuePair b1;
    final QueuePair b2;

    RdFixture(long seed) {
        this(seed, RcOptions.defaults());
    }

    RdFixture(long seed, RcOptions options) {
        super(seed);
        rddA = a.allocRdd();
        rddB = b.allocRdd();
        eecA = rddA.createEeContext();
        eecB = rddB.createEeContext();
        Connections.connectEeContexts(eecA, 0x100, eecB, 0x200, options);
        a1 = rdQp(pdA, cqA, rddA);
        a2 = rdQp(pdA, cqA, rddA);
        b1 = rdQp(pdB, cqB, rddB);
        b2 = rdQp(pdB, cqB, rddB);
    }

    static QueuePair rdQp(ProtectionDomain pd, CompletionQueue cq, ReliableDatagramDomain rdd) {
        QueuePair qp = pd.createRdQp(QpInitAttributes.rd(cq, cq), rdd);
        Connections.readyRd(qp, QKEY, ALL_ACCESS);
        return qp;
    }

    /** A signaled SEND of {@code length} bytes from {@code offset} of A's buffer to {@code to}, through {@link #eecA}. */
    SendWorkRequest sendTo(QueuePair to, long wrId, int offset, int length) {
        return sendA(wrId, offset, length).rd(eecA.eecn(), to.qpn(), QKEY);
    }
}
