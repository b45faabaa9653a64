package io.rnic.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.bench.demo.DemoPair;
import io.rnic.bench.demo.FaultSpec;
import io.rnic.verbs.Counter;
import io.rnic.verbs.RcOptions;
import org.junit.jupiter.api.Test;

/**
 * Mixed RC traffic through a lossy, reordering, duplicating, corrupting network: every
 * operation completes successfully, every byte is verified, and atomics apply exactly once.
 */
class SoakTest {

    @Test
    void aHundredThousandMixedOperationsSurviveLossReorderDuplicationAndCorruption() throws Exception {
        FaultSpec faults = new FaultSpec(0.05, 0.05, 0.01, 0.001, 20_000);
        // timeout 10 (4.2 ms) keeps virtual time short; the rules are the same as with 14.
        RcOptions o = RcOptions.defaults().withRetry(10, 7, 7);
        try (DemoPair p = new DemoPair(false, "10.0.0.2", "10.0.0.3", 4791, 7, o, null, w -> w, faults.simSetup())) {
            MixedWorkload.Result r = new MixedWorkload(p, 7).run(100_000);
            assertTrue(r.ok(), r.firstFailure());
            assertEquals(100_000, r.ops());
            assertTrue(r.sends() > 0 && r.writes() > 0 && r.reads() > 0 && r.compareSwaps() > 0 && r.fetchAdds() > 0
                    && r.atomicWrites() > 0 && r.flushes() > 0, r.toString());
            // Retried ATOMIC WRITEs and FLUSHes are answered, never executed again (reference §5.8).
            assertEquals(r.atomicWrites(), p.b.counters().get(Counter.ATOMIC_WRITES_EXECUTED));
            assertEquals(r.flushes(), p.b.counters().get(Counter.FLUSHES_EXECUTED));
            var a = p.a.counters();
            var b = p.b.counters();
            assertTrue(a.get(Counter.RETRANSMITTED_PKTS) > 0 && b.get(Counter.DUPLICATE_REQUEST) > 0
                    && b.get(Counter.OUT_OF_SEQ_REQUEST) > 0 && a.get(Counter.RCVD_ICRC_ERR) + b.get(Counter.RCVD_ICRC_ERR) > 0,
                    "the faults were exercised: A " + a + " B " + b);
        }
    }

    /**
     * Out-of-order loss recovery keeps RC's guarantees (issue 15): in posting order, exactly once, data
     * exact, atomics, ATOMIC WRITEs and FLUSHes executed once, through the same faults.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = io.rnic.verbs.LossRecovery.class, names = {"REORDER", "SELECTIVE"})
    void theSameWorkloadWithOutOfOrderLossRecoverySurvivesTheSameFaults(io.rnic.verbs.LossRecovery mode) throws Exception {
        FaultSpec faults = new FaultSpec(0.05, 0.05, 0.01, 0.001, 20_000);
        RcOptions o = RcOptions.defaults().withRetry(10, 7, 7).withLossRecovery(mode);
        try (DemoPair p = new DemoPair(false, "10.0.0.2", "10.0.0.3", 4791, 10, o, null, w -> w, faults.simSetup())) {
            MixedWorkload.Result r = new MixedWorkload(p, 10).run(30_000);
            assertTrue(r.ok(), r.firstFailure());
            assertEquals(30_000, r.ops());
            assertEquals(r.atomicWrites(), p.b.counters().get(Counter.ATOMIC_WRITES_EXECUTED));
            assertEquals(r.flushes(), p.b.counters().get(Counter.FLUSHES_EXECUTED));
            var b = p.b.counters();
            assertTrue(b.get(Counter.OOO_REQUESTS_HELD) + b.get(Counter.OOO_REQUESTS_PLACED) > 0
                    && b.get(Counter.HOLE_NAKS_SENT) > 0 && p.a.counters().get(Counter.OOO_READ_RESPONSES) > 0,
                    "the reorder buffer and the READ window were exercised: A " + p.a.counters() + " B " + b);
            if (mode == io.rnic.verbs.LossRecovery.SELECTIVE) {
                assertTrue(p.a.counters().get(Counter.SELECTIVE_RETRANSMISSIONS) > 0, p.a.counters().toString());
            }
        }
    }

    /** XRC's reliability is RC's: the same workload through an XRC initiator and target, to an XRC SRQ. */
    @Test
    void theSameWorkloadThroughXrcSurvivesTheSameFaults() throws Exception {
        FaultSpec faults = new FaultSpec(0.05, 0.05, 0.01, 0.001, 20_000);
        RcOptions o = RcOptions.defaults().withRetry(10, 7, 7);
        try (DemoPair p = new DemoPair(false, "10.0.0.2", "10.0.0.3", 4791, 8, io.rnic.verbs.QpType.XRC_SEND, o, null,
                w -> w, faults.simSetup())) {
            MixedWorkload.Result r = new MixedWorkload(p, 8).run(30_000);
            assertTrue(r.ok(), r.firstFailure());
            assertEquals(30_000, r.ops());
            assertTrue(p.a.counters().get(Counter.RETRANSMITTED_PKTS) > 0, p.a.counters().toString());
        }
    }

