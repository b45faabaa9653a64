package io.rnic.verbs;

import io.rnic.core.engine.QpContext;
import io.rnic.core.engine.QpUsage;
import io.rnic.core.engine.SrqContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * Builds a device's {@link DeviceResources}: one pass over its objects on the protocol thread
 * (the caller's job), so that a QP's PSNs, its queues' use and its CQ's entries belong to the
 * same instant. The columns follow {@code rdma resource show} where it has one ({@code lqpn},
 * {@code rqpn}, {@code sq-psn}, {@code rq-psn}, {@code pdn}, {@code cqn}, {@code cqe},
 * {@code users}, {@code lkey}, {@code rkey}, {@code mrlen}, {@code srqn}), rnic's own otherwise.
 * A value the object does not have (an XRC target QP's PD) shows as {@code -}.
 */
final class ResourceSnapshot {
    static final String NONE = "-";

    private ResourceSnapshot() {
    }

    /** Protocol thread (or a closed device). */
    static DeviceResources take(RdmaDevice device, List<Supplier<ResourceTable>> contributed) {
        List<Object> objects = new ArrayList<>(device.trackedObjects());
        List<QpContext> contexts = new ArrayList<>(device.qpContexts());
        contexts.sort(Comparator.comparingInt(QpContext::qpn));
        List<ResourceTable> tables = new ArrayList<>();
        tables.add(pds(objects));
        tables.add(mrs(objects));
        tables.add(mws(objects));
        tables.add(cqs(device.completionQueues()));
        tables.add(qps(contexts));
        tables.add(srqs(objects));
        tables.add(ahs(objects));
        tables.add(xrcds(device.xrcDomainsByName()));
        tables.add(eecs(contexts));
        for (Supplier<ResourceTable> s : contributed) {
            tables.add(s.get());
        }
        return new DeviceResources(device.gid().toInetAddress().getHostAddress(), tables);
    }

    private static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }

    private static String used(int used, int max) {
        return max <= 0 ? NONE : used + "/" + max;
    }

    private static ResourceTable pds(List<Object> objects) {
        List<List<Object>> rows = new ArrayList<>();
        for (Object o : objects) {
            if (o instanceof ProtectionDomain pd) {
                rows.add(List.of(pd.core.id(), pd.core.useCount()));
            }
        }
        rows.sort(Comparator.comparingInt(r -> (Integer) r.get(0)));
        return new ResourceTable("pd", List.of("pdn", "users"), rows);
    }

    private static ResourceTable mrs(List<Object> objects) {
        List<List<Object>> rows = new ArrayList<>();
        for (Object o : objects) {
            if (o instanceof MemoryRegion mr) {
                rows.add(mrRow(mr.core, mr.core.persistent() ? "persistent" : "mr"));
            } else if (o instanceof FastMemoryRegion fr) {
                io.rnic.core.memory.MemoryRegion current = fr.core.current();
                rows.add(current != null ? mrRow(current, "fast") : List.of(hex(fr.core.key()), hex(fr.core.key()),
                        fr.core.pd().id(), NONE, fr.core.maxLength(), NONE, 0, 0, "fast(free)"));
            }
        }
        rows.sort(Comparator.comparing(r -> (String) r.get(0)));
        return new ResourceTable("mr", List.of("lkey", "rkey", "pdn", "iova", "mrlen", "access", "pins", "mw", "kind"),
                rows);
    }

    private static List<Object> mrRow(io.rnic.core.memory.MemoryRegion mr, String kind) {
        return List.of(hex(mr.lkey() & 0xFFFFFFFFL), hex(mr.rkey() & 0xFFFFFFFFL), mr.pd().id(), hex(mr.va()),
                mr.length(), AccessFlags.describe(mr.access()), mr.pinCount(), mr.boundWindows(), kind);
    }

    private static ResourceTable mws(List<Object> objects) {
        List<List<Object>> rows = new ArrayList<>();
        for (Object o : objects) {
            if (o instanceof MemoryWindow mw) {
                io.rnic.core.memory.MemoryWindow w = mw.core;
                io.rnic.core.memory.MemoryRegion mr = w.mr();
                rows.add(List.of(hex(w.rkey() & 0xFFFFFFFFL), w.pd().id(), w.type(), w.state().name(),
                        mr != null ? hex(mr.lkey() & 0xFFFFFFFFL) : NONE, w.length(),
                        AccessFlags.describe(w.access()), w.qpn() >= 0 ? (Object) w.qpn() : NONE));
            }
        }
        rows.sort(Comparator.comparing(r -> (String) r.get(0)));
        return new ResourceTable("mw", List.of("rkey", "pdn", "type", "state", "mr-lkey", "length", "access", "lqpn"),
                rows);
    }

    private static ResourceTable cqs(java.util.Collection<CompletionQueue> cqs) {
        List<List<Object>> rows = new ArrayList<>();
        for (CompletionQueue cq : cqs) {
            io.rnic.core.engine.CompletionQueue c = cq.core;
            rows.add(List.of(c.id(), c.size(), c.capacity(), c.users(), c.notifyState(), c.hasOverflowed()));
        }
        rows.sort(Comparator.comparingInt(r -> (Integer) r.get(0)));
        return new ResourceTable("cq", List.of("cqn", "entries", "cqe", "users", "notify", "overflowed"), rows);
    }

    private static ResourceTable qps(List<QpContext> contexts) {
        List<List<Object>> rows = new ArrayList<>();
        for (QpContext qp : contexts) {
            if (qp.isEeContext()) {
                continue;
            }
            QpAttributes a = qp.query(new QpAttributes());
            QpUsage u = QpUsage.of(qp);
            SrqContext srq = qp.srq();
            rows.add(List.of(qp.qpn(), qp.type().name(), qp.state().name(), a.destQpn(), a.sqPsn(), a.rqPsn(),
                    u.mtu(), used(u.sqUsed(), u.sqMax()), used(u.rqUsed(), u.rqMax()), u.inFlight(),
                    u.readsAtomics() + "/" + Math.max(1, a.maxRdAtomic()), u.retryLeft() + "/" + a.retryCnt(),
                    u.rnrLeft() + "/" + a.rnrRetry(),
                    qp.sendCq() != null ? (Object) qp.sendCq().id() : NONE,
                    qp.recvCq() != null ? (Object) qp.recvCq().id() : NONE,
                    srq != null ? (Object) srq.srqn() : NONE,
                    qp.pd() != null ? (Object) qp.pd().id() : NONE));
        }
        return new ResourceTable("qp", List.of("lqpn", "type", "state", "rqpn", "sq-psn", "rq-psn", "mtu", "sq", "rq",
                "inflight", "rd-atomic", "retry-left", "rnr-left", "scq", "rcq", "srqn", "pdn"), rows);
    }

    private static ResourceTable srqs(List<Object> objects) {
        List<List<Object>> rows = new ArrayList<>();
        for (Object o : objects) {
            if (o instanceof SharedReceiveQueue s) {
                SrqContext c = s.core;
                rows.add(List.of(c.srqn(), c.xrcd() != null ? "XRC" : "BASIC", c.pd().id(), used(c.available(),
                        c.maxWr()), c.limit(), c.attachedQps()));
            }
        }
        rows.sort(Comparator.comparingInt(r -> (Integer) r.get(0)));
        return new ResourceTable("srq", List.of("srqn", "type", "pdn", "wqe", "limit", "qps"), rows);
    }

    private static ResourceTable ahs(List<Object> objects) {
        List<List<Object>> rows = new ArrayList<>();
        for (Object o : objects) {
            if (o instanceof AddressHandle ah && !ah.isDestroyed()) {
                AddressVector v = ah.vector();
                rows.add(List.of(ah.pdn(), v.address().getHostAddress(), v.port(), v.trafficClass(), v.hopLimit()));
            }
        }
        rows.sort(Comparator.comparing(r -> r.get(1) + ":" + r.get(2)));
        return new ResourceTable("ah", List.of("pdn", "dgid", "dport", "tclass", "hop-limit"), rows);
    }

    private static ResourceTable xrcds(java.util.Map<String, io.rnic.core.engine.XrcDomainContext> domains) {
        List<List<Object>> rows = new ArrayList<>();
        domains.forEach((name, d) -> rows.add(List.of(d.id(), name, d.users())));
        rows.sort(Comparator.comparingInt(r -> (Integer) r.get(0)));
        return new ResourceTable("xrcd", List.of("xrcdn", "name", "users"), rows);
    }

    private static ResourceTable eecs(List<QpContext> contexts) {
        List<List<Object>> rows = new ArrayList<>();
        for (QpContext ee : contexts) {
            if (ee.isEeContext()) {
                QpAttributes a = ee.query(new QpAttributes());
                QpUsage u = QpUsage.of(ee);
                rows.add(List.of(ee.qpn(), ee.state().name(), a.destQpn(), a.sqPsn(), a.rqPsn(), u.inFlight(),
                        u.retryLeft() + "/" + a.retryCnt(), u.rnrLeft() + "/" + a.rnrRetry(), ee.rdd().id()));
            }
        }
        return new ResourceTable("eec", List.of("eecn", "state", "reecn", "sq-psn", "rq-psn", "inflight", "retry-left",
                "rnr-left", "rddn"), rows);
    }
}
