package io.rnic.verbs;

import io.rnic.core.memory.ProtectionDomain;
import java.net.InetSocketAddress;

/**
 * An address handle ({@code ibv_ah}): a destination that datagram work requests name, created
 * in a protection domain from an {@link AddressVector} (the peer's GID as an IP address, its UDP
 * port, hop limit, traffic class). Closing it is {@code ibv_destroy_ah}: work requests posted
 * earlier still reach the destination; new ones naming it are refused.
 */
public final class AddressHandle implements AutoCloseable {
    private final ProtectionDomain pd;
    private final AddressVector vector;
    private final InetSocketAddress socketAddress;
    /** Gives the handle back to the device's count of address handles (max_ah). */
    private final Runnable uncount;
    private volatile boolean destroyed;

    private AddressHandle(ProtectionDomain pd, AddressVector vector, Runnable uncount) {
        this.pd = pd;
        this.vector = vector;
        this.uncount = uncount;
        this.socketAddress = new InetSocketAddress(vector.address(), vector.port());
    }

    /**
     * Creates a handle for {@code vector} in {@code pd} ({@code ibv_create_ah}); it holds a
     * reference on {@code pd} until closed. Applications call
     * {@link io.rnic.verbs.ProtectionDomain#createAddressHandle}.
     *
     * @param pd the protection domain the handle belongs to
     * @param vector the destination
     * @param uncount what gives the handle back to its device's count when it is closed
     * @return the new handle
     * @throws NullPointerException if either is null
     */
    static AddressHandle create(ProtectionDomain pd, AddressVector vector, Runnable uncount) {
        if (pd == null || vector == null) {
            throw new IllegalArgumentException("an address handle needs a protection domain and an address vector, got "
                    + pd + " and " + vector);
        }
        pd.retain();
        return new AddressHandle(pd, vector, uncount);
    }

    /**
     * Whether the handle was created in {@code domain}: the engine asks when a work request names
     * the handle, since a QP may use only handles of its own protection domain. It answers
     * without handing out the domain, whose reference counts are the engine's.
     *
     * @param domain the engine's record of a QP's protection domain
     * @return true if the handle belongs to it
     */
    public boolean createdIn(ProtectionDomain domain) {
        return pd == domain;
    }

    /**
     * Where it points.
     *
     * @return the address vector it was created from
     */
    public AddressVector vector() {
        return vector;
    }

    /**
     * The UDP destination its datagrams are sent to.
     *
     * @return the vector's IP address and UDP port
     */
    public InetSocketAddress socketAddress() {
        return socketAddress;
    }

    /**
     * Tells whether the handle was closed.
     *
     * @return true once {@link #close()} has run
     */
    public boolean isDestroyed() {
        return destroyed;
    }

    /** Destroys the handle ({@code ibv_destroy_ah}); repeating it does nothing. */
    /** The number of its protection domain, for the resource view. */
    int pdn() {
        return pd.id();
    }

    @Override
    public synchronized void close() {
        if (!destroyed) {
            destroyed = true;
            pd.release();
            uncount.run();
        }
    }

    @Override
    public String toString() {
        return "AH(" + vector + (destroyed ? ", destroyed)" : ")");
    }
}
