package io.rnic.core.cc;

/** Where a DCQCN reaction point is in its rate-increase cycle (the QCN stages DCQCN inherits). */
public enum IncreasePhase {
    /** No CNP yet: sending at the line rate, no increase events are counted. */
    NONE,
    /** R<sub>C</sub> ← (R<sub>T</sub> + R<sub>C</sub>)/2: the rate climbs back towards the target. */
    FAST_RECOVERY,
    /** R<sub>T</sub> ← R<sub>T</sub> + R<sub>AI</sub>, then the same averaging. */
    ADDITIVE_INCREASE,
    /** R<sub>T</sub> ← R<sub>T</sub> + R<sub>HAI</sub> (times i in the paper's variant), then the same averaging. */
    HYPER_INCREASE
}
