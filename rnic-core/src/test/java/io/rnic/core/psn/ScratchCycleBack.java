package io.rnic.core.psn;

import io.rnic.core.scratch.CycleThroughPsn;

/** Not part of the engine: the other half of the scratch cycle {@code ArchitectureTest} adds on purpose. */
public final class ScratchCycleBack {
    CycleThroughPsn back;
}
