package io.rnic.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A set of {@link Counter}s written by one thread (the HCA's protocol thread) and readable from
 * any thread: plain increments published with release stores, no atomic read-modify-write.
 */
public final class Counters {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private final long[] values = new long[Counter.values().length];

    /**
     * Adds one; only the owning thread may call it.
     *
     * @param c the counter to increment
     */
    public void inc(Counter c) {
        int i = c.ordinal();
        SLOT.setRelease(values, i, values[i] + 1);
    }

    /**
     * Adds {@code n}; only the owning thread may call it.
     *
     * @param c the counter to add to
     * @param n the amount to add
     */
    public void add(Counter c, long n) {
        int i = c.ordinal();
        SLOT.setRelease(values, i, values[i] + n);
    }

    /**
     * Reads one counter; any thread may call it.
     *
     * @param c the counter to read
     * @return its current value
     */
    public long get(Counter c) {
        return (long) SLOT.getAcquire(values, c.ordinal());
    }

    /**
     * Reads every counter, for reports and tests.
     *
     * @return every counter's value by {@link Counter#label()}, in declaration order
     */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : Counter.values()) {
            m.put(c.label(), get(c));
        }
        return m;
    }

    /**
     * Reads the counters that are not zero, for short reports.
     *
     * @return the non-zero counters by {@link Counter#label()}, in declaration order
     */
    public Map<String, Long> nonZero() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : Counter.values()) {
            long v = get(c);
            if (v != 0) {
                m.put(c.label(), v);
            }
        }
        return m;
    }

    @Override
    public String toString() {
        return nonZero().toString();
    }
}
