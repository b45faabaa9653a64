package io.rnic.bench.experiment;

import io.rnic.verbs.LossRecovery;
import java.util.Objects;

/**
 * What changes from one configuration of a fabric experiment to the next, on the same flows and
 * seed: the QPs' loss recovery, PFC, how switches pick among equal-cost paths, and the HCAs'
 * congestion control.
 *
 * @param label    the configuration's name in the CSV's {@code config} column and the figure's
 *                 legend: a {@code --compare} entry verbatim, or one built from the options
 * @param recovery the RC QPs' loss recovery: go-back-N, the reorder buffer, or selective
 *                 retransmission with extended headers
 * @param pfc      PFC on the lossless priority (3)
 * @param spray    true to spray every frame over the equal-cost paths at random, false for ECMP
 *                 (one path per flow, by a hash of its addresses and UDP ports)
 * @param cc       the HCAs' congestion control ({@code NONE}: none; with a scheme they also send CNPs)
 */
public record FabricRunConfig(String label, LossRecovery recovery, boolean pfc, boolean spray,
                              io.rnic.verbs.CongestionControlScheme cc) {
    /** Checks the values. */
    public FabricRunConfig {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(recovery, "recovery");
        Objects.requireNonNull(cc, "cc");
        if (label.isBlank()) {
            throw new IllegalArgumentException("a configuration needs a label");
        }
    }
}
