package io.rnic.core;

import java.lang.management.ManagementFactory;

/** Measures heap bytes allocated by the current thread (HotSpot's ThreadMXBean extension). */
public final class Allocations {
    private static final com.sun.management.ThreadMXBean BEAN =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Allocations() {
    }

    /** Bytes allocated while running {@code body} {@code times} times, after a warm-up round. */
    public static long bytes(int times, Runnable body) {
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
}
