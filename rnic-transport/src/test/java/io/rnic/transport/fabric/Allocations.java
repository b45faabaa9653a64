package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

/** Heap bytes allocated by the current thread (HotSpot's ThreadMXBean extension). */
final class Allocations {
    private static final com.sun.management.ThreadMXBean BEAN =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Allocations() {
    }

    /** Bytes allocated while running {@code body} {@code times} times, after a warm-up round. */
    static long bytes(int times, Runnable body) {
        for (int i = 0; i < times; i++) {
            body.run();
        }
        long tid = Thread.currentThread().getId();
        BEAN.getThreadAllocatedBytes(tid);
        long before = BEAN.getThreadAllocatedBytes(tid);
        for (int i = 0; i < times; i++) {
            body.run();
        }
        return BEAN.getThreadAllocatedBytes(tid) - before;
    }

    /**
     * Asserts that {@code body} allocates nothing per call: fewer bytes than calls over
     * {@code times} calls, as any object is at least 16 bytes. A few hundred or thousand bytes
     * in the window (the JIT, the measuring itself) are not per call.
     */
    static void assertNonePerCall(int times, Runnable body) {
        long bytes = bytes(times, body);
        assertTrue(bytes < times, bytes + " bytes allocated in " + times + " calls");
    }
}
