package io.rnic.verbs.cm;

import io.rnic.verbs.QueuePair;
import io.rnic.verbs.ResourceTable;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The connection manager's rows of a device's resource view ({@code rdma resource show cm_id}):
 * the IDs its agent knows, those with a communication ID and the listeners. A device's agent
 * adds this table to the device's snapshot when it starts ({@code RdmaDevice.addResourceProvider});
 * the snapshot runs it on the protocol thread, where the agent keeps its tables.
 */
final class CmIdTable {
    private static final List<String> COLUMNS = List.of("cm-idn", "state", "ps", "lqpn", "src-addr", "src-port",
            "dst-addr", "dst-port");

    private CmIdTable() {
    }

    /** The rows of {@code ids} and {@code listeners}, each ID once. */
    static ResourceTable of(Collection<CmId> ids, Collection<CmId> listeners) {
        Set<CmId> all = new LinkedHashSet<>(listeners);
        all.addAll(ids);
        List<List<Object>> rows = new ArrayList<>();
        for (CmId id : all) {
            QueuePair qp = id.qp();
            InetSocketAddress src = id.localAddress();
            InetSocketAddress dst = id.remoteAddress();
            rows.add(List.of(Integer.toUnsignedLong(id.localCommId()), id.state().name(), id.portSpace().name(),
                    qp != null ? (Object) qp.qpn() : "-",
                    src != null ? src.getAddress().getHostAddress() : "-", src != null ? (Object) src.getPort() : "-",
                    dst != null ? dst.getAddress().getHostAddress() : "-", dst != null ? (Object) dst.getPort() : "-"));
        }
        return new ResourceTable("cm_id", COLUMNS, rows);
    }
}
