package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.wire.Wire;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.udp.UdpWire;
import java.io.File;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A closed device is closed through every one of its objects (issue 39, defect 10): after
 * {@link RdmaDevice#close()}, every factory and every verb of the device, its PDs, CQs, QPs,
 * SRQs, fast-registration regions, XRC domains, reliable datagram domains and EE contexts throws
 * an {@link IllegalStateException} naming the closed device, on both wires; every QP and EE
 * context reads ERR, whatever state it was in (the close flushed them, on both wires alike);
 * the work they held completed with WR_FLUSH_ERR and can be polled; and every object can still
 * be closed.
 */
class ClosedDeviceTest {
    private static final int QKEY = 0x11111111;

    enum WireKind { SIM, UDP }

    @TempDir
    File dir;

    @ParameterizedTest
    @EnumSource(WireKind.class)
    void everyObjectOfAClosedDeviceRefusesWorkNamingTheDeviceAndItsQpsReadErr(WireKind kind) throws Exception {
        SimNetwork net = kind == WireKind.SIM ? new SimNetwork(95) : null;
        Wire wire = net != null ? net.attach("10.0.9.5") : UdpWire.bind("127.0.199." + (1 + kind.ordinal())).open();
        try {
            RdmaDevice d = RdmaDevice.open(wire);
            ProtectionDomain pd = d.allocPd();
            CompletionChannel channel = d.createCompletionChannel();
            CompletionQueue cq = d.createCq(64, channel);
            ByteBuffer buf = ByteBuffer.allocateDirect(4096);
            MemoryRegion mr = pd.registerMemory(buf, AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
            FastMemoryRegion fmr = pd.allocMr(4096);
            MemoryWindow mw1 = pd.allocMw(1);
            MemoryWindow mw2 = pd.allocMw(2);
            AddressVector av = AddressVector.of(InetAddress.getByName("10.0.9.6"));
            AddressHandle ah = pd.createAddressHandle(av);
            SharedReceiveQueue srq = pd.createSrq(8, 1, 0);
            XrcDomain xrcd = d.openXrcd("closed");
            SharedReceiveQueue xrcSrq = pd.createXrcSrq(xrcd, cq, 8, 1, 0);
            ReliableDatagramDomain rdd = d.allocRdd();
            EeContext eec = rdd.createEeContext();

            // QPs in every state a QP can be left in: RESET, INIT, RTS (connected to no one, with
            // work outstanding), a datagram QP in RTS, an XRC target, an RD QP, one on the SRQ.
            Map<String, QueuePair> qps = new LinkedHashMap<>();
            qps.put("RESET", pd.createQp(QpInitAttributes.rc(cq, cq)));
            QueuePair init = pd.createQp(QpInitAttributes.rc(cq, cq));
            init.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
            qps.put("INIT", init);
            QueuePair rts = pd.createQp(QpInitAttributes.rc(cq, cq));
            Connections.connect(rts, Connections.local(rts, 1, mr),
                    new ConnectionInfo(Gid.of(InetAddress.getByName("10.0.9.7")), 0x99, 7, 0, 0), RcOptions.defaults());
            qps.put("RTS", rts);
            QueuePair ud = pd.createQp(QpInitAttributes.ud(cq, cq));
            Connections.readyDatagram(ud, QKEY, 0);
            qps.put("UD", ud);
            qps.put("XRC target", xrcd.createTargetQp());
            qps.put("RD", pd.createRdQp(QpInitAttributes.rd(cq, cq), rdd));
            qps.put("on SRQ", pd.createQp(QpInitAttributes.rc(cq, cq).withSrq(srq)));
            rts.postRecv(new RecvWorkRequest().wrId(1).sge(mr.address(), 64, mr.lkey()));
            rts.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).signaled(true)
                    .sge(mr.address(), 64, mr.lkey()));

            d.close();

            Map<String, QpState> states = new LinkedHashMap<>();
            Map<String, QpState> allErr = new LinkedHashMap<>();
            for (var e : qps.entrySet()) {
                states.put(e.getKey(), e.getValue().state());
                allErr.put(e.getKey(), QpState.ERR);
            }
            states.put("EE context", eec.state());
            allErr.put("EE context", QpState.ERR);
            List<String> flushed = new ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            while (cq.poll(wc)) { // still polled: what the close flushed
                flushed.add(wc.wrId() + " " + wc.status());
            }
            java.util.Collections.sort(flushed); // the send queue flushes before the receive queue
            assertEquals(d.queryDevice().maxQp(), DeviceConfig.defaults().limits().maxQp(), "it still says what it is");

            MappedByteBuffer file;
            try (RandomAccessFile f = new RandomAccessFile(new File(dir, "pmem"), "rw")) {
                f.setLength(4096);
                file = f.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, 4096);
            }
            SendWorkRequest send = new SendWorkRequest().wrId(3).opcode(WrOpcode.SEND).signaled(true)
                    .sge(mr.address(), 64, mr.lkey());
            RecvWorkRequest recv = new RecvWorkRequest().wrId(4).sge(mr.address(), 64, mr.lkey());
            Map<String, Runnable> verbs = new LinkedHashMap<>();
            verbs.put("device.allocPd", d::allocPd);
            verbs.put("device.allocRdd", d::allocRdd);
            verbs.put("device.openXrcd", () -> d.openXrcd("another"));
            verbs.put("device.createCq", () -> d.createCq(4));
            verbs.put("device.createCq(channel)", () -> d.createCq(4, channel));
            verbs.put("device.createCq(attrs)", () -> d.createCq(CqInitAttributes.of(4).withCompletionTimestamps()));
            verbs.put("device.createCompletionChannel", d::createCompletionChannel);
            verbs.put("pd.registerMemory", () -> pd.registerMemory(buf, AccessFlags.LOCAL_WRITE));
            verbs.put("pd.registerMemory(range)", () -> pd.registerMemory(buf, 0, 64, AccessFlags.LOCAL_WRITE));
            verbs.put("pd.registerPersistentMemory", () -> pd.registerPersistentMemory(file, AccessFlags.LOCAL_WRITE));
            verbs.put("pd.allocMr", () -> pd.allocMr(4096));
            verbs.put("pd.allocMw", () -> pd.allocMw(2));
            verbs.put("pd.createAddressHandle", () -> pd.createAddressHandle(av));
            verbs.put("pd.createQp", () -> pd.createQp(QpInitAttributes.rc(cq, cq)));
            verbs.put("pd.createRdQp", () -> pd.createRdQp(QpInitAttributes.rd(cq, cq), rdd));
            verbs.put("pd.createSrq", () -> pd.createSrq(8, 1, 0));
            verbs.put("pd.createXrcSrq", () -> pd.createXrcSrq(xrcd, cq, 8, 1, 0));
            verbs.put("cq.requestNotify", () -> cq.requestNotify(false));
            verbs.put("cq.resize", () -> cq.resize(128));
            verbs.put("mr.reregister", () -> mr.reregister(MemoryRegion.REREG_CHANGE_ACCESS, null, null, 0, 0,
                    AccessFlags.LOCAL_WRITE));
            for (var e : qps.entrySet()) {
                QueuePair qp = e.getValue();
                verbs.put(e.getKey() + " qp.modify", () -> qp.modify(new QpAttributes().state(QpState.RESET)));
                verbs.put(e.getKey() + " qp.query", qp::query);
                verbs.put(e.getKey() + " qp.postSend", () -> qp.postSend(send));
                verbs.put(e.getKey() + " qp.postRecv", () -> qp.postRecv(recv));
            }
            verbs.put("qp.bindMw", () -> rts.bindMw(5, true, mw1, mr, mr.address(), 64, AccessFlags.REMOTE_READ));
            verbs.put("srq.postRecv", () -> srq.postRecv(recv));
            verbs.put("srq.query", srq::query);
            verbs.put("srq.resize", () -> srq.resize(16));
            verbs.put("srq.armLimit", () -> srq.armLimit(1));
            verbs.put("srq.modify", () -> srq.modify(16, 1));
            verbs.put("xrc srq.postRecv", () -> xrcSrq.postRecv(recv));
            verbs.put("fmr.map", () -> fmr.map(buf, 0, 64));
            verbs.put("xrcd.createTargetQp", xrcd::createTargetQp);
            verbs.put("rdd.createEeContext", rdd::createEeContext);
            verbs.put("rdd.createEeContext(recovery)", () -> rdd.createEeContext(RdQpErrorRecovery.FAIL_CONTEXT));
            verbs.put("eec.modify", () -> eec.modify(new QpAttributes().state(QpState.RESET)));
            verbs.put("eec.query", eec::query);
            List<String> accepted = new ArrayList<>();
            for (var e : verbs.entrySet()) {
                try {
                    e.getValue().run();
                    accepted.add(e.getKey());
                } catch (IllegalStateException refused) {
                    String m = refused.getMessage();
                    assertTrue(m.contains("device " + d.gid()) && m.contains("closed"), e.getKey() + ": " + m);
                }
            }
            assertAll(() -> assertEquals(allErr, states, "the QPs' states after the device's close"),
                    () -> assertEquals(List.of("1 WR_FLUSH_ERR", "2 WR_FLUSH_ERR"), flushed, "the RTS QP's work, flushed"),
                    () -> assertEquals(List.of(), accepted, "verbs a closed device still accepted"));

            // Everything can still be closed, in the order an application would.
            for (QueuePair qp : qps.values()) {
                qp.close();
            }
            eec.close();
            xrcSrq.close();
            srq.close();
            xrcd.close();
            rdd.close();
            ah.close();
            mw1.close();
            mw2.close();
            fmr.close();
            mr.close();
            cq.close();
            pd.close();
            assertTrue(cq.isClosed());
        } finally {
            wire.close();
            if (net != null) {
                net.close();
            }
        }
    }
}
