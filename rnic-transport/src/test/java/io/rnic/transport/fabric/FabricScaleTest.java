package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.wire.WireReceiver;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * A k=8 fat tree (128 hosts, 80 switches, 768 link directions) builds with heap in proportion to
 * its ports, and carries an all-to-all burst: every host sends one 1 KiB frame to every other.
 * Prints the heap per port (docs/fabric.md quotes it).
 */
class FabricScaleTest {
    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @Test
    void aK8FatTreeBuildsInProportionToItsPortsAndCarriesAnAllToAllBurst() {
        Topology t = Topology.fatTree(8, 100_000_000_000L, 1_000);
        assertEquals(128, t.hostCount());
        assertEquals(80, t.switchCount());
        try (SimNetwork net = new SimNetwork(8)) {
            long before = usedHeap();
            Fabric fabric = Fabric.attach(net, t, FabricConfig.DEFAULT);
            long after = usedHeap();
            int ports = fabric.portStats().size();
            assertEquals(2 * t.links().size(), ports);
            long perPort = (after - before) / ports;
            System.out.println("fabric heap: " + (after - before) + " bytes for " + ports + " ports, " + perPort
                    + " bytes per idle port (k=8 fat tree)");
            assertTrue(perPort < 16 * 1024, perPort + " bytes per idle port");

            SimWire[] wires = new SimWire[128];
            long[] received = new long[128];
            for (int h = 0; h < 128; h++) {
                final int host = h;
                wires[h] = fabric.host(h);
                wires[h].receiver((WireReceiver) (p, s, d) -> received[host]++);
            }
            for (int from = 0; from < 128; from++) {
                int port = wires[from].openFlow(0xC000 + from);
                for (int to = 0; to < 128; to++) {
                    if (to != from) {
                        ByteBuf b = Unpooled.buffer(1024).writeZero(1024);
                        wires[from].send(b, port, wires[to].localAddress(), 26 << 2 | 2);
                    }
                }
            }
            net.scheduler().runUntilIdle();
            for (int h = 0; h < 128; h++) {
                assertEquals(127, received[h], "host " + h);
            }
            assertEquals(0, fabric.portStats().stream().mapToLong(PortStats::drops).sum());
        }
    }
}
