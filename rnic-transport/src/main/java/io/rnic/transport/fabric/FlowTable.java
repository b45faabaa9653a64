package io.rnic.transport.fabric;

import java.util.ArrayList;
import java.util.List;

/**
 * Per-flow delivery counts, keyed by (source host, destination host, source port, destination
 * port) packed into one long: open addressing over parallel arrays, so counting a delivery
 * allocates nothing (the table doubles, rarely, as flows appear).
 */
final class FlowTable {
    private long[] keys = new long[64];
    private boolean[] used = new boolean[64];
    private long[] frames = new long[64];
    private long[] bytes = new long[64];
    private long[] first = new long[64];
    private long[] last = new long[64];
    private int size;

    static long key(int srcHost, int dstHost, int sourcePort, int destPort) {
        return (long) (srcHost & 0xFFFF) << 48 | (long) (dstHost & 0xFFFF) << 32 | (long) (sourcePort & 0xFFFF) << 16
                | destPort & 0xFFFF;
    }

    /** Counts {@code n} bytes of flow {@code key} delivered at {@code now}. */
    void count(long key, int n, long now) {
        int i = slot(key);
        if (!used[i]) {
            used[i] = true;
            keys[i] = key;
            first[i] = now;
            if (++size * 2 > keys.length) {
                grow();
                i = slot(key);
            }
        }
        frames[i]++;
        bytes[i] += n;
        last[i] = now;
    }

    private int slot(long key) {
        int mask = keys.length - 1;
        int i = (int) (mix(key) & mask);
        while (used[i] && keys[i] != key) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        return z ^ (z >>> 33);
    }

    private void grow() {
        long[] k = keys;
        boolean[] u = used;
        long[] fr = frames;
        long[] b = bytes;
        long[] f = first;
        long[] l = last;
        int n = k.length * 2;
        keys = new long[n];
        used = new boolean[n];
        frames = new long[n];
        bytes = new long[n];
        first = new long[n];
        last = new long[n];
        for (int j = 0; j < k.length; j++) {
            if (u[j]) {
                int i = slot(k[j]);
                used[i] = true;
                keys[i] = k[j];
                frames[i] = fr[j];
                bytes[i] = b[j];
                first[i] = f[j];
                last[i] = l[j];
            }
        }
    }

    /** A snapshot, ordered by key (source host, destination host, ports). */
    List<FlowStats> snapshot() {
        List<FlowStats> out = new ArrayList<>(size);
        for (int i = 0; i < keys.length; i++) {
            if (used[i]) {
                long k = keys[i];
                out.add(new FlowStats((int) (k >>> 48), (int) (k >>> 32) & 0xFFFF, (int) (k >>> 16) & 0xFFFF,
                        (int) k & 0xFFFF, frames[i], bytes[i], first[i], last[i]));
            }
        }
        out.sort(java.util.Comparator.comparingInt(FlowStats::srcHost).thenComparingInt(FlowStats::dstHost)
                .thenComparingInt(FlowStats::sourcePort).thenComparingInt(FlowStats::destPort));
        return out;
    }
}
