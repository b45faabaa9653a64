package io.rnic.core.engine;

/**
 * One admission check a requester's next packet must pass before it is sent: a fence, the
 * READ/atomic limit, end-to-end credits, the PSN window. A gate that does not admit the packet
 * ends the requester's run; what it waits for (a completion, an ACK with credits, ...) runs the
 * requester again. The requester asks its gates in that order, and only once the packet may go
 * does it take PSNs and send; a gate that paces the packets (congestion control) belongs last.
 */
interface SendGate {
    /** Whether WQE {@code w}'s next packet may be sent now. */
    boolean admits(SendWqe w);
}
