package io.rnic.transport.fault;

/**
 * One kind of network misbehaviour, applied to each packet offered to a link direction. Fault
 * models are small objects composed in a {@link FaultChain}; they use only
 * {@link PacketFate#random()} for randomness so that a seed fixes the whole run.
 */
@FunctionalInterface
public interface FaultModel {
    /** Inspects the packet and records a decision in {@code fate}. */
    void apply(PacketFate fate);
}
