package io.rnic.verbs;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Objects;

/**
 * Where a connected QP sends (its {@code ah_attr}, reference §4, §11.1): the peer's IP address
 * and UDP port plus the GRH fields that become IP header fields on RoCEv2. Immutable; start
 * from {@link #of(InetAddress)} and change fields with the {@code with*} methods.
 *
 * <p>On RoCEv2 a GID is an IPv6 address; an IPv4 peer has the IPv4-mapped GID
 * {@code ::ffff:a.b.c.d}. {@link #fromGid} and {@link #toGid} convert.
 */
public final class AddressVector {
    /** The RoCEv2 UDP destination port. */
    public static final int ROCE_PORT = 4791;
    /** The hop limit (IP TTL) of a new address vector. */
    public static final int DEFAULT_HOP_LIMIT = 64;

    private static final int GID_LENGTH = 16;

    private final InetAddress address;
    private final int port;
    private final int sgidIndex;
    private final int hopLimit;
    private final int trafficClass;
    private final int flowLabel;

    private AddressVector(InetAddress address, int port, int sgidIndex, int hopLimit, int trafficClass,
            int flowLabel) {
        java.util.Objects.requireNonNull(address, "address");
        check(port, 1, 0xFFFF, "udp port");
        check(sgidIndex, 0, 0xFF, "sgid_index");
        check(hopLimit, 0, 0xFF, "hop_limit");
        check(trafficClass, 0, 0xFF, "traffic_class");
        check(flowLabel, 0, 0xFFFFF, "flow_label");
        this.address = address;
        this.port = port;
        this.sgidIndex = sgidIndex;
        this.hopLimit = hopLimit;
        this.trafficClass = trafficClass;
        this.flowLabel = flowLabel;
    }

    /**
     * An address vector to {@code address} on port {@link #ROCE_PORT}, sgid index 0, hop
     * limit {@link #DEFAULT_HOP_LIMIT}, traffic class 0, flow label 0.
     *
     * @param address the peer's IP address
     * @return the new address vector
     * @throws NullPointerException if {@code address} is null
     */
    public static AddressVector of(InetAddress address) {
        return new AddressVector(address, ROCE_PORT, 0, DEFAULT_HOP_LIMIT, 0, 0);
    }

    /**
     * The peer's IP address.
     *
     * @return the destination IP address, which {@link #dgid()} encodes
     */
    public InetAddress address() {
        return address;
    }

    /**
     * The peer's UDP port (the RoCEv2 destination port).
     *
     * @return the UDP destination port, {@link #ROCE_PORT} unless changed
     */
    public int port() {
        return port;
    }

    /**
     * The index of the local GID to send from.
     *
     * @return {@code ah_attr.grh.sgid_index}, 0..255
     */
    public int sgidIndex() {
        return sgidIndex;
    }

    /**
     * The GRH hop limit (IPv4 TTL).
     *
     * @return {@code ah_attr.grh.hop_limit}, 0..255
     */
    public int hopLimit() {
        return hopLimit;
    }

    /**
     * The GRH traffic class (IP DSCP and ECN).
     *
     * @return {@code ah_attr.grh.traffic_class}, 0..255
     */
    public int trafficClass() {
        return trafficClass;
    }

    /**
     * The GRH flow label (IPv6 only), 20 bits.
     *
     * @return {@code ah_attr.grh.flow_label}, 0..0xFFFFF
     */
    public int flowLabel() {
        return flowLabel;
    }

    /**
     * The peer's GID, as {@link #toGid(InetAddress)}.
     *
     * @return {@code ah_attr.grh.dgid}, a new 16-byte array in network order
     */
    public byte[] dgid() {
        return toGid(address);
    }

    /**
     * A copy with another remote address.
     *
     * @param address the new remote IP address
     * @return a new address vector with this one's other fields
     * @throws NullPointerException if {@code address} is null
     */
    public AddressVector withAddress(InetAddress address) {
        return new AddressVector(address, port, sgidIndex, hopLimit, trafficClass, flowLabel);
    }

    /**
     * A copy with another UDP port, {@code 1..65535}.
     *
     * @param port the UDP destination port
     * @return a new address vector with this one's other fields
     * @throws IllegalArgumentException if {@code port} is out of range
     */
    public AddressVector withPort(int port) {
        return new AddressVector(address, port, sgidIndex, hopLimit, trafficClass, flowLabel);
    }

