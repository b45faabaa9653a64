package io.rnic.core.memory;

import io.rnic.core.time.Clock;

/**
 * The last {@value #CAPACITY} memory keys that stopped granting access (a region deregistered or
 * invalidated, a window invalidated, deallocated or bound anew under another key), with what each
 * was and when it ended on the device's clock: so that a request naming one can be told apart from
 * a key that never existed, and the warning about it ({@code RNIC-W009}) can give its history.
 *
 * <p>A ring, overwritten oldest first, so it stays bounded however many keys come and go. Written
 * under the key table's lock and read on a request's error path only.
 */
public final class RetiredKeys {
    /** Keys remembered. */
    public static final int CAPACITY = 256;

    private final int[] keys = new int[CAPACITY];
    private final String[] what = new String[CAPACITY];
    private final long[] at = new long[CAPACITY];
    private int next;
    private volatile Clock clock;

    /** Sets the clock the retirements are timed by (the wire's: virtual time on the simulated network). */
    public void clock(Clock c) {
        clock = c;
    }

    /** Records that {@code key}, described by {@code description}, stopped granting access because {@code how}. */
    synchronized void retire(int key, String description, String how) {
        Clock c = clock;
        keys[next] = key;
        what[next] = description + ", " + how;
        at[next] = c == null ? -1 : c.nanoTime();
        next = (next + 1) % CAPACITY;
    }

    /** Records that window {@code mw}'s current key stopped granting access because {@code how}. */
    void retire(MemoryWindow mw, String how) {
        MemoryRegion mr = mw.mr();
        retire(mw.rkey(), String.format("type %d memory window rkey 0x%08x (%d bytes%s)", mw.type(), mw.rkey(),
                mw.length(), mr == null ? "" : " of " + mr), how);
    }

    /**
     * The history of {@code key} if it is one of the last keys retired: what it was, how it ended
     * and when; {@code null} otherwise (never issued, or retired too long ago).
     */
    public synchronized String history(int key) {
        for (int k = 1; k <= CAPACITY; k++) { // newest first: a key byte may repeat after wrapping
            int i = Math.floorMod(next - k, CAPACITY);
            if (what[i] != null && keys[i] == key) {
                return what[i] + (at[i] >= 0 ? String.format(" at t=%.3f us", at[i] / 1e3) : "");
            }
        }
        return null;
    }
}
