package io.rnic.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One kind of object in a device's resource view ({@link DeviceResources}): a table whose columns
 * follow {@code rdma resource show} ({@code lqpn}, {@code rqpn}, {@code sq-psn}, {@code pdn},
 * ...) with rnic's additions. A value is a {@link Number}, a {@link Boolean} or a
 * {@link String}; a number prints in decimal, so a table printed and read back keeps its values.
 * Immutable.
 */
public final class ResourceTable {
    private final String kind;
    private final List<String> columns;
    private final List<List<Object>> rows;

    /**
     * Makes a table.
     *
     * @param kind    what the rows are, as {@code rdma resource show} names it ({@code qp},
     *                {@code cq}, {@code mr}, {@code cm_id}, ...)
     * @param columns the column names
     * @param rows    the rows, each with one value per column: a {@link Number}, a
     *                {@link Boolean} or a {@link String}
     * @throws NullPointerException if an argument, a row or a value is null
     * @throws IllegalArgumentException if a row's length differs from the columns', or a value is
     *     of another type
     */
    public ResourceTable(String kind, List<String> columns, List<? extends List<?>> rows) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(columns, "columns");
        Objects.requireNonNull(rows, "rows");
        this.kind = kind;
        this.columns = List.copyOf(columns);
        List<List<Object>> copy = new ArrayList<>(rows.size());
        for (List<?> row : rows) {
            Objects.requireNonNull(row, "row");
            if (row.size() != this.columns.size()) {
                throw new IllegalArgumentException("a " + kind + " row has " + row.size() + " values for "
                        + this.columns.size() + " columns " + this.columns);
            }
            for (Object v : row) {
                Objects.requireNonNull(v, "value");
                if (!(v instanceof Number || v instanceof Boolean || v instanceof String)) {
                    throw new IllegalArgumentException("a resource value is a number, a boolean or a string, not "
                            + v.getClass().getName());
                }
            }
            copy.add(List.copyOf(row));
        }
        this.rows = List.copyOf(copy);
    }

    /**
     * What the rows are ({@code qp}, {@code cq}, ...).
     *
     * @return the kind
     */
    public String kind() {
        return kind;
    }

    /**
     * The column names, in order.
     *
     * @return the columns
     */
    public List<String> columns() {
        return columns;
    }

    /**
     * The rows, each a list of values in column order.
     *
     * @return the rows
     */
    public List<List<Object>> rows() {
        return rows;
    }

    /**
     * How many rows the table has.
     *
     * @return the row count
     */
    public int size() {
        return rows.size();
    }

    /**
     * The value of row {@code row} in column {@code column}.
     *
     * @param row    the row's index
     * @param column the column's name
     * @return the value
     * @throws NullPointerException if {@code column} is null
     * @throws IllegalArgumentException if the table has no such column
     * @throws IndexOutOfBoundsException if there is no such row
     */
    public Object value(int row, String column) {
        int c = indexOf(column);
        return rows.get(row).get(c);
    }

    /**
     * The rows whose {@code column} shows {@code value}, as {@code rdma resource show qp lqpn 17}
     * selects: numbers compare by value (so {@code 0x11} selects {@code 17}), and as rdma's
     * filters a number may be a range or a list of them ({@code lqpn 17-19,23}); anything else
     * compares by its text, ignoring case ({@code state err} selects {@code ERR}).
     *
     * @param column the column's name
     * @param value  what it must show
     * @return a table of the matching rows
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the table has no such column
     */
    public ResourceTable filter(String column, String value) {
        Objects.requireNonNull(value, "value");
        int c = indexOf(column);
        long[] ranges = ranges(value);
        List<List<Object>> kept = new ArrayList<>();
        for (List<Object> row : rows) {
            Object v = row.get(c);
            boolean match = v instanceof Number n && !(v instanceof Double || v instanceof Float) && ranges != null
                    ? within(n.longValue(), ranges) : text(v).equalsIgnoreCase(value);
            if (match) {
                kept.add(row);
            }
        }
        return new ResourceTable(kind, columns, kept);
    }

    /** {@code 17}, {@code 17-19,23} as [from, to] pairs; null if {@code s} is not such a list. */
    private static long[] ranges(String s) {
        String[] parts = s.split(",", -1);
        long[] out = new long[parts.length * 2];
        try {
            for (int i = 0; i < parts.length; i++) {
                int dash = parts[i].indexOf('-', 1);
                out[2 * i] = Long.decode(dash < 0 ? parts[i] : parts[i].substring(0, dash));
                out[2 * i + 1] = dash < 0 ? out[2 * i] : Long.decode(parts[i].substring(dash + 1));
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return out;
    }

    private static boolean within(long v, long[] ranges) {
        for (int i = 0; i < ranges.length; i += 2) {
            if (v >= ranges[i] && v <= ranges[i + 1]) {
                return true;
            }
        }
        return false;
    }

    private int indexOf(String column) {
        Objects.requireNonNull(column, "column");
        int c = columns.indexOf(column);
        if (c < 0) {
            throw new IllegalArgumentException("a " + kind + " table has no column '" + column + "'; its columns are "
                    + columns);
        }
        return c;
    }

    /** A value as the tables print it. */
    static String text(Object v) {
        return String.valueOf(v);
    }

    /**
     * The table aligned in columns under a header line of the column names, one line per row
     * (the header alone when the table is empty), each line ending with a newline.
     *
     * @return the aligned table
     */
    @Override
    public String toString() {
        int[] width = new int[columns.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = columns.get(c).length();
            for (List<Object> row : rows) {
                width[c] = Math.max(width[c], text(row.get(c)).length());
            }
        }
        StringBuilder b = new StringBuilder();
        line(b, columns, width);
        for (List<Object> row : rows) {
            line(b, row, width);
        }
        return b.toString();
    }

    private static void line(StringBuilder b, List<?> values, int[] width) {
        int start = b.length();
        for (int c = 0; c < width.length; c++) {
            String t = text(values.get(c));
            b.append(t);
            if (c < width.length - 1) {
                b.append(" ".repeat(width[c] - t.length() + 2));
            }
        }
        while (b.length() > start && b.charAt(b.length() - 1) == ' ') {
            b.setLength(b.length() - 1);
        }
        b.append('\n');
    }

    /**
     * The rows as a JSON array of objects, one member per column: numbers and booleans as JSON
     * numbers and booleans, anything else as a JSON string.
     *
     * @return the JSON text
     */
    public String toJson() {
        StringBuilder b = new StringBuilder();
        appendJson(b);
        return b.toString();
    }

    void appendJson(StringBuilder b) {
        b.append('[');
        for (int r = 0; r < rows.size(); r++) {
            b.append(r == 0 ? "{" : ",{");
            List<Object> row = rows.get(r);
            for (int c = 0; c < columns.size(); c++) {
                if (c > 0) {
                    b.append(',');
                }
                quote(b, columns.get(c));
                b.append(':');
                Object v = row.get(c);
                if (v instanceof Boolean || v instanceof Number n && Double.isFinite(n.doubleValue())) {
                    b.append(v);
                } else {
                    quote(b, text(v));
                }
            }
            b.append('}');
        }
        b.append(']');
    }

    /** Appends {@code s} as a JSON string (RFC 8259 section 7): quotes, backslashes and controls escaped. */
    static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                default -> {
                    if (ch < 0x20 || ch == 0x2028 || ch == 0x2029) {
                        b.append(String.format("\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        b.append('"');
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ResourceTable t && kind.equals(t.kind) && columns.equals(t.columns) && rows.equals(t.rows);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, columns, rows);
    }
}
