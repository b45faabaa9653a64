package io.rnic.verbs.cm;

/** What a {@link CmEvent} reports ({@code enum rdma_cm_event_type}, in librdmacm's order). */
public enum CmEventType {
    /** {@link CmId#resolveAddr} found the local device. */
    ADDR_RESOLVED,
    /** No local device has the source address, or none reaches the destination. */
    ADDR_ERROR,
    /** {@link CmId#resolveRoute} found the path. */
    ROUTE_RESOLVED,
    /** No path. */
    ROUTE_ERROR,
    /** A peer asks to connect: the event's {@link CmEvent#id()} is a new ID to accept or reject. */
    CONNECT_REQUEST,
    /** The peer accepted, and the ID has no QP for the CM to ready (not produced: every ID has one). */
    CONNECT_RESPONSE,
    /** The connection could not be set up after the peer answered. */
    CONNECT_ERROR,
    /** The peer never answered: the requests or replies ran out of retries. */
    UNREACHABLE,
    /** The peer rejected the request; {@link CmEvent#status()} is the REJ reason. */
    REJECTED,
    /** The connection is up (for UD, the peer's QP is known: {@link CmEvent#ud()}). */
    ESTABLISHED,
    /** The connection is down, by either side. */
    DISCONNECTED,
    /** The device went away. */
    DEVICE_REMOVAL,
    /** Multicast (not supported). */
    MULTICAST_JOIN,
    /** Multicast (not supported). */
    MULTICAST_ERROR,
    /** The address changed (not produced). */
    ADDR_CHANGE,
    /** The connection's time-wait is over (not produced). */
    TIMEWAIT_EXIT;
}
