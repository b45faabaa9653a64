package io.rnic.bench.experiment;

import io.rnic.verbs.LossRecovery;
import java.util.Objects;

/**
 * What changes from one configuration of a fabric experiment to the next, on the same flows and
 * seed: the QPs' loss recovery, PFC, and how switches pick among equal-cost paths. (Congestion
 * control in the HCAs joins this record when the HCAs have it.)
 *
 * @param label    the configuration's name in the CSV's {@code config} column and the figure's
 *                 legend: a {@code --compare} entry verbatim, or one built from the options
 * @param recovery the RC QPs' loss recovery: go-back-N, the reorder buffer, or selective
 *                 retransmission with extended headers
 * @param pfc      PFC on the lossless priority (3)
 * @param spray    true to spray every frame over the equal-cost paths at random, false for ECMP
 *                 (one path per flow, by a hash of its addresses and UDP ports)
 */
public record FabricRunConfig(String label, LossRecovery recovery, boolean pfc, boolean spray) {
    /** Checks the values. */
    public FabricRunConfig {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(recovery, "recovery");
        if (label.isBlank()) {
            throw new IllegalArgumentException("a configuration needs a label");
        }
    }
}
