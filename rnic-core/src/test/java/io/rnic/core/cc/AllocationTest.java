package io.rnic.core.cc;

import io.rnic.core.Allocations;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The per-packet methods allocate nothing, through every path: pacing with and without a
 * look-ahead, byte-counter events, cuts, increase runs in closed form, RTT updates.
 */
class AllocationTest {
    static final long LINE = 100_000_000_000L;

    private static Runnable traffic(CongestionControl cc) {
        long[] now = {0};
        long[] n = {0};
        return () -> {
            long t = now[0];
            long k = n[0]++;
            if (k % 997 == 0) {
                cc.onCnp(t);
            }
            t = Math.max(t, cc.earliestSend(t, 4096)) + (k % 13 == 0 ? 40_000 : 0);
            cc.onSend(t, 4096);
            if (k % 3 == 0) {
                cc.onAck(t, 20_000 + (k * 7919) % 600_000);
            }
            cc.advanceTo(t + 1);
            now[0] = t + 1;
        };
    }

    private static void allocatesNothing(CongestionControl cc) {
        long bytes = Allocations.bytes(200_000, traffic(cc));
        assertTrue(bytes < 1024, cc + ": " + bytes + " bytes allocated");
    }

    @Test
    void dcqcnAllocatesNothingPerPacket() {
        allocatesNothing(new Dcqcn(new DcqcnParameters(1.0 / 256, 55_000, 10_000, 20_000, 5, 40_000_000,
                200_000_000, 100_000_000, 1.0), LINE));
    }

    @Test
    void dcqcnMlxAllocatesNothingPerPacket() {
        allocatesNothing(new DcqcnMlx(DcqcnMlxParameters.hpccRunPy(LINE), LINE));
    }

    @Test
    void timelyAllocatesNothingPerPacket() {
        allocatesNothing(new Timely(TimelyParameters.hpcc(LINE), LINE));
        allocatesNothing(new Timely(TimelyParameters.patched(LINE), LINE));
    }

    @Test
    void theCnpLimiterAllocatesNothing() {
        CnpLimiter np = new CnpLimiter(50_000);
        long[] now = {0};
        long bytes = Allocations.bytes(200_000, () -> np.onCeMarked(now[0] += 300));
        assertTrue(bytes < 1024, bytes + " bytes allocated");
    }
}
