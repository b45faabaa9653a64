package io.rnic.bench.cli;

import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.testing.RcPair;

/**
 * The JVM {@code rnic res show} reads in {@link ResCommandTest}: two devices on a simulated
 * network with a connected RC pair (a WRITE done, two receives posted on B) and a third QP on A
 * moved to ERR. It prints {@code READY <pid>} once all is set, then idles (nothing runs the
 * network, so reads from the JMX thread see it still) until its standard input closes, or for
 * two minutes at most.
 */
public final class ResShowTarget {
    private ResShowTarget() {
    }

    /**
     * Runs the target.
     *
     * @param args none
     * @throws Exception if the setup fails
     */
    public static void main(String[] args) throws Exception {
        try (RcPair p = RcPair.simulated(44)) {
            p.qpA().postSend(p.write(1, 0, 3000));
            if (p.awaitA(1).get(0).status() != WcStatus.SUCCESS) {
                throw new IllegalStateException("the WRITE failed");
            }
            p.qpB().postRecv(p.recv(7, 0, 64));
            p.qpB().postRecv(p.recv(8, 0, 64));
            QueuePair broken = p.a().allocPd().createQp(QpInitAttributes.rc(p.cqA(), p.cqA()));
            broken.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
            broken.modify(new QpAttributes().state(QpState.ERR));
            System.out.println("QPS " + p.qpA().qpn() + " " + p.qpB().qpn() + " " + broken.qpn());
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            Thread idler = new Thread(() -> {
                try {
                    while (System.in.read() >= 0) {
                        // until the test closes our input
                    }
                } catch (java.io.IOException e) {
                    // input gone: stop as well
                }
            });
            idler.setDaemon(true);
            idler.start();
            idler.join(120_000);
        }
    }
}
