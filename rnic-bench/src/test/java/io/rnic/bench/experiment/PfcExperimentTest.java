package io.rnic.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The three PFC pathologies arise on the fabric, and each scenario's verdict holds; a seed fixes the figures. */
class PfcExperimentTest {
    @Test
    void anIncastsPauseBlocksAVictimBehindTheSharedLink() {
        PfcExperiment.Verdict v = PfcExperiment.headOfLineBlocking(1);
        assertTrue(v.holds(), v.text());
        assertEquals(v.text(), PfcExperiment.headOfLineBlocking(1).text(), "deterministic");
    }

    @Test
    void flowsAroundARingOfSwitchesDeadlock() {
        PfcExperiment.Verdict v = PfcExperiment.deadlock(1, 1_000_000);
        assertTrue(v.holds(), v.text());
        assertTrue(v.text().contains("a cycle of 5 paused queues"), v.text());
    }

    @Test
    void aPauseStormSpreadsUntilTheWatchdogStopsIt() {
        PfcExperiment.Verdict v = PfcExperiment.storm(1);
        assertTrue(v.holds(), v.text());
    }
}
