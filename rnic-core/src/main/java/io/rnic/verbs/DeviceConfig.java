package io.rnic.verbs;

import io.rnic.core.hca.HcaLimits;
import io.rnic.core.memory.PKeyTable;
import java.util.random.RandomGenerator;

/**
 * How to open an {@link RdmaDevice}: its limits, P_Key table, ICRC policy and ECN. Immutable;
 * the {@code with*} methods return changed copies.
 *
 * @param limits     device and port limits
 * @param pkeys      the port's P_Key table (default: the single full-membership key 0xFFFF)
 * @param icrcPolicy how received ICRCs are treated
 * @param keyRandom  source of memory key bytes, or {@code null}: then the wire's seed on a seeded
 *                   simulated network (the same seed gives the same keys), a securely seeded source
 *                   on a real network
 * @param ecn        whether QPs send ECN-capable packets ({@link EcnMode#AUTO}: where the network
 *                   marks with ECN)
 * @param congestionControl the congestion control of the device's QPs and whether it sends CNPs
 *                   (default {@link CongestionControlConfig#none()}); a QP may choose another
 *                   scheme ({@link QpInitAttributes#withCongestionControl})
 */
public record DeviceConfig(HcaLimits limits, PKeyTable pkeys, IcrcPolicy icrcPolicy, RandomGenerator keyRandom,
                           EcnMode ecn, CongestionControlConfig congestionControl) {
    /**
     * Checks that the limits, P_Key table and ICRC policy are given.
     *
     * @param limits     device and port limits
     * @param pkeys      the port's P_Key table
     * @param icrcPolicy how received ICRCs are treated
     * @param keyRandom  source of memory key bytes, or {@code null} for the default source
     * @param ecn        whether QPs send ECN-capable packets
     * @param congestionControl the QPs' congestion control and the device's CNPs
     * @throws NullPointerException if {@code limits}, {@code pkeys}, {@code icrcPolicy}, {@code ecn}
     *     or {@code congestionControl} is null
     */
    public DeviceConfig {
        java.util.Objects.requireNonNull(limits, "limits");
        java.util.Objects.requireNonNull(pkeys, "pkeys");
        java.util.Objects.requireNonNull(icrcPolicy, "icrcPolicy");
        java.util.Objects.requireNonNull(ecn, "ecn");
        java.util.Objects.requireNonNull(congestionControl, "congestionControl");
    }

    /**
     * As the canonical constructor, without congestion control ({@link CongestionControlConfig#none()}).
     *
     * @param limits     device and port limits
     * @param pkeys      the port's P_Key table
     * @param icrcPolicy how received ICRCs are treated
     * @param keyRandom  source of memory key bytes, or {@code null} for the default source
     * @param ecn        whether QPs send ECN-capable packets
     * @throws NullPointerException if {@code limits}, {@code pkeys}, {@code icrcPolicy} or {@code ecn} is null
     */
    public DeviceConfig(HcaLimits limits, PKeyTable pkeys, IcrcPolicy icrcPolicy, RandomGenerator keyRandom,
                        EcnMode ecn) {
        this(limits, pkeys, icrcPolicy, keyRandom, ecn, CongestionControlConfig.none());
    }

    /**
     * The configuration {@link RdmaDevice#open(io.rnic.core.wire.Wire)} uses: rxe-like limits,
     * the single P_Key 0xFFFF, strict ICRC checking, memory keys from the wire's seed or a
     * securely seeded source, ECN where the network marks with it.
     *
     * @return the default configuration
     */
    public static DeviceConfig defaults() {
        return new DeviceConfig(HcaLimits.defaults(), new PKeyTable(), IcrcPolicy.STRICT, null, EcnMode.AUTO);
    }

    /**
     * Returns a copy with other device and port limits (queue sizes, MTUs, region sizes).
     *
     * @param l the limits
     * @return the changed copy
     */
    public DeviceConfig withLimits(HcaLimits l) {
        return new DeviceConfig(l, pkeys, icrcPolicy, keyRandom, ecn, congestionControl);
    }

    /**
     * Returns a copy with another P_Key table; QPs name a key by its index in it.
     *
     * @param p the port's P_Key table
     * @return the changed copy
     */
    public DeviceConfig withPkeys(PKeyTable p) {
        return new DeviceConfig(limits, p, icrcPolicy, keyRandom, ecn, congestionControl);
    }

    /**
     * Returns a copy with another treatment of received ICRCs: {@code ACCEPT_UNVERIFIABLE} for a
     * kernel rxe peer whose IPv4 identification the receiver cannot see.
     *
     * @param p the ICRC policy
     * @return the changed copy
     */
    public DeviceConfig withIcrcPolicy(IcrcPolicy p) {
        java.util.Objects.requireNonNull(p, "p");
        return new DeviceConfig(limits, pkeys, p, keyRandom, ecn, congestionControl);
    }

    /**
     * Returns a copy whose memory keys come from a generator seeded with {@code seed}, so a test
     * sees the same L_Keys and R_Keys every run, even on a real wire.
     *
     * @param seed the seed
     * @return the changed copy
     */
    public DeviceConfig withKeySeed(long seed) {
        return new DeviceConfig(limits, pkeys, icrcPolicy, new java.util.SplittableRandom(seed), ecn, congestionControl);
    }

    /**
     * Returns a copy whose QPs send ECN-capable packets always ({@link EcnMode#ON}), never
     * ({@link EcnMode#OFF}), or where the network marks with ECN ({@link EcnMode#AUTO}, the default).
     *
     * @param mode the ECN mode
     * @return the changed copy
     */
    public DeviceConfig withEcn(EcnMode mode) {
        java.util.Objects.requireNonNull(mode, "mode");
        return new DeviceConfig(limits, pkeys, icrcPolicy, keyRandom, mode, congestionControl);
    }

    /**
     * Returns a copy whose QPs run congestion control {@code c} and whose CNPs follow it.
     *
     * @param c the congestion control configuration
     * @return the changed copy
     */
    public DeviceConfig withCongestionControl(CongestionControlConfig c) {
        java.util.Objects.requireNonNull(c, "c");
        return new DeviceConfig(limits, pkeys, icrcPolicy, keyRandom, ecn, c);
    }

    /**
     * Returns a copy whose QPs run {@code scheme} with its defaults
     * ({@link CongestionControlConfig#of}): CNPs on when a scheme is set.
     *
     * @param scheme the scheme
     * @return the changed copy
     */
    public DeviceConfig withCongestionControl(CongestionControlScheme scheme) {
        return withCongestionControl(CongestionControlConfig.of(scheme));
    }
}
