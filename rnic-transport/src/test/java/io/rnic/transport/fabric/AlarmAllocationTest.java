package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rnic.core.time.Alarm;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimScheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulator's {@link Alarm} (a QP's pacing timer): set again and again, later each time, it
 * allocates nothing; set earlier than it is queued, it still runs at the earlier instant.
 */
class AlarmAllocationTest {
    @Test
    void reArmingAnAlarmAllocatesNothing() {
        try (SimNetwork net = new SimNetwork(1)) {
            SimScheduler s = net.scheduler();
            long[] fired = {0};
            Alarm alarm = s.alarm(() -> fired[0]++);
            Allocations.assertNonePerCall(20_000, () -> {
                alarm.set(s.nanoTime() + 100);
                alarm.set(s.nanoTime() + 250); // later: the queued activation runs early, the task re-checks
                s.runUntilIdle();
            });
            assertEquals(40_000, fired[0]);
        }
    }

    @Test
    void anAlarmMovedEarlierRunsAtTheEarlierInstant() {
        try (SimNetwork net = new SimNetwork(1)) {
            SimScheduler s = net.scheduler();
            List<Long> at = new ArrayList<>();
            Alarm alarm = s.alarm(() -> at.add(s.nanoTime()));
            alarm.set(1_000);
            alarm.set(400);
            s.runUntilIdle();
            assertEquals(List.of(400L, 1_000L), at, "at 400 as asked; the queued one at 1000 runs too, harmlessly");
        }
    }
}
