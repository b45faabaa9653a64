package io.rnic.core.scratch;

import io.rnic.verbs.RdmaDevice;

/**
 * Not part of the engine: a test-only class that breaks the architecture on purpose, so that
 * {@code ArchitectureTest} can show its rules fail when an engine class depends on an API object.
 */
final class EngineReachingAnObject {
    RdmaDevice device;
}
