package io.rnic.core.scratch;

/**
 * Not part of the engine: one half of a package cycle ({@code scratch -> psn -> scratch}) that
 * {@code ArchitectureTest} adds on purpose to show the cycle rule fails.
 */
public final class CycleThroughPsn {
    io.rnic.core.psn.ScratchCycleBack forth;
}
