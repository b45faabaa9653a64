package io.rnic.core.memory;

import io.rnic.core.packet.AethSyndrome;

/**
 * The outcome of {@link MemoryAccess#check}, with the NAK code a responder answers a failure
 * with (reference §8.3, §3.3). The completion statuses the failures turn into are the
 * transport's business (its {@code AccessStatuses} table).
 */
public enum AccessResult {
    /** The access is allowed. */
    OK(-1),
    /** No region has the key (bad index, stale key byte) or the region was deregistered. */
    INVALID_KEY(AethSyndrome.NAK_REMOTE_ACCESS_ERROR),
    /** The region belongs to another protection domain than the QP. */
    PD_MISMATCH(AethSyndrome.NAK_REMOTE_ACCESS_ERROR),
    /** The addressed range is not inside the region. */
    OUT_OF_BOUNDS(AethSyndrome.NAK_REMOTE_ACCESS_ERROR),
    /** The region's access flags lack a required right. */
    ACCESS_DENIED(AethSyndrome.NAK_REMOTE_ACCESS_ERROR),
    /** The address is not aligned as required (atomics: 8 bytes); rxe answers Invalid Request. */
    MISALIGNED(AethSyndrome.NAK_INVALID_REQUEST);

    private final int nakCode;

    AccessResult(int nakCode) {
        this.nakCode = nakCode;
    }

    /** True for {@link #OK}. */
    public boolean isOk() {
        return this == OK;
    }

    /**
     * The NAK code (AETH type 11) a responder sends for this failure on RC: 2 (Remote Access
     * Error), or 1 (Invalid Request) for {@link #MISALIGNED}; -1 for {@link #OK}.
     */
    public int nakCode() {
        return nakCode;
    }
}
