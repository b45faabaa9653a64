package io.rnic.core.engine;

import io.rnic.core.memory.AccessResult;
import io.rnic.verbs.WcStatus;

/**
 * What a failed memory check turns into in a completion (reference §7.1, §8.3). A local SGE
 * whose lkey check fails completes with LOC_PROT_ERR whatever the reason; a request the
 * responder refuses comes back as the NAK code {@link AccessResult#nakCode()} names, which the
 * completer's NAK table turns into the requester's status.
 */
final class AccessStatuses {
    private AccessStatuses() {
    }

    /** The status of a completion whose local SGE failed its check with {@code r}. */
    static WcStatus local(AccessResult r) {
        return r == AccessResult.OK ? WcStatus.SUCCESS : WcStatus.LOC_PROT_ERR;
    }
}
