package io.rnic.transport;

import io.rnic.transport.sim.SimNetwork;
import java.util.function.BooleanSupplier;

/** The wire contract for wires on a simulated network: waiting means running virtual time. */
public abstract class SimulatedWireContractTest extends WireContractTest {
    protected final SimNetwork network = new SimNetwork(1);

    @Override
    protected boolean await(BooleanSupplier done) {
        return network.scheduler().runUntil(done, 10_000_000_000L);
    }

    @Override
    protected void quiesce() {
        network.scheduler().runUntilIdle();
    }
}
