package io.rnic.verbs.cm;

/**
 * What a device's connection manager received, dropped and refused, and what it holds: a
 * snapshot, read with {@link CmEventChannel#counters()}. The counts are the device's (every event
 * channel on a device shares its connection manager); a channel over several devices adds them
 * up.
 *
 * @param madsReceived         CM MADs that arrived on QP1
 * @param madsDropped          MADs dropped as malformed or for no ID here (a DREQ for no ID is
 *                             still answered with a DREP, as the Linux CM does)
 * @param strangerMadsDropped  REP, RTU, DREQ, DREP, REJ, MRA or SIDR_REP that named an ID here
 *                             but not its peer: the wrong remote communication ID for the
 *                             message (the Linux CM's {@code cm_acquire_id} rules), or a sender
 *                             other than the peer's address; dropped unanswered
 * @param requestsOverBacklog  REQs and SIDR_REQs refused because the listener already had its
 *                             backlog of requests awaiting accept or reject (REJ reason 28, or
 *                             SIDR_REP "rejected")
 * @param requestsInvalid      REQs refused for a field no connection can use: path MTU (REJ 26),
 *                             transport type or QP number (REJ 9), GIDs (REJ 12)
 * @param requestsStale        REQs refused as a stale connection: their QP already has a
 *                             connection with this device (REJ 10, IBA 12.9.8.3.1)
 * @param requestsTimedOut     requests the application neither accepted nor rejected in time:
 *                             refused with REJ reason 4 (timeout) and forgotten
 * @param idsHeld              the communication IDs the manager holds now (a gauge)
 * @param addressHandlesCached the address handles its QP1 keeps for replies now (a gauge)
 */
public record CmCounters(long madsReceived, long madsDropped, long strangerMadsDropped, long requestsOverBacklog,
                         long requestsInvalid, long requestsStale, long requestsTimedOut, long idsHeld,
                         long addressHandlesCached) {
    /** No counts: a device whose connection manager has not started. */
    static final CmCounters NONE = new CmCounters(0, 0, 0, 0, 0, 0, 0, 0, 0);

    /**
     * These counts and {@code o}'s added up (for a channel over several devices).
     *
     * @param o other counts
     * @return the sums
     */
    CmCounters plus(CmCounters o) {
        return new CmCounters(madsReceived + o.madsReceived, madsDropped + o.madsDropped,
                strangerMadsDropped + o.strangerMadsDropped, requestsOverBacklog + o.requestsOverBacklog,
                requestsInvalid + o.requestsInvalid, requestsStale + o.requestsStale,
                requestsTimedOut + o.requestsTimedOut, idsHeld + o.idsHeld,
                addressHandlesCached + o.addressHandlesCached);
    }
}
