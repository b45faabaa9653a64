package io.rnic.transport.fault;

import java.util.LinkedHashMap;
import java.util.Map;

/** What a {@link FaultChain} did. Single writer (the chain's thread); read when quiescent. */
public final class FaultStats {
    long offered;
    long dropped;
    long duplicated;
    long delayed;
    long corrupted;
    long truncated;
    long held;

    public long offered() {
        return offered;
    }

    public long dropped() {
        return dropped;
    }

    public long duplicated() {
        return duplicated;
    }

    public long delayed() {
        return delayed;
    }

    public long corrupted() {
        return corrupted;
    }

    public long truncated() {
        return truncated;
    }

    public long held() {
        return held;
    }

    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("offered", offered);
        m.put("dropped", dropped);
        m.put("duplicated", duplicated);
        m.put("delayed", delayed);
        m.put("corrupted", corrupted);
        m.put("truncated", truncated);
        m.put("held", held);
        return m;
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
