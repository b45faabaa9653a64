package io.rnic.verbs;

import java.util.List;

/**
 * What {@code ibv_query_port} reports for port 1, and its GID table.
 *
 * @param state       "ACTIVE"
 * @param maxMtu      the largest path MTU
 * @param activeMtu   the active MTU
 * @param gidTable    GIDs by index: index 0 is the RoCEv2 GID {@code ::ffff:a.b.c.d} of the device address
 * @param pkeyTableLength P_Key table size
 * @param maxMsgSize  largest message
 */
public record PortAttributes(String state, PathMtu maxMtu, PathMtu activeMtu, List<Gid> gidTable, int pkeyTableLength,
                             long maxMsgSize) {
    /**
     * Checks that the state, MTUs and GID table are given.
     *
     * @param state "ACTIVE"
     * @param maxMtu the largest path MTU
     * @param activeMtu the active MTU
     * @param gidTable GIDs by index: index 0 is the RoCEv2 GID {@code ::ffff:a.b.c.d} of the device address
     * @param pkeyTableLength P_Key table size
     * @param maxMsgSize largest message
     */
    public PortAttributes {
        java.util.Objects.requireNonNull(state, "state");
        java.util.Objects.requireNonNull(maxMtu, "maxMtu");
        java.util.Objects.requireNonNull(activeMtu, "activeMtu");
        java.util.Objects.requireNonNull(gidTable, "gidTable");
    }
}
