package io.rnic.transport.fault;

import io.rnic.core.wire.Wire;
import io.rnic.transport.SimulatedWireContractTest;

/** A fault-injecting wire with no faults is a wire like any other. */
class FaultInjectingWireContractTest extends SimulatedWireContractTest {
    @Override
    protected Wire open(String ip) {
        return new FaultInjectingWire(network.attach(ip), 9);
    }

    @Override
    protected String ip(int n) {
        return "10.0.1." + n;
    }
}
