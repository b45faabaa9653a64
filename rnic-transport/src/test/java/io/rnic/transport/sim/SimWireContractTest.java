package io.rnic.transport.sim;

import io.rnic.transport.Wire;
import io.rnic.transport.WireContractTest;
import java.util.function.BooleanSupplier;

class SimWireContractTest extends WireContractTest {
    private final SimNetwork network = new SimNetwork(1);

    @Override
    protected Wire open(String ip) {
        return network.attach(ip);
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
        return "10.0.0." + n;
    }
}
