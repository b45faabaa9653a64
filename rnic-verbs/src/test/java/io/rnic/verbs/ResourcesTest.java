package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.cm.CmEventChannel;
import io.rnic.verbs.cm.CmId;
import io.rnic.verbs.cm.PortSpace;
import io.rnic.verbs.testing.RcPair;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link RdmaDevice#resources()} lists every object of a device with the columns of
 * {@code rdma resource show} (issue 44, part 1), read at one instant of the protocol; the device's
 * MXBean shows the same over JMX and goes away with the device.
 */
class ResourcesTest {
    private static final int PSN_A = 0x100; // RcPair: A sends from 0x100, B from 0x200
    private static final int MTU = 1024; // RcOptions.defaults()

    enum WireKind { SIM, UDP }

    private static RcPair pair(WireKind w) {
        return w == WireKind.SIM ? RcPair.simulated(44)
                : RcPair.udp("127.0.195.1", "127.0.196.1", RcOptions.defaults());
    }

    /** The one row of {@code t} whose {@code column} shows {@code value}. */
    private static List<Object> row(ResourceTable t, String column, Object value) {
        ResourceTable f = t.filter(column, String.valueOf(value));
        assertEquals(1, f.size(), column + " " + value + " in\n" + t);
        return f.rows().get(0);
    }

    private static Object cell(ResourceTable t, List<Object> row, String column) {
        return row.get(t.columns().indexOf(column));
    }

    @ParameterizedTest
    @EnumSource(WireKind.class)
    void qpRowsShowTheLivePsnsQueueUseAndCqs(WireKind wire) {
        try (RcPair p = pair(wire)) {
            p.qpA().postSend(p.write(1, 0, 3 * MTU));
            assertEquals(WcStatus.SUCCESS, p.awaitA(1).get(0).status());
            p.qpB().postRecv(p.recv(7, 0, 64));
            p.qpB().postRecv(p.recv(8, 0, 64));

            DeviceResources a = p.a().resources();
            ResourceTable qps = a.table("qp");
            assertEquals(List.of("lqpn", "type", "state", "rqpn", "sq-psn", "rq-psn", "mtu", "sq", "rq", "inflight",
                    "rd-atomic", "retry-left", "rnr-left", "scq", "rcq", "srqn", "pdn"), qps.columns());
            List<Object> qa = row(qps, "lqpn", p.qpA().qpn());
            assertEquals("RC", cell(qps, qa, "type"));
            assertEquals("RTS", cell(qps, qa, "state"));
            assertEquals(p.qpB().qpn(), cell(qps, qa, "rqpn"));
            assertEquals(PSN_A + 3, cell(qps, qa, "sq-psn"), "the requester's next PSN, as query() reports it");
            assertEquals(p.qpA().query().rqPsn(), cell(qps, qa, "rq-psn"));
            assertEquals(MTU, cell(qps, qa, "mtu"));
            assertEquals(0, cell(qps, qa, "inflight"), "the WRITE was acknowledged");
            assertEquals(p.cqA().core.id(), cell(qps, qa, "scq"));

            ResourceTable qpsB = p.b().resources().table("qp");
            List<Object> qb = row(qpsB, "lqpn", p.qpB().qpn());
            assertEquals("2/" + p.qpB().initAttributes().caps().maxRecvWr(), cell(qpsB, qb, "rq"),
                    "two receives posted, none taken");
            assertEquals(PSN_A + 3, cell(qpsB, qb, "rq-psn"), "the responder's expected PSN");

            ResourceTable cqs = a.table("cq");
            List<Object> cq = row(cqs, "cqn", p.cqA().core.id());
            assertEquals(p.cqA().core.capacity(), cell(cqs, cq, "cqe"));
            assertEquals(false, cell(cqs, cq, "overflowed"));

            ResourceTable mrs = a.table("mr");
            List<Object> mr = row(mrs, "lkey", "0x" + Integer.toHexString(p.mrA().lkey()));
            assertEquals("0x" + Integer.toHexString(p.mrA().rkey()), cell(mrs, mr, "rkey"));
            assertEquals(RcPair.BUFFER_BYTES, cell(mrs, mr, "mrlen"));
            assertEquals(AccessFlags.describe(RcPair.ALL_ACCESS), cell(mrs, mr, "access"));
            assertTrue(a.table("pd").size() >= 1, a.toString());
        }
    }

