package io.rnic.transport.sim;

import io.rnic.transport.SimulatedWireContractTest;
import io.rnic.core.wire.Wire;

class SimWireContractTest extends SimulatedWireContractTest {
    @Override
    protected Wire open(String ip) {
        return network.attach(ip);
    }

    @Override
    protected String ip(int n) {
        return "10.0.0." + n;
    }
}
