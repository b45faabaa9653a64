package io.rnic.core.psn;

/** Where a response's PSN falls relative to a requester's window (reference §5.3). */
public enum ResponseRegion {
    /** In [oldest unacknowledged, last sent]: acknowledges that PSN and everything before it. */
    VALID,
    /** Before the oldest unacknowledged PSN: a stale or duplicate response. */
    DUPLICATE,
    /** After the last PSN sent: a "ghost" response from nowhere in this connection's window. */
    INVALID
}