    @Test
    void aQpInErrorIsFoundByItsStateAndTheViewFollowsCreationAndClose() {
        try (RcPair p = RcPair.simulated(45)) {
            ProtectionDomain pd = p.a().allocPd();
            MemoryRegion mr = pd.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE
                    | AccessFlags.MW_BIND);
            MemoryWindow mw = pd.allocMw(2);
            SharedReceiveQueue srq = pd.createSrq(16, 1, 4);
            srq.postRecv(new RecvWorkRequest().wrId(1).sge(mr.address(), 64, mr.lkey()));
            AddressHandle ah = pd.createAddressHandle(AddressVector.of(p.b().gid().toInetAddress()));
            XrcDomain xrcd = p.a().openXrcd("res-test");
            EeContext eec = p.a().allocRdd().createEeContext();

            DeviceResources r = p.a().resources();
            assertEquals(pd.core.id(), row(r.table("pd"), "pdn", pd.core.id()).get(0));
            row(r.table("mr"), "lkey", "0x" + Integer.toHexString(mr.lkey()));
            row(r.table("mw"), "rkey", "0x" + Integer.toHexString(mw.rkey()));
            ResourceTable srqs = r.table("srq");
            List<Object> s = row(srqs, "srqn", srq.srqn());
            assertEquals("1/16", cell(srqs, s, "wqe"));
            assertEquals(4, cell(srqs, s, "limit"));
            row(r.table("ah"), "dgid", p.b().gid().toInetAddress().getHostAddress());
            row(r.table("xrcd"), "name", "res-test");
            row(r.table("eec"), "eecn", eec.core.qpn());

            p.qpA().modify(new QpAttributes().state(QpState.ERR));
            ResourceTable errs = p.a().resources().table("qp").filter("state", "err");
            assertEquals(1, errs.size(), errs.toString());
            assertEquals(p.qpA().qpn(), errs.value(0, "lqpn"));
            assertEquals(1, p.a().resources().table("qp").filter("lqpn", "0x" + Integer.toHexString(p.qpA().qpn()))
                    .size(), "a hexadecimal QPN selects the same row");

            eec.close();
            xrcd.close();
            ah.close();
            srq.close();
            mw.close();
            mr.close();
            pd.close();
            DeviceResources after = p.a().resources();
            assertEquals(0, after.table("eec").size());
            assertEquals(0, after.table("xrcd").size());
            assertEquals(0, after.table("ah").size());
            assertEquals(0, after.table("srq").size());
            assertEquals(0, after.table("mw").size());
            assertEquals(0, after.table("pd").filter("pdn", String.valueOf(pd.core.id())).size());
            assertEquals(0, after.table("mr").filter("lkey", "0x" + Integer.toHexString(mr.lkey())).size());
        }
    }

    @Test
    void cqRowsShowTheArmedNotificationAndAnOverflowAndMrRowsTheirBoundWindows() throws Exception {
        try (RcPair p = RcPair.simulated(48)) {
            ProtectionDomain pd = p.qpA().pd();
            CompletionQueue small = p.a().createCq(1, p.a().createCompletionChannel());
            small.requestNotify(true);
            ResourceTable armed = p.a().resources().table("cq");
            assertEquals("solicited", cell(armed, row(armed, "cqn", small.core.id()), "notify"));
            // Two receives flushed at once (the QP is in ERR) into a CQ of one entry: it overflows.
            QueuePair q = pd.createQp(QpInitAttributes.rc(small, small).withCaps(new QpCaps(1, 2, 1, 1, 0)));
            q.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
            q.modify(new QpAttributes().state(QpState.ERR));
            q.postRecv(p.recv(1, 0, 8));
            q.postRecv(p.recv(2, 0, 8));
            assertTrue(p.a().driveUntil(() -> small.core.hasOverflowed(), RcPair.AWAIT_NANOS), "the CQ overflowed");
            ResourceTable cqs = p.a().resources().table("cq");
            List<Object> c = row(cqs, "cqn", small.core.id());
            assertEquals(true, cell(cqs, c, "overflowed"));
            assertEquals(1, cell(cqs, c, "entries"));
            assertEquals(1, cell(cqs, c, "cqe"));

            MemoryRegion bindable = pd.registerMemory(ByteBuffer.allocateDirect(8192), AccessFlags.LOCAL_WRITE
                    | AccessFlags.REMOTE_WRITE | AccessFlags.MW_BIND);
            MemoryWindow mw = pd.allocMw(1);
            int key = p.qpA().bindMw(9, true, mw, bindable, bindable.address(), 4096, AccessFlags.REMOTE_WRITE);
            p.awaitA(1);
            ResourceTable mrs = p.a().resources().table("mr");
            assertEquals(1, cell(mrs, row(mrs, "lkey", "0x" + Integer.toHexString(bindable.lkey())), "mw"));
            ResourceTable mws = p.a().resources().table("mw");
            List<Object> w = row(mws, "rkey", "0x" + Integer.toHexString(key));
            assertEquals("VALID", cell(mws, w, "state"));
            assertEquals(4096L, cell(mws, w, "length"));
            assertEquals("0x" + Integer.toHexString(bindable.lkey()), cell(mws, w, "mr-lkey"));
        }
    }

    @Test
    void toStringAlignsTheTablesAndToJsonEscapesStrings() {
        ResourceTable t = new ResourceTable("qp", List.of("lqpn", "state", "note"),
                List.of(List.of(17, "RTS", "a \"quoted\"\\ line\nnext\u0001"), List.of(1234, "ERR", "-")));
        assertEquals("""
                lqpn  state  note
                17    RTS    a "quoted"\\ line
                next\u0001
                1234  ERR    -
                """, t.toString());
        assertEquals("[{\"lqpn\":17,\"state\":\"RTS\",\"note\":\"a \\\"quoted\\\"\\\\ line\\nnext\\u0001\"},"
                + "{\"lqpn\":1234,\"state\":\"ERR\",\"note\":\"-\"}]", t.toJson());
        DeviceResources r = new DeviceResources("10.0.0.1", List.of(t, new ResourceTable("cq", List.of("cqn"),
                List.of())));
        assertEquals("{\"device\":\"10.0.0.1\",\"qp\":" + t.toJson() + ",\"cq\":[]}", r.toJson());
        assertEquals("10.0.0.1: qp 2 cq 0", r.summary());
        assertThrows(IllegalArgumentException.class, () -> t.filter("lqn", "17"), "no such column");
        // rdma's number filters: a value, a range, a list of them, in any base Long.decode reads.
        assertEquals(1, t.filter("lqpn", "0x11").size());
        assertEquals(2, t.filter("lqpn", "10-20,1234").size());
        assertEquals(1, t.filter("lqpn", "1000-2000").size());
        assertEquals(0, t.filter("lqpn", "18-20").size());
        assertEquals(1, t.filter("note", "-").size(), "a dash alone is text");
        assertEquals(1, t.filter("state", "rts").size(), "words ignore case");
        assertThrows(IllegalArgumentException.class, () -> r.table("qpx"));
        assertThrows(IllegalArgumentException.class,
                () -> new ResourceTable("qp", List.of("a"), List.of(List.of(1, 2))), "a row too long");
        assertThrows(IllegalArgumentException.class,
                () -> new ResourceTable("qp", List.of("a"), List.of(List.of(new Object()))), "not a value type");
    }

    @Test
    void theConnectionManagerAddsItsIds() throws Exception {
        try (RcPair p = RcPair.simulated(46)) {
            CmEventChannel ch = CmEventChannel.create(p.b());
            CmId listener = ch.createId(PortSpace.TCP, null);
            String addr = p.b().gid().toInetAddress().getHostAddress();
            listener.bindAddr(new InetSocketAddress(addr, 7471));
            listener.listen(4);
            ResourceTable ids = p.b().resources().table("cm_id");
            List<Object> l = row(ids, "state", "LISTEN");
            assertEquals("TCP", cell(ids, l, "ps"));
            assertEquals(addr, cell(ids, l, "src-addr"));
            assertEquals(7471, cell(ids, l, "src-port"));
            // The CM's own GSI QP is a QP of the device like any other.
            assertEquals("GSI", row(p.b().resources().table("qp"), "lqpn", 1).get(1));
            listener.close();
            ch.close();
        }
    }

    @Test
    void eachOpenDeviceHasAnMxBeanUntilItCloses() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name;
        try (RcPair p = RcPair.simulated(47)) {
            String addr = p.a().gid().toInetAddress().getHostAddress();
            Set<ObjectName> names = server.queryNames(new ObjectName("io.rnic:type=RdmaDevice,name="
                    + ObjectName.quote(addr) + ",*"), null);
            assertFalse(names.isEmpty(), "registered: " + server.queryNames(new ObjectName("io.rnic:*"), null));
            name = names.stream().max((x, y) -> Long.compare(Long.parseLong(x.getKeyProperty("id")),
                    Long.parseLong(y.getKeyProperty("id")))).orElseThrow();
            RdmaDeviceMXBean bean = JMX.newMXBeanProxy(server, name, RdmaDeviceMXBean.class);
            assertEquals(addr, bean.getAddress());
            assertEquals(Long.parseLong(name.getKeyProperty("id")), bean.getId());
            p.qpA().postSend(p.write(1, 0, 100));
            p.awaitA(1);
            assertEquals(p.a().counters().get(Counter.SENT_PKTS), bean.getCounters().get(Counter.SENT_PKTS.label()));
            assertEquals(0L, bean.getPitfallCounts().get(Pitfall.values()[0].code()));
            assertEquals(p.a().resources().toJson(), bean.getResourcesJson());
            assertTrue(List.of(bean.getResourceKinds()).containsAll(List.of("pd", "mr", "mw", "cq", "qp", "srq", "ah",
                    "xrcd", "eec")));
            String[][] qp = bean.resourceTable("qp");
            assertEquals("lqpn", qp[0][0]);
            assertEquals(String.valueOf(p.qpA().qpn()), qp[1][0]);
            assertEquals("RTS", qp[1][2]);
            // Open data: a JMX client without rnic's classes reads the same table.
            Object raw = server.invoke(name, "resourceTable", new Object[] {"qp"}, new String[] {String.class.getName()});
            assertEquals("RTS", ((String[][]) raw)[1][2]);
        }
        assertFalse(server.isRegistered(name), "unregistered on close");
    }
}
