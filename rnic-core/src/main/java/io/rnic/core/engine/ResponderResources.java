package io.rnic.core.engine;

/**
 * The responder's ring of READ/atomic resources (reference §5.5), {@code max_dest_rd_atomic}
 * entries: one per accepted READ or atomic, so that a duplicate is answered without re-executing
 * an atomic and a duplicate READ is re-read from the same range.
 */
final class ResponderResources {
    private ResponderResource[] ring = new ResponderResource[0];
    private int next;

    /** Empties the ring and sizes it to {@code depth} entries. */
    void reset(int depth) {
        if (ring.length != depth) {
            ring = new ResponderResource[Math.max(0, depth)]; // entries made at first use
        } else {
            for (ResponderResource r : ring) {
                if (r != null) {
                    r.valid = false;
                }
            }
        }
        next = 0;
    }

    /** The number of entries (0: the QP accepts no READs or atomics). */
    int depth() {
        return ring.length;
    }

    /** The next entry; more READs/atomics than advertised overwrite the oldest, as in rxe. */
    ResponderResource allocate() {
        ResponderResource r = ring[next];
        if (r == null) {
            r = new ResponderResource();
            ring[next] = r;
        }
        next = (next + 1) % ring.length;
        r.valid = true;
        r.answerOnly = false;
        return r;
    }

    /** The entry whose PSN range holds {@code psn}, or {@code null} if it was recycled. */
    ResponderResource find(int psn) {
        for (ResponderResource r : ring) {
            if (r != null && r.covers(psn)) {
                return r;
            }
        }
        return null;
    }
}
