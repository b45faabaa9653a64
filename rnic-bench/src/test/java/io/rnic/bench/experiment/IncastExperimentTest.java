package io.rnic.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.fabric.FabricConfig;
import io.rnic.verbs.LossRecovery;
import io.rnic.verbs.PathMtu;
import java.util.List;
import org.junit.jupiter.api.Test;

class IncastExperimentTest {
    static IncastExperiment.Config small(boolean pfc, long buffer, IncastExperiment.Op op, long stagger) {
        return new IncastExperiment.Config(4, 256 * 1024, "star", 100_000_000_000L, buffer, pfc, true,
                LossRecovery.GO_BACK_N, op, stagger, 3, PathMtu.MTU_1024, 6, FabricConfig.DEFAULT);
    }

    @Test
    void anIncastWithPfcDropsNothingAndCompletesNearTheIdeal() {
        IncastExperiment.Result r = IncastExperiment.run(small(true, 1 << 20, IncastExperiment.Op.WRITE, 0), null);
        assertTrue(r.allSucceeded());
        assertEquals(0, r.drops());
        assertEquals(0, r.retransmissions());
        assertTrue(r.completionNanos() >= r.idealNanos() - r.baseRttNanos(), r.completionNanos() + " vs " + r.idealNanos());
        assertTrue(r.completionNanos() < 1.5 * r.idealNanos(), "no loss, so close to the ideal: " + r.completionNanos()
                + " against " + r.idealNanos());
        assertTrue(r.jain() > 0.9, "four equal senders share the bottleneck: " + r.jain());
        assertTrue(r.maxQueueBytes() > 0);
    }

    @Test
    void withoutPfcASmallBufferDropsAndTheQpsRecover() {
        for (IncastExperiment.Op op : IncastExperiment.Op.values()) {
            IncastExperiment.Result r = IncastExperiment.run(small(false, 256 * 1024, op, 0), null);
            assertTrue(r.allSucceeded(), op + ": " + r.flows());
            assertTrue(r.drops() > 0, op + " drops");
            assertTrue(r.retransmissions() > 0, op + " retransmissions");
            assertEquals(0, r.pauses());
        }
    }

    @Test
    void staggeredSendersStartApartAndOverlapOnlyWhileAllAreActive() {
        IncastExperiment.Result r = IncastExperiment.run(small(true, 1 << 20, IncastExperiment.Op.WRITE, 5_000), null);
        List<IncastExperiment.Flow> f = r.flows();
        assertEquals(List.of(0L, 5_000L, 10_000L, 15_000L), f.stream().map(IncastExperiment.Flow::startNanos).toList());
        assertEquals(15_000, r.overlapStartNanos());
        assertEquals(f.stream().mapToLong(IncastExperiment.Flow::completionNanos).min().getAsLong(), r.overlapEndNanos());
    }

    @Test
    void theSameSeedGivesTheSameCsvAndFigure() {
        IncastReport a = new IncastReport(IncastExperiment.run(small(true, 1 << 20, IncastExperiment.Op.WRITE, 0), null));
        IncastReport b = new IncastReport(IncastExperiment.run(small(true, 1 << 20, IncastExperiment.Op.WRITE, 0), null));
        assertEquals(a.csv(), b.csv());
        assertEquals(a.svg(), b.svg());
        List<String> lines = a.csv().lines().toList();
        assertTrue(lines.get(0).startsWith("# goodput_gbps:"));
        assertEquals(IncastReport.CSV_HEADER, lines.get(1));
        assertEquals(2 + 4 + 1, lines.size());
        assertTrue(lines.get(6).startsWith("all,"));
        for (String column : List.of("completion_ns", "ideal_ns", "goodput_gbps", "overlap_goodput_gbps", "jain",
                "max_queue_bytes", "drops", "retransmissions", "ecn_marks", "pauses", "paused_ns")) {
            assertTrue(lines.get(1).contains(column), column);
        }
    }
}
