package io.rnic.core.hca;

import java.util.function.Function;

/**
 * Unsupported, for rnic's own tests and tools: the engine's HCA behind a device, which the API
 * does not expose. Nothing here is part of rnic's API; it may change or go without notice.
 *
 * <p>The device class installs the accessor when it is loaded (the JDK's "shared secrets"
 * pattern), so this package, below the API, names no API class.
 */
public final class HcaAccess {
    private static volatile Function<Object, Hca> accessor;

    private HcaAccess() {
    }

    /**
     * Installs the accessor; the first installation wins.
     *
     * @param a maps a device to its HCA
     */
    public static synchronized void install(Function<Object, Hca> a) {
        if (accessor == null) {
            accessor = a;
        }
    }

    /**
     * The HCA behind {@code device}, an {@code io.rnic.verbs.RdmaDevice}.
     *
     * @throws IllegalArgumentException if {@code device} is not a device
     */
    public static Hca of(Object device) {
        Function<Object, Hca> a = accessor;
        if (a == null) {
            throw new IllegalStateException("no device class has been loaded");
        }
        return a.apply(device);
    }
}
