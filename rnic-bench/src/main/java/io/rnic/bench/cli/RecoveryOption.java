package io.rnic.bench.cli;

import io.rnic.bench.experiment.LossExperiment;
import io.rnic.verbs.LossRecovery;

/** {@code --loss-recovery gbn|reorder|sr}, the one spelling of seed 002's modes in every command. */
final class RecoveryOption {
    static final String NAME = "--loss-recovery";
    static final String VALUES = "gbn|reorder|sr";
    static final String HELP = "RC loss recovery (seed 002): go-back-N (default), the reorder buffer with selective "
            + "re-reads (standard packets), or the extended selective-retransmission protocol (rnic peers only)";

    private RecoveryOption() {
    }

    /** The mode the option names, go-back-N if it is absent. */
    static LossRecovery parse(ParsedArgs args) throws UsageException {
        String v = args.has(NAME) ? args.value(NAME) : "gbn";
        LossExperiment.Mode mode = LossExperiment.Mode.parse(v);
        if (mode == null) {
            throw new UsageException(NAME + " must be gbn, reorder or sr, not " + v);
        }
        return mode.recovery();
    }
}