    /**
     * A copy with another sgid index, {@code 0..255}.
     *
     * @param sgidIndex the source GID index
     * @return a new address vector with this one's other fields
     * @throws IllegalArgumentException if {@code sgidIndex} is out of range
     */
    public AddressVector withSgidIndex(int sgidIndex) {
        return new AddressVector(address, port, sgidIndex, hopLimit, trafficClass, flowLabel);
    }

    /**
     * A copy with another hop limit, {@code 0..255}.
     *
     * @param hopLimit the hop limit (IPv4 TTL)
     * @return a new address vector with this one's other fields
     * @throws IllegalArgumentException if {@code hopLimit} is out of range
     */
    public AddressVector withHopLimit(int hopLimit) {
        return new AddressVector(address, port, sgidIndex, hopLimit, trafficClass, flowLabel);
    }

    /**
     * A copy with another traffic class, {@code 0..255}.
     *
     * @param trafficClass the traffic class (DSCP and ECN bits)
     * @return a new address vector with this one's other fields
     * @throws IllegalArgumentException if {@code trafficClass} is out of range
     */
    public AddressVector withTrafficClass(int trafficClass) {
        return new AddressVector(address, port, sgidIndex, hopLimit, trafficClass, flowLabel);
    }

    /**
     * A copy with another flow label, {@code 0..0xFFFFF}.
     *
     * @param flowLabel the IPv6 flow label
     * @return a new address vector with this one's other fields
     * @throws IllegalArgumentException if {@code flowLabel} is out of range
     */
    public AddressVector withFlowLabel(int flowLabel) {
        return new AddressVector(address, port, sgidIndex, hopLimit, trafficClass, flowLabel);
    }

    /**
     * The IP address a RoCEv2 GID stands for: an {@link Inet4Address} for an IPv4-mapped GID
     * ({@code ::ffff:a.b.c.d}), otherwise an IPv6 address.
     *
     * @param gid a 16-byte GID in network order
     * @return the address the GID stands for
     * @throws IllegalArgumentException if {@code gid} is not 16 bytes or is all zero (the "no
     *     GID" of the libibverbs examples, which cannot be routed on RoCE)
     */
    public static InetAddress fromGid(byte[] gid) {
        java.util.Objects.requireNonNull(gid, "gid");
        if (gid == null || gid.length != GID_LENGTH) {
            throw new IllegalArgumentException("GID must be 16 bytes, got "
                    + (gid == null ? "null" : gid.length + " bytes"));
        }
        boolean zero = true;
        for (byte b : gid) {
            zero &= b == 0;
        }
        if (zero) {
            throw new IllegalArgumentException("GID is all zero (no GID); RoCE needs an IP-based GID");
        }
        try {
            // getByAddress already returns an Inet4Address for IPv4-mapped addresses.
            return InetAddress.getByAddress(gid);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("GID " + Arrays.toString(gid) + " is not an address", e);
        }
    }

    /**
     * The RoCEv2 GID of {@code address}: {@code ::ffff:a.b.c.d} for IPv4, the 16 address bytes
     * for IPv6. A new array, in network order.
     *
     * @param address an IPv4 or IPv6 address
     * @return the 16-byte GID
     * @throws NullPointerException if {@code address} is null
     */
    public static byte[] toGid(InetAddress address) {
        java.util.Objects.requireNonNull(address, "address");
        if (address == null) {
            throw new IllegalArgumentException("cannot make a GID from a null address");
        }
        byte[] ip = address.getAddress();
        if (ip.length == GID_LENGTH) {
            return ip;
        }
        byte[] gid = new byte[GID_LENGTH];
        gid[10] = (byte) 0xFF;
        gid[11] = (byte) 0xFF;
        System.arraycopy(ip, 0, gid, 12, ip.length);
        return gid;
    }

    private static void check(int value, int min, int max, String name) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("address vector " + name + " " + value + " is not in " + min + ".." + max);
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AddressVector)) {
            return false;
        }
        AddressVector a = (AddressVector) o;
        return address.equals(a.address) && port == a.port && sgidIndex == a.sgidIndex
                && hopLimit == a.hopLimit && trafficClass == a.trafficClass && flowLabel == a.flowLabel;
    }

    @Override
    public int hashCode() {
        return Objects.hash(address, port, sgidIndex, hopLimit, trafficClass, flowLabel);
    }

    @Override
    public String toString() {
        return "av " + address.getHostAddress() + ":" + port + " sgid_index " + sgidIndex + " hop_limit "
                + hopLimit + " tclass " + trafficClass + " flow_label " + flowLabel;
    }
}
