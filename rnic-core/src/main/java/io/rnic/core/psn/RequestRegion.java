package io.rnic.core.psn;

/** Where a request's PSN falls relative to a responder's expected PSN (reference §5.4). */
public enum RequestRegion {
    /** Equal to the expected PSN. */
    EXPECTED,
    /** In the 2^23 PSNs before the expected PSN. */
    DUPLICATE,
    /** In the 2^23 PSNs after the expected PSN: a packet was lost or reordered. */
    OUT_OF_SEQUENCE
}
