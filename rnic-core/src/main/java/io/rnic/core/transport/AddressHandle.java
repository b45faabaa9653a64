package io.rnic.core.transport;

import io.rnic.core.memory.ProtectionDomain;
import io.rnic.core.qp.AddressVector;
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
    private volatile boolean destroyed;

    private AddressHandle(ProtectionDomain pd, AddressVector vector) {
        this.pd = pd;
        this.vector = vector;
        this.socketAddress = new InetSocketAddress(vector.address(), vector.port());
    }

    /**
     * Creates a handle for {@code vector} in {@code pd}.
     *
     * @throws IllegalArgumentException if either is null
     */
    public static AddressHandle create(ProtectionDomain pd, AddressVector vector) {
        if (pd == null || vector == null) {
            throw new IllegalArgumentException("an address handle needs a protection domain and an address vector, got "
                    + pd + " and " + vector);
        }
        pd.retain();
        return new AddressHandle(pd, vector);
    }

    /** The protection domain it was created in. */
    public ProtectionDomain pd() {
        return pd;
    }

    /** Where it points. */
    public AddressVector vector() {
        return vector;
    }

    InetSocketAddress socketAddress() {
        return socketAddress;
    }

    /** True once closed. */
    public boolean isDestroyed() {
        return destroyed;
    }

    /** Destroys the handle ({@code ibv_destroy_ah}); repeating it does nothing. */
    @Override
    public synchronized void close() {
        if (!destroyed) {
            destroyed = true;
            pd.release();
        }
    }

    @Override
    public String toString() {
        return "AH(" + vector + (destroyed ? ", destroyed)" : ")");
    }
}
