package io.rnic.transport.fabric;

import io.netty.buffer.ByteBuf;
import io.rnic.core.wire.WireReceiver;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * A frame's way through a fabric allocates nothing once the fabric has warmed up (its frame pool
 * and queues grown to the run's depth): host port, three switches of a leaf-spine with ECN marking
 * and PFC accounting, host port, and the per-flow counts, all without an object per frame.
 */
class FabricAllocationTest {
    @Test
    void aHopAllocatesNothingPerFrame() {
        try (SimNetwork net = new SimNetwork(3)) {
            Fabric fabric = Fabric.attach(net, Topology.leafSpine(2, 2, 2, 100_000_000_000L, 100_000_000_000L, 1_000),
                    FabricConfig.DEFAULT.withEcnThresholds(EcnThresholds.defaults().with(100_000_000_000L, 2_000, 20_000, 0.5)));
            SimWire a = fabric.host(0);
            SimWire b = fabric.host(2);
            long[] received = {0};
            b.receiver(new WireReceiver() {
                @Override
                public void onPacket(ByteBuf p, InetSocketAddress s, InetSocketAddress d) {
                    received[0]++;
                }

                @Override
                public void onPacket(ByteBuf p, InetSocketAddress s, InetSocketAddress d, int tos) {
                    received[0]++;
                }
            });
            ByteBuf[] packets = new ByteBuf[64];
            // Without the leak detector this module's tests run paranoid: it records every release.
            var alloc = new io.netty.buffer.UnpooledByteBufAllocator(true, true);
            for (int i = 0; i < packets.length; i++) {
                packets[i] = alloc.directBuffer(1024).writeZero(1024).retain(1 << 29); // the wire releases one per send
            }
            int port = a.openFlow(0xC200);
            InetSocketAddress to = b.localAddress();
            int tos = 26 << 2 | 2;
            Allocations.assertNonePerCall(3_000, () -> {
                for (ByteBuf p : packets) {
                    a.send(p, port, to, tos);
                }
                net.scheduler().runUntilIdle();
            });
            org.junit.jupiter.api.Assertions.assertEquals(2 * 3_000 * 64, received[0]);
        }
    }

    /**
     * With a tap on both hosts, as experiments attach to count what they see, a packet sent
     * unsealed is sealed (its ICRC written) before the tap sees it: the sealing and the tap's
     * iteration allocate nothing per packet either.
     */
    @Test
    void aTappedHostSealsAndTapsWithoutAllocating() {
        try (SimNetwork net = new SimNetwork(3)) {
            Fabric fabric = Fabric.attach(net, Topology.star(2, 100_000_000_000L, 1_000), FabricConfig.DEFAULT);
            SimWire a = fabric.host(0);
            SimWire b = fabric.host(1);
            long[] seen = {0, 0};
            io.rnic.core.wire.WireTap tap = (d, ts, p, s, t) -> seen[d == io.rnic.core.wire.WireTap.Direction.SENT ? 0 : 1]++;
            a.addTap(tap);
            b.addTap(tap);
            b.receiver(new WireReceiver() {
                @Override
                public void onPacket(ByteBuf p, InetSocketAddress s, InetSocketAddress d) {
                }
            });
            ByteBuf[] packets = new ByteBuf[64];
            var alloc = new io.netty.buffer.UnpooledByteBufAllocator(true, true);
            for (int i = 0; i < packets.length; i++) {
                packets[i] = alloc.directBuffer(1024).writeZero(1024).retain(1 << 29);
            }
            int port = a.openFlow(0xC200);
            InetSocketAddress to = b.localAddress();
            Allocations.assertNonePerCall(3_000, () -> {
                for (ByteBuf p : packets) {
                    a.sendUnsealed(p, port, to, 0);
                }
                net.scheduler().runUntilIdle();
            });
            org.junit.jupiter.api.Assertions.assertEquals(2 * 3_000 * 64, seen[1]);
        }
    }
}
