package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.rnic.core.wire.Wire;
import io.rnic.core.wire.WireTap;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Connections;
import io.rnic.verbs.DeviceConfig;
import io.rnic.verbs.EcnMode;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WrOpcode;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The TOS byte an HCA's packets carry: on a fabric with ECN, DSCP 26 with ECT(0) (TOS 106, the
 * common RoCE class) unless the device turns ECN off; on point-to-point links TOS 0, as before,
 * unless ECN is turned on. A QP whose traffic class names a DSCP uses that one instead.
 */
class HostTosTest {
    /** The TOS bytes of what {@code a} sent in one RC WRITE exchange with {@code b}. */
    private static Set<Integer> sentTos(SimNetwork net, Wire wa, Wire wb, DeviceConfig config, int trafficClass) {
        Set<Integer> seen = new TreeSet<>();
        wa.addTap(new WireTap() {
            @Override
            public void onPacket(Direction d, long ts, ByteBuf p, InetSocketAddress s, InetSocketAddress dst) {
                seen.add(-2);
            }

            @Override
            public void onPacket(Direction d, long ts, ByteBuf p, InetSocketAddress s, InetSocketAddress dst, int tos) {
                if (d == Direction.SENT) {
                    seen.add(tos);
                }
            }
        });
        RdmaDevice a = RdmaDevice.open(wa, config);
        RdmaDevice b = RdmaDevice.open(wb, config);
        int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
        ProtectionDomain pa = a.allocPd();
        ProtectionDomain pb = b.allocPd();
        CompletionQueue ca = a.createCq(4);
        CompletionQueue cb = b.createCq(4);
        MemoryRegion ma = pa.registerMemory(ByteBuffer.allocateDirect(4096), access);
        MemoryRegion mb = pb.registerMemory(ByteBuffer.allocateDirect(4096), access);
        QueuePair qa = pa.createQp(QpInitAttributes.rc(ca, ca));
        QueuePair qb = pb.createQp(QpInitAttributes.rc(cb, cb));
        var la = Connections.local(qa, 1, ma);
        var lb = Connections.local(qb, 2, mb);
        Connections.connect(qa, la, lb, RcOptions.defaults().withTrafficClass(trafficClass), wb.localAddress().getPort());
        Connections.connect(qb, lb, la, RcOptions.defaults().withTrafficClass(trafficClass), wa.localAddress().getPort());
        qa.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(ma.address(), 2048, ma.lkey()).rdma(mb.address(), mb.rkey()));
        net.scheduler().runUntilIdle();
        return seen;
    }

    @Test
    void onAFabricWithEcnAnHcaSendsDscp26WithEct0() {
        try (SimNetwork net = new SimNetwork(1)) {
            Fabric f = Fabric.attach(net, Topology.star(2, 100_000_000_000L, 1_000), FabricConfig.DEFAULT);
            assertEquals(Set.of(26 << 2 | 2), sentTos(net, f.host(0), f.host(1), DeviceConfig.defaults(), 0));
        }
    }

    @Test
    void aDeviceWithEcnOffSendsNotEct() {
        try (SimNetwork net = new SimNetwork(1)) {
            Fabric f = Fabric.attach(net, Topology.star(2, 100_000_000_000L, 1_000), FabricConfig.DEFAULT);
            assertEquals(Set.of(26 << 2), sentTos(net, f.host(0), f.host(1), DeviceConfig.defaults().withEcn(EcnMode.OFF), 0));
        }
    }

    @Test
    void onPointToPointLinksTheTosStaysZeroUnlessEcnIsTurnedOn() {
        try (SimNetwork net = new SimNetwork(1)) {
            assertEquals(Set.of(0), sentTos(net, net.attach("10.1.0.1"), net.attach("10.1.0.2"), DeviceConfig.defaults(), 0));
        }
        try (SimNetwork net = new SimNetwork(1)) {
            assertEquals(Set.of(2), sentTos(net, net.attach("10.1.0.1"), net.attach("10.1.0.2"),
                    DeviceConfig.defaults().withEcn(EcnMode.ON), 0));
        }
    }

    @Test
    void aQpsTrafficClassSetsTheDscp() {
        try (SimNetwork net = new SimNetwork(1)) {
            Fabric f = Fabric.attach(net, Topology.star(2, 100_000_000_000L, 1_000), FabricConfig.DEFAULT);
            // Traffic class 0xB8: DSCP 46; the device's ECN setting replaces the class's ECN bits.
            assertEquals(Set.of(46 << 2 | 2), sentTos(net, f.host(0), f.host(1), DeviceConfig.defaults(), 0xB8 | 1));
        }
    }
}
