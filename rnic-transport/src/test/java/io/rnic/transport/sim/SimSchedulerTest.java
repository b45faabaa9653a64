package io.rnic.transport.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The event queue runs events in (time, order scheduled) order, whatever structure holds them. */
class SimSchedulerTest {

    /**
     * Many interleaved streams, each later than its last (as link directions are), plus events
     * out of any order (as timers are): more streams than the queue has lanes, so some go to the
     * heap; the run order must be the sorted one.
     */
    @Test
    void interleavedStreamsAndStrayEventsRunInTimeThenSchedulingOrder() {
        SimScheduler s = new SimScheduler();
        SplittableRandom r = new SplittableRandom(5);
        long[] streamTime = new long[7];
        List<long[]> scheduled = new ArrayList<>(); // {time, sequence}
        List<Long> ran = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            long delay;
            if (r.nextInt(10) == 0) {
                delay = r.nextLong(0, 1_000_000); // a stray event
            } else {
                int k = r.nextInt(streamTime.length);
                streamTime[k] += r.nextInt(0, 300); // equal times happen too
                delay = streamTime[k];
            }
            long seq = i;
            scheduled.add(new long[] {delay, seq});
            s.schedule(delay, () -> ran.add(seq));
        }
        s.runUntilIdle();
        scheduled.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        List<Long> expected = new ArrayList<>();
        for (long[] e : scheduled) {
            expected.add(e[1]);
        }
        assertEquals(expected, ran);
    }
}
