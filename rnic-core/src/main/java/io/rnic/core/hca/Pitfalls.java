package io.rnic.core.hca;

import io.rnic.verbs.Pitfall;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One device's pitfall warnings ({@link Pitfall}): every occurrence counted, the first per object
 * logged at WARN with the code, what happened and the fix.
 *
 * <p>Called from application threads (posts, modify) and the protocol thread, hence the atomic
 * counts and the lock around the set of objects already warned about. That set is bounded (a
 * peer can make us see stale keys without end): past {@value #MAX_OBJECTS} objects, new ones are
 * counted and no longer logged, which one last line says. Nothing here runs on a packet's normal
 * path: only where the pitfall itself happens (an RNR NAK, an error, a post to ERR, a modify).
 */
public final class Pitfalls {
    /** Objects (per code) logged about before further first occurrences are only counted. */
    public static final int MAX_OBJECTS = 4096;

    private static final Logger LOG = LoggerFactory.getLogger("io.rnic.pitfalls");

    private final String device;
    private final AtomicLongArray counts = new AtomicLongArray(Pitfall.values().length);
    private final Set<Long> warned = new HashSet<>();
    private volatile Set<Pitfall> silenced = EnumSet.noneOf(Pitfall.class);
    private final java.util.concurrent.atomic.AtomicReferenceArray<String> lastLogged =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(Pitfall.values().length);

    /** @param device how log lines name the device (its address) */
    public Pitfalls(String device) {
        this.device = device;
    }

    /** Stops logging {@code codes}; their counts go on. */
    public void silence(Set<Pitfall> codes) {
        silenced = codes.isEmpty() ? EnumSet.noneOf(Pitfall.class) : EnumSet.copyOf(codes);
    }

    /**
     * Counts an occurrence of {@code p} on object {@code object} (a QP or CQ number, a key), and
     * says whether to log it: true the first time for that object, unless {@code p} is silenced.
     * The caller then builds its message and calls {@link #log}, so a repeat costs no string.
     */
    public boolean occurred(Pitfall p, long object) {
        counts.incrementAndGet(p.ordinal());
        if (silenced.contains(p)) {
            return false;
        }
        long id = ((long) p.ordinal() << 56) ^ object;
        synchronized (warned) {
            if (warned.contains(id)) {
                return false;
            }
            if (warned.size() >= MAX_OBJECTS) {
                if (warned.add(-1L - p.ordinal())) { // once per code
                    LOG.warn("{} [{}] more objects than {} met this pitfall: counted, no longer logged", p.code(),
                            device, MAX_OBJECTS);
                }
                return false;
            }
            warned.add(id);
            return true;
        }
    }

    /**
     * Counts another occurrence of {@code p} on an object already reported through
     * {@link #occurred}: no lookup, no lock, nothing boxed, for pitfalls that repeat packet after
     * packet (an RNR NAK storm).
     */
    public void again(Pitfall p) {
        counts.incrementAndGet(p.ordinal());
    }

    /** Logs {@code p}: {@code what} happened, then the pitfall's fix. */
    public void log(Pitfall p, String what) {
        String line = p.code() + " [" + device + "] " + what + ". Fix: " + p.fix();
        lastLogged.set(p.ordinal(), line);
        LOG.warn(line);
    }

    /** The last line logged for {@code p}, or {@code null}: for tests and tools. */
    public String lastLogged(Pitfall p) {
        return lastLogged.get(p.ordinal());
    }

    /** Counts and, the first time for {@code object}, logs {@code what} (for messages that cost nothing to build). */
    public void report(Pitfall p, long object, String what) {
        if (occurred(p, object)) {
            log(p, what);
        }
    }

    /** Occurrences of {@code p} so far, logged or not. */
    public long count(Pitfall p) {
        return counts.get(p.ordinal());
    }
}
