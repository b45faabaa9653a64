package io.rnic.bench.demo;

import io.rnic.core.wire.Wire;
import io.rnic.transport.fault.FaultInjectingWire;
import io.rnic.transport.fault.FaultModel;
import io.rnic.transport.fault.Faults;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Seeded random faults applied to every packet in both directions: loss, reordering (an extra
 * delay of up to {@code reorderDelayNanos}), duplication and corruption, each a probability.
 */
public record FaultSpec(double loss, double reorder, double duplicate, double corrupt, long reorderDelayNanos) {
    public static final FaultSpec NONE = new FaultSpec(0, 0, 0, 0, 1);

    public FaultSpec {
        for (double p : new double[] {loss, reorder, duplicate, corrupt}) {
            if (!(p >= 0 && p <= 1)) {
                throw new IllegalArgumentException("fault probabilities must be in 0..1, got " + p);
            }
        }
        if (reorderDelayNanos <= 0) {
            throw new IllegalArgumentException("reorder delay must be positive, got " + reorderDelayNanos);
        }
    }

    public boolean isNone() {
        return loss == 0 && reorder == 0 && duplicate == 0 && corrupt == 0;
    }

    /** The fault models, in the order they apply. */
    public List<FaultModel> models() {
        List<FaultModel> m = new ArrayList<>();
        if (loss > 0) {
            m.add(Faults.drop(loss));
        }
        if (reorder > 0) {
            m.add(Faults.reorder(reorder, reorderDelayNanos));
        }
        if (duplicate > 0) {
            m.add(Faults.duplicate(duplicate));
        }
        if (corrupt > 0) {
            m.add(Faults.corrupt(corrupt));
        }
        return m;
    }

    /** Configures both directions of a simulated link. */
    public DemoPair.SimSetup simSetup() {
        return (net, a, b) -> {
            for (FaultModel f : models()) {
                net.direction(a, b).fault(f);
            }
            for (FaultModel f : models()) {
                net.direction(b, a).fault(f);
            }
        };
    }

    /** Wraps a real wire so that what it sends suffers these faults. */
    public Function<Wire, Wire> wrapper(long seed) {
        if (isNone()) {
            return Function.identity();
        }
        long[] n = {seed};
        return w -> {
            FaultInjectingWire f = new FaultInjectingWire(w, n[0]++);
            models().forEach(f::fault);
            return f;
        };
    }

    @Override
    public String toString() {
        return String.format("loss %.3g, reorder %.3g, duplicate %.3g, corrupt %.3g", loss, reorder, duplicate, corrupt);
    }
}
