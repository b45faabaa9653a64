package io.rnic.verbs;

/** A {@link SimPair} with one connected RC QP on each side. */
final class RcFixture extends SimPair {
    final QueuePair qpA;
    final QueuePair qpB;

    RcFixture(long seed) {
        this(seed, RcOptions.defaults(), 0x100, 0x200);
    }

    RcFixture(long seed, RcOptions options, int psnA, int psnB) {
        this(seed, options, psnA, psnB, QpCaps.defaults());
    }

    RcFixture(long seed, RcOptions options, int psnA, int psnB, QpCaps caps) {
        super(seed);
        qpA = pdA.createQp(QpInitAttributes.rc(cqA, cqA).withCaps(caps));
        qpB = pdB.createQp(QpInitAttributes.rc(cqB, cqB).withCaps(caps));
        Connections.connectPair(qpA, mrA, psnA, qpB, mrB, psnB, options);
    }
}
