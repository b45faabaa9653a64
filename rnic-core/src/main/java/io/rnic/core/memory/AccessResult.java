package io.rnic.core.memory;

import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.transport.WcStatus;

/**
 * The outcome of {@link MemoryAccess#check}, with what each failure turns into (reference §8.3,
 * §3.3, §7.1): on the responder a NAK code, which the requester reports as
 * {@link #remoteStatus()}; on a local SGE a completion with {@link #localStatus()}.
 */
public enum AccessResult {
    /** The access is allowed. */
    OK(-1, WcStatus.SUCCESS, WcStatus.SUCCESS),
    /** No region has the key (bad index, stale key byte) or the region was deregistered. */
    INVALID_KEY(AethSyndrome.NAK_REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR, WcStatus.LOC_PROT_ERR),
    /** The region belongs to another protection domain than the QP. */
    PD_MISMATCH(AethSyndrome.NAK_REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR, WcStatus.LOC_PROT_ERR),
    /** The addressed range is not inside the region. */
    OUT_OF_BOUNDS(AethSyndrome.NAK_REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR, WcStatus.LOC_PROT_ERR),
    /** The region's access flags lack a required right. */
    ACCESS_DENIED(AethSyndrome.NAK_REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR, WcStatus.LOC_PROT_ERR),
    /** The address is not aligned as required (atomics: 8 bytes); rxe answers Invalid Request. */
    MISALIGNED(AethSyndrome.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, WcStatus.LOC_PROT_ERR);

    private final int nakCode;
    private final WcStatus remoteStatus;
    private final WcStatus localStatus;

    AccessResult(int nakCode, WcStatus remoteStatus, WcStatus localStatus) {
        this.nakCode = nakCode;
        this.remoteStatus = remoteStatus;
        this.localStatus = localStatus;
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

    /**
     * The status of the requester's completion when the responder rejected its request with this
     * result ({@link WcStatus#SUCCESS} for {@link #OK}).
     */
    public WcStatus remoteStatus() {
        return remoteStatus;
    }

    /**
     * The status of a completion whose local SGE (lkey) failed this way: always
     * {@link WcStatus#LOC_PROT_ERR} ({@link WcStatus#SUCCESS} for {@link #OK}).
     */
    public WcStatus localStatus() {
        return localStatus;
    }
}
