package io.rnic.transport.fault;

import io.rnic.transport.Wire;
import io.rnic.transport.WireContractTest;
import io.rnic.transport.sim.SimNetwork;
import java.util.function.BooleanSupplier;

/** A fault-injecting wire with no faults is a wire like any other. */
class FaultInjectingWireContractTest extends WireContractTest {
    private final SimNetwork network = new SimNetwork(1);

    @Override
    protected Wire open(String ip) {
        return new FaultInjectingWire(network.attach(ip), 9);
    }

    @Override
    protected boolean await(BooleanSupplier done) {
        return network.scheduler().runUntil(done, 10_000_000_000L);
    }

    @Override
    protected void quiesce() {
        network.scheduler().runUntilIdle();
    }

    @Override
    protected String ip(int n) {
        return "10.0.1." + n;
    }
}
