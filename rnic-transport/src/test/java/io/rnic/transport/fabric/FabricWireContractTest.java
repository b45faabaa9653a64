package io.rnic.transport.fabric;

import io.rnic.core.wire.Wire;
import io.rnic.transport.SimulatedWireContractTest;

/** The wire contract for a host's wire on a simulated fabric: a star of 4 hosts at 100 Gb/s. */
class FabricWireContractTest extends SimulatedWireContractTest {
    private Fabric fabric;

    @Override
    protected Wire open(String ip) {
        if (fabric == null) {
            fabric = Fabric.attach(network, Topology.star(4, 100_000_000_000L, 1_000), FabricConfig.DEFAULT);
        }
        for (int h : fabric.topology().hosts()) {
            if (Topology.hostAddress(h).getHostAddress().equals(ip)) {
                return fabric.host(h);
            }
        }
        throw new IllegalArgumentException(ip + " is no host of the star");
    }

    @Override
    protected String ip(int n) {
        return Topology.hostAddress(n - 1).getHostAddress();
    }
}
