package io.rnic.verbs;

import java.util.Map;

/**
 * What an open {@link RdmaDevice} shows over JMX: each registers one platform MXBean named
 * {@code io.rnic:type=RdmaDevice,name="<address>",id=<n>} ({@code n} a sequence number per JVM,
 * since two simulated networks may reuse an address), unregistered when the device closes.
 * jconsole, VisualVM and {@code rnic res show} read it. Every type here is an open type, so a
 * client needs no rnic class.
 *
 * <p>The resource attributes and operations take a {@link RdmaDevice#resources() snapshot} on
 * the device's protocol thread; on a device driven by its application's thread they throw
 * {@link IllegalStateException}, since only that thread may reach the protocol.
 */
public interface RdmaDeviceMXBean {
    /**
     * The device's IP address (its GID as an address).
     *
     * @return the address, e.g. {@code 10.0.0.1}
     */
    String getAddress();

    /**
     * The device's sequence number in this JVM, the {@code id} of its object name.
     *
     * @return the sequence number
     */
    long getId();

    /**
     * The device's counters by name ({@link Counters#snapshot()}).
     *
     * @return the counters
     */
    Map<String, Long> getCounters();

    /**
     * How often each pitfall occurred, by its code ({@code RNIC-W001}, ...).
     *
     * @return the counts
     */
    Map<String, Long> getPitfallCounts();

    /**
     * The kinds of the resource tables, in their order ({@code pd}, {@code mr}, ... {@code cm_id}).
     *
     * @return the kinds
     */
    String[] getResourceKinds();

    /**
     * The object count of each kind on one line ({@link DeviceResources#summary()}).
     *
     * @return the summary
     */
    String getResourceSummary();

    /**
     * Every resource table as aligned text ({@link DeviceResources#toString()}).
     *
     * @return the text
     */
    String getResourcesText();

    /**
     * Every resource table as JSON ({@link DeviceResources#toJson()}).
     *
     * @return the JSON text
     */
    String getResourcesJson();

    /**
     * One resource table as open data: the first row is the column names, each further row an
     * object's values as text (numbers in decimal, booleans as {@code true}/{@code false}).
     *
     * @param kind the table's kind, one of {@link #getResourceKinds()}
     * @return the header and the rows
     * @throws IllegalArgumentException if there is no table of that kind
     */
    String[][] resourceTable(String kind);
}