    /**
     * RD's reliability is RC's, kept per EE context: the same workload (WRITEs in place of ATOMIC
     * WRITE and FLUSH, which RD does not carry) from an RD QP through an EE context, one message
     * at a time, every byte checked and every FETCH_ADD applied once.
     */
    @Test
    void theSameWorkloadThroughAnEeContextSurvivesTheSameFaults() throws Exception {
        FaultSpec faults = new FaultSpec(0.05, 0.05, 0.01, 0.001, 20_000);
        RcOptions o = RcOptions.defaults().withRetry(10, 7, 7);
        try (DemoPair p = new DemoPair(false, "10.0.0.2", "10.0.0.3", 4791, 9, io.rnic.verbs.QpType.RD, o, null,
                w -> w, faults.simSetup())) {
            MixedWorkload.Result r = new MixedWorkload(p, 9).run(30_000);
            assertTrue(r.ok(), r.firstFailure());
            assertEquals(30_000, r.ops());
            assertEquals(0, r.atomicWrites() + r.flushes());
            assertTrue(p.a.counters().get(Counter.RETRANSMITTED_PKTS) > 0, p.a.counters().toString());
            assertTrue(p.b.counters().get(Counter.DUPLICATE_REQUEST) > 0, p.b.counters().toString());
        }
    }

    @Test
    void theSameWorkloadOverUdpWithSeededFaults() throws Exception {
        FaultSpec faults = new FaultSpec(0.02, 0.02, 0.01, 0.001, 200_000);
        // rdma-core's default timeout (14: 67 ms): real sockets on a busy 2-core machine see
        // milliseconds of scheduling delay, and a shorter timer would retry spuriously.
        RcOptions o = RcOptions.defaults();
        try (DemoPair p = new DemoPair(true, "127.0.84.2", "127.0.84.3", 4791, 9, o, null, faults.wrapper(9), null)) {
            MixedWorkload.Result r = new MixedWorkload(p, 9).run(3_000);
            assertTrue(r.ok(), r.firstFailure());
            assertEquals(3_000, r.ops());
        }
    }

    /** The extended protocol over real sockets with injected faults (issue 15): RC's guarantees hold. */
    @Test
    void theSameWorkloadOverUdpWithTheExtendedProtocol() throws Exception {
        FaultSpec faults = new FaultSpec(0.02, 0.02, 0.01, 0.001, 200_000);
        RcOptions o = RcOptions.defaults().withLossRecovery(io.rnic.verbs.LossRecovery.SELECTIVE);
        try (DemoPair p = new DemoPair(true, "127.0.84.6", "127.0.84.7", 4791, 11, o, null, faults.wrapper(11), null)) {
            MixedWorkload.Result r = new MixedWorkload(p, 11).run(3_000);
            assertTrue(r.ok(), r.firstFailure());
            assertEquals(3_000, r.ops());
            assertTrue(p.a.counters().get(Counter.SELECTIVE_RETRANSMISSIONS) > 0, p.a.counters().toString());
        }
    }
}
