package io.rnic.core.engine;

/**
 * One entry of the responder's read/atomic resource ring (reference §5.5): the PSN range of an
 * accepted RDMA READ or atomic, what it asked for, and an atomic's original value, so that
 * duplicates are answered without re-executing atomics.
 */
final class ResponderResource {
    boolean valid;
    boolean atomic;
    /** An ATOMIC WRITE or FLUSH: a duplicate is answered with a READ RESPONSE ONLY of no data. */
    boolean answerOnly;
    int firstPsn;
    int lastPsn;
    long va;
    int rkey;
    long length;
    long original;
    /** The requester's buffer its SRETH named (seed 002's extended protocol), echoed in each response. */
    int localKey;
    long localVa;
    int localLength;
    /** The protection domain the request was checked against, for re-reading a duplicate READ. */
    io.rnic.core.memory.ProtectionDomain pd;

    boolean covers(int psn) {
        return valid && io.rnic.core.psn.Psn.forward(firstPsn, psn) <= io.rnic.core.psn.Psn.forward(firstPsn, lastPsn);
    }
}
