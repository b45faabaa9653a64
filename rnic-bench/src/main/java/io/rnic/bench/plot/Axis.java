package io.rnic.bench.plot;

import java.util.Objects;

/**
 * One axis of a panel: its label, which names the quantity and its unit ("completion time (µs)"),
 * and its scale. Values that span decades (loss probabilities, flow sizes, slowdowns) go on a
 * logarithmic axis; a logarithmic axis cannot show 0 or negative values, and refuses them.
 *
 * @param label the quantity and its unit
 * @param log   true for a base-10 logarithmic scale
 */
public record Axis(String label, boolean log) {
    // Checks the label.
    public Axis {
        Objects.requireNonNull(label, "label");
        if (label.isBlank()) {
            throw new IllegalArgumentException("an axis needs a label naming its quantity and unit");
        }
    }

    /** A linear axis. */
    public static Axis linear(String label) {
        return new Axis(label, false);
    }

    /** A base-10 logarithmic axis. */
    public static Axis log(String label) {
        return new Axis(label, true);
    }
}
