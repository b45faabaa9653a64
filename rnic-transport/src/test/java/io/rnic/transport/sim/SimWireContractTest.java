package io.rnic.transport.sim;

import io.rnic.core.wire.Wire;
import io.rnic.transport.SimulatedWireContractTest;

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
