package io.rnic.verbs;

import io.rnic.core.hca.HcaLimits;
import io.rnic.core.hca.IcrcPolicy;
import io.rnic.core.memory.PKeyTable;
import java.util.random.RandomGenerator;

/**
 * How to open an {@link RdmaDevice}: its limits, P_Key table and ICRC policy. Immutable; the
 * {@code with*} methods return changed copies.
 *
 * @param limits     device and port limits
 * @param pkeys      the port's P_Key table (default: the single full-membership key 0xFFFF)
 * @param icrcPolicy how received ICRCs are treated
 * @param keyRandom  source of memory key bytes, or {@code null}: then the wire's seed on a seeded
 *                   simulated network (the same seed gives the same keys), a securely seeded source
 *                   on a real network
 */
public record DeviceConfig(HcaLimits limits, PKeyTable pkeys, IcrcPolicy icrcPolicy, RandomGenerator keyRandom) {
    public DeviceConfig {
        java.util.Objects.requireNonNull(limits, "limits");
        java.util.Objects.requireNonNull(pkeys, "pkeys");
        java.util.Objects.requireNonNull(icrcPolicy, "icrcPolicy");
    }

    /** rxe-like limits, P_Key 0xFFFF, strict ICRC checking. */
    public static DeviceConfig defaults() {
        return new DeviceConfig(HcaLimits.defaults(), new PKeyTable(), IcrcPolicy.STRICT, null);
    }

    public DeviceConfig withLimits(HcaLimits l) {
        return new DeviceConfig(l, pkeys, icrcPolicy, keyRandom);
    }

    public DeviceConfig withPkeys(PKeyTable p) {
        return new DeviceConfig(limits, p, icrcPolicy, keyRandom);
    }

    public DeviceConfig withIcrcPolicy(IcrcPolicy p) {
        return new DeviceConfig(limits, pkeys, p, keyRandom);
    }

    /** Seeds memory key generation, for reproducible tests. */
    public DeviceConfig withKeySeed(long seed) {
        return new DeviceConfig(limits, pkeys, icrcPolicy, new java.util.SplittableRandom(seed));
    }
}
