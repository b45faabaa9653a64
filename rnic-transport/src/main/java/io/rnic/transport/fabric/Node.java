package io.rnic.transport.fabric;

/** A node of a fabric, host or switch, as its ports see it. */
interface Node {
    /** The node's id in the topology. */
    int id();

    /** A frame arrives on port {@code inPort}; the node takes ownership of it. */
    void receive(Frame frame, int inPort);

    /**
     * A frame is about to leave by {@code port}: the node's last word on it (the buffer gives its
     * bytes back, a switch may mark it CE). Returns false if the node dropped it instead, after
     * freeing it.
     */
    boolean departing(Port port, Frame frame);

    /**
     * A frame queued at {@code port} leaves without being sent (a PFC watchdog drops a stormed
     * queue): the node gives back what it held of the frame's bytes and frees it.
     */
    void dropQueued(Port port, Frame frame);
}
