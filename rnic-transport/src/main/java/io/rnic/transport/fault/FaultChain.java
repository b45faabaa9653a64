package io.rnic.transport.fault;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * The fault models of one link direction, with their own seeded random generator, applied in
 * order to each packet. Used by the simulated network's links and by {@link FaultInjectingWire}.
 * Owned by one thread.
 */
public final class FaultChain {
    private static final FaultModel[] NONE = new FaultModel[0];

    private FaultModel[] faults = NONE;
    private final RandomGenerator random;
    private final PacketFate fate = new PacketFate();
    private final FaultStats stats = new FaultStats();

    /** A chain whose randomness is fixed by {@code seed}. */
    public FaultChain(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** Replaces the fault models. */
    public FaultChain faults(List<FaultModel> models) {
        this.faults = models.toArray(NONE);
        return this;
    }

    /** Adds a fault model after the existing ones. */
    public FaultChain add(FaultModel model) {
        FaultModel[] next = java.util.Arrays.copyOf(faults, faults.length + 1);
        next[faults.length] = java.util.Objects.requireNonNull(model, "fault model");
        this.faults = next;
        return this;
    }

    /** True if the chain has no fault models (packets pass untouched). */
    public boolean isEmpty() {
        return faults.length == 0;
    }

    /** Decides the fate of {@code packet}; the returned object is reused by the next call. */
    public PacketFate decide(ByteBuf packet) {
        fate.reset(packet, stats.offered++, random);
        for (FaultModel f : faults) {
            f.apply(fate);
        }
        if (fate.dropped()) {
            stats.dropped++;
        } else {
            stats.duplicated += fate.duplicates();
            if (fate.extraDelayNanos() > 0) {
                stats.delayed++;
            }
            if (fate.heldForNext()) {
                stats.held++;
            }
        }
        if (fate.corrupted()) {
            stats.corrupted++;
        }
        if (fate.truncated()) {
            stats.truncated++;
        }
        return fate;
    }

    public FaultStats stats() {
        return stats;
    }
}
