package io.rnic.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A snapshot of every object of one device, taken at one instant of its protocol
 * ({@link RdmaDevice#resources()}): one {@link ResourceTable} per kind, in the order
 * {@code pd}, {@code mr}, {@code mw}, {@code cq}, {@code qp}, {@code srq}, {@code ah},
 * {@code xrcd}, {@code eec}, then what layers above the device contribute ({@code cm_id} from
 * the connection manager). Immutable.
 */
public final class DeviceResources {
    private final String device;
    private final List<ResourceTable> tables;

    /**
     * Makes a snapshot.
     *
     * @param device the device's address, as the tables' heading names it
     * @param tables one table per kind; tables of the same kind and columns are merged
     * @throws NullPointerException if an argument or a table is null
     * @throws IllegalArgumentException if two tables of the same kind have different columns
     */
    public DeviceResources(String device, List<ResourceTable> tables) {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(tables, "tables");
        this.device = device;
        List<ResourceTable> merged = new ArrayList<>();
        for (ResourceTable t : tables) {
            Objects.requireNonNull(t, "table");
            int same = indexOf(merged, t.kind());
            if (same < 0) {
                merged.add(t);
                continue;
            }
            ResourceTable old = merged.get(same);
            if (!old.columns().equals(t.columns())) {
                throw new IllegalArgumentException("two " + t.kind() + " tables with different columns: "
                        + old.columns() + " and " + t.columns());
            }
            List<List<Object>> rows = new ArrayList<>(old.rows());
            rows.addAll(t.rows());
            merged.set(same, new ResourceTable(t.kind(), t.columns(), rows));
        }
        this.tables = List.copyOf(merged);
    }

    private static int indexOf(List<ResourceTable> tables, String kind) {
        for (int i = 0; i < tables.size(); i++) {
            if (tables.get(i).kind().equals(kind)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The device's address.
     *
     * @return the address, e.g. {@code 10.0.0.1}
     */
    public String device() {
        return device;
    }

    /**
     * Every table, one per kind.
     *
     * @return the tables
     */
    public List<ResourceTable> tables() {
        return tables;
    }

    /**
     * The table of one kind.
     *
     * @param kind {@code pd}, {@code mr}, {@code mw}, {@code cq}, {@code qp}, {@code srq},
     *             {@code ah}, {@code xrcd}, {@code eec}, or a contributed kind such as
     *             {@code cm_id}
     * @return its table
     * @throws NullPointerException if {@code kind} is null
     * @throws IllegalArgumentException if the snapshot has no table of that kind
     */
    public ResourceTable table(String kind) {
        Objects.requireNonNull(kind, "kind");
        int i = indexOf(tables, kind);
        if (i < 0) {
            List<String> kinds = new ArrayList<>();
            tables.forEach(t -> kinds.add(t.kind()));
            throw new IllegalArgumentException("no resource kind '" + kind + "'; the kinds are " + kinds);
        }
        return tables.get(i);
    }

    /**
     * The snapshot as text: a line naming the device and how many objects of each kind it has,
     * as {@code rdma resource show} prints, then each non-empty table aligned under its kind.
     *
     * @return the text
     */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(summary()).append('\n');
        for (ResourceTable t : tables) {
            if (t.size() > 0) {
                b.append('\n').append(t.kind()).append('\n').append(t);
            }
        }
        return b.toString();
    }

    /**
     * One line: the device and its object count per kind ({@code 10.0.0.1: pd 1 mr 2 ...}).
     *
     * @return the summary line
     */
    public String summary() {
        StringBuilder b = new StringBuilder(device).append(':');
        for (ResourceTable t : tables) {
            b.append(' ').append(t.kind()).append(' ').append(t.size());
        }
        return b.toString();
    }

    /**
     * The snapshot as a JSON object: {@code "device"} and one member per kind, each an array
     * of row objects ({@link ResourceTable#toJson()}).
     *
     * @return the JSON text
     */
    public String toJson() {
        StringBuilder b = new StringBuilder("{");
        ResourceTable.quote(b, "device");
        b.append(':');
        ResourceTable.quote(b, device);
        for (ResourceTable t : tables) {
            b.append(',');
            ResourceTable.quote(b, t.kind());
            b.append(':');
            t.appendJson(b);
        }
        return b.append('}').toString();
    }
}
