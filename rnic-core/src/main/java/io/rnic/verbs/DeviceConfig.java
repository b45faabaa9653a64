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
 * @param pitfallWarningsOff the {@link Pitfall} warnings not logged (they are still counted)
 * @param strictMode whether the device makes at random the choices the specification leaves open
 *                   ({@link #strict()})
 * @param congestionControl the congestion control of the device's QPs and whether it sends CNPs
 *                   (default {@link CongestionControlConfig#none()}); a QP may choose another
 *                   scheme ({@link QpInitAttributes#withCongestionControl})
 */
public record DeviceConfig(HcaLimits limits, PKeyTable pkeys, IcrcPolicy icrcPolicy, RandomGenerator keyRandom,
                           EcnMode ecn, java.util.Set<Pitfall> pitfallWarningsOff, boolean strictMode,
                           CongestionControlConfig congestionControl) {
    /**
     * Checks that the limits, P_Key table and ICRC policy are given.
     *
     * @param limits     device and port limits
     * @param pkeys      the port's P_Key table
     * @param icrcPolicy how received ICRCs are treated
     * @param keyRandom  source of memory key bytes, or {@code null} for the default source
     * @param ecn        whether QPs send ECN-capable packets
     * @param pitfallWarningsOff the pitfall warnings not logged
     * @param strictMode whether the device makes the open choices at random
     * @param congestionControl the QPs' congestion control and the device's CNPs
     * @throws NullPointerException if {@code limits}, {@code pkeys}, {@code icrcPolicy}, {@code ecn},
     *     {@code pitfallWarningsOff} or {@code congestionControl} is null
     */
    public DeviceConfig {
        java.util.Objects.requireNonNull(limits, "limits");
        java.util.Objects.requireNonNull(pkeys, "pkeys");
        java.util.Objects.requireNonNull(icrcPolicy, "icrcPolicy");
        java.util.Objects.requireNonNull(ecn, "ecn");
        pitfallWarningsOff = java.util.Set.copyOf(java.util.Objects.requireNonNull(pitfallWarningsOff, "pitfallWarningsOff"));
        java.util.Objects.requireNonNull(congestionControl, "congestionControl");
    }

    /**
     * The configuration {@link RdmaDevice#open(io.rnic.core.wire.Wire)} uses: rxe-like limits,
     * the single P_Key 0xFFFF, strict ICRC checking, memory keys from the wire's seed or a
     * securely seeded source, ECN where the network marks with it.
     *
     * @return the default configuration
     */
    public static DeviceConfig defaults() {
        return new DeviceConfig(HcaLimits.defaults(), new PKeyTable(), IcrcPolicy.STRICT, null, EcnMode.AUTO, java.util.Set.of(), false,
                CongestionControlConfig.none());
    }

    /**
     * Returns a copy with other device and port limits (queue sizes, MTUs, region sizes).
     *
     * @param l the limits
     * @return the changed copy
     */
    public DeviceConfig withLimits(HcaLimits l) {
        return new DeviceConfig(l, pkeys, icrcPolicy, keyRandom, ecn, pitfallWarningsOff, strictMode, congestionControl);
    }

    /**
     * Returns a copy with another P_Key table; QPs name a key by its index in it.
     *
     * @param p the port's P_Key table
     * @return the changed copy
     */
    public DeviceConfig withPkeys(PKeyTable p) {
        return new DeviceConfig(limits, p, icrcPolicy, keyRandom, ecn, pitfallWarningsOff, strictMode, congestionControl);
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
        return new DeviceConfig(limits, pkeys, p, keyRandom, ecn, pitfallWarningsOff, strictMode, congestionControl);
    }

    /**
     * Returns a copy whose memory keys come from a generator seeded with {@code seed}, so a test
     * sees the same L_Keys and R_Keys every run, even on a real wire.
     *
     * @param seed the seed
     * @return the changed copy
     */
    public DeviceConfig withKeySeed(long seed) {
        return new DeviceConfig(limits, pkeys, icrcPolicy, new java.util.SplittableRandom(seed), ecn, pitfallWarningsOff, strictMode, congestionControl);
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
        return new DeviceConfig(limits, pkeys, icrcPolicy, keyRandom, mode, pitfallWarningsOff, strictMode, congestionControl);
    }

    /**
     * Returns a copy that does not log the warnings {@code codes} ({@link Pitfall}); the device still
     * counts them ({@link RdmaDevice#pitfallCount}). With no argument, every warning is logged again.
     *
     * @param codes the warnings to silence
     * @return the changed copy
     */
    public DeviceConfig withPitfallWarningsOff(Pitfall... codes) {
        java.util.Objects.requireNonNull(codes, "codes");
        return new DeviceConfig(limits, pkeys, icrcPolicy, keyRandom, ecn, java.util.Set.copyOf(java.util.Arrays.asList(codes)), strictMode, congestionControl);
    }

    /**
     * Returns a copy in strict mode: where the specification allows several behaviours and an
     * application must not depend on one, the device chooses at random, so that a test that
     * passes in strict mode does not rely on rnic's (or rxe's) particular choice:
     * <ul>
     *   <li>a shared receive queue hands out any posted WQE, not the oldest (IBA 10.8.3.2);</li>
     *   <li>an error completion's opcode, byte_len, imm_data, src_qp and wc_flags hold random
     *       values (only wr_id, status, qp_num and vendor_err are valid, {@code ibv_poll_cq(3)});</li>
     *   <li>QP numbers are drawn at random from the free ones.</li>
     * </ul>
     * The memory keys' variant byte is random on every registration in every mode. On a seeded
     * simulated network the draws come from the network's seed, so a failure replays.
     *
     * @return the changed copy
     */
    public DeviceConfig strict() {
        return new DeviceConfig(limits, pkeys, icrcPolicy, keyRandom, ecn, pitfallWarningsOff, true, congestionControl);
    }

    /**
     * Returns a copy whose QPs run congestion control {@code c} and whose CNPs follow it.
     *
     * @param c the congestion control configuration
     * @return the changed copy
     */
    public DeviceConfig withCongestionControl(CongestionControlConfig c) {
        java.util.Objects.requireNonNull(c, "c");
        return new DeviceConfig(limits, pkeys, icrcPolicy, keyRandom, ecn, pitfallWarningsOff, strictMode, c);
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
