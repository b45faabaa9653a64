package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rnic.verbs.testing.RcPair;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code ibv_query_qp} reports the live PSNs, as rxe does (issue 39, defect 6): {@code sq_psn}
 * is the PSN the requester's next new packet takes, {@code rq_psn} the PSN the responder expects
 * next, not the values the connection set. On both wires: on UDP the query crosses from the
 * test's thread to the protocol thread.
 */
class QpQueryTest {
    private static final int PSN_A = 0x100; // RcPair: A sends from 0x100, B from 0x200
    private static final int PSN_B = 0x200;
    private static final int MTU = 1024; // RcOptions.defaults()

    enum WireKind { SIM, UDP }

    private static RcPair pair(WireKind w) {
        return w == WireKind.SIM ? RcPair.simulated(61)
                : RcPair.udp("127.0.193.1", "127.0.194.1", RcOptions.defaults());
    }

    @ParameterizedTest
    @EnumSource(WireKind.class)
    void queryReportsTheRequestersNextPsnAndTheRespondersExpectedPsn(WireKind wire) {
        try (RcPair p = pair(wire)) {
            assertEquals(PSN_A, p.qpA().query().sqPsn(), "nothing sent yet");
            assertEquals(PSN_A, p.qpB().query().rqPsn());
            // WRITEs of 1, 3 and 5 packets (9 PSNs), then a READ of 4 response packets (4 PSNs, C9-88).
            p.qpA().postSend(p.write(1, 0, 100));
            p.qpA().postSend(p.write(2, 0, 3 * MTU));
            p.qpA().postSend(p.write(3, 0, 4 * MTU + 1));
            p.qpA().postSend(p.read(4, 65536, 4 * MTU));
            List<WorkCompletion> done = p.awaitA(4);
            for (WorkCompletion wc : done) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            }
            int sent = 1 + 3 + 5 + 4;
            assertEquals(PSN_A + sent, p.qpA().query().sqPsn(), "A's requester moved on");
            assertEquals(PSN_A + sent, p.qpB().query().rqPsn(), "B's responder expects the next one");
            assertEquals(PSN_B, p.qpB().query().sqPsn(), "B requested nothing: responses use the request PSNs");
            assertEquals(PSN_B, p.qpA().query().rqPsn());
            // A request the other way moves the other pair of counters.
            p.qpB().postSend(new SendWorkRequest().wrId(5).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(p.mrB().address(), 2 * MTU, p.mrB().lkey()).rdma(p.mrA().address(), p.mrA().rkey()));
            assertEquals(WcStatus.SUCCESS, p.awaitB(1).get(0).status());
            assertEquals(PSN_B + 2, p.qpB().query().sqPsn());
            assertEquals(PSN_B + 2, p.qpA().query().rqPsn());
        }
    }
}
