package io.rnic.verbs;

/**
 * A device's congestion control: the scheme its QPs' requesters run (the reaction point, RP) and
 * whether it answers congestion-marked packets with CNPs (the notification point, NP).
 *
 * <p>As on ConnectX NICs, where the NP and the RP are enabled separately, the two halves are
 * independent: a device sends CNPs for the CE-marked packets its QPs receive when
 * {@code notificationPoint} is on, whatever scheme its own QPs run; by default it is on exactly
 * when a scheme is set ({@link #of}). The CNPs go out without ECN capability (a switch never
 * marks them) with DSCP {@code cnpDscp}, 48 (CS6) by default, which the usual DSCP-to-priority
 * map puts on priority 6, above the RoCE data class.
 *
 * @param scheme              the RP's scheme, {@link CongestionControlScheme#NONE} for none
 * @param fallbackLineRateBps the line rate (the schemes' maximum rate), in bit/s, used where the
 *                            wire does not know its own; a simulated fabric's host link and a UDP
 *                            wire's pace give theirs
 * @param cnpIntervalNanos    the NP's interval N: at most one CNP per QP per N (0: one per marked packet)
 * @param notificationPoint   whether CE-marked packets are answered with CNPs
 * @param cnpDscp             the DSCP of the CNPs, 0..63
 */
public record CongestionControlConfig(CongestionControlScheme scheme, long fallbackLineRateBps, long cnpIntervalNanos,
                                      boolean notificationPoint, int cnpDscp) {
    /** 100 Gb/s: the line rate where the wire gives none. */
    public static final long DEFAULT_LINE_RATE_BPS = 100_000_000_000L;
    /** N = 50 µs, the DCQCN paper's CNP interval. */
    public static final long DEFAULT_CNP_INTERVAL_NANOS = 50_000;
    /** DSCP 48 (CS6), the CNP marking of ConnectX NICs' default ({@code cnp_dscp}). */
    public static final int DEFAULT_CNP_DSCP = 48;

    /**
     * Checks the values.
     *
     * @param scheme              the RP's scheme
     * @param fallbackLineRateBps the line rate where the wire gives none, positive
     * @param cnpIntervalNanos    the CNP interval, 0 or more
     * @param notificationPoint   whether CE-marked packets are answered with CNPs
     * @param cnpDscp             the CNPs' DSCP, 0..63
     * @throws NullPointerException if {@code scheme} is null
     * @throws IllegalArgumentException if a number is out of range
     */
    public CongestionControlConfig {
        java.util.Objects.requireNonNull(scheme, "scheme");
        if (fallbackLineRateBps <= 0) {
            throw new IllegalArgumentException("the line rate " + fallbackLineRateBps
                    + " bit/s must be positive: it is the congestion control's maximum rate");
        }
        if (cnpIntervalNanos < 0) {
            throw new IllegalArgumentException("the CNP interval " + cnpIntervalNanos + " ns must not be negative");
        }
        if (cnpDscp < 0 || cnpDscp > 63) {
            throw new IllegalArgumentException("the CNP DSCP " + cnpDscp + " is not 0..63");
        }
    }

    /**
     * No congestion control and no CNPs: the default, today's behaviour.
     *
     * @return the configuration
     */
    public static CongestionControlConfig none() {
        return of(CongestionControlScheme.NONE);
    }

    /**
     * {@code scheme} with the defaults: a line rate of 100 Gb/s where the wire gives none, CNPs
     * (on when a scheme is set) at most one per 50 µs per QP with DSCP 48.
     *
     * @param scheme the scheme
     * @return the configuration
     */
    public static CongestionControlConfig of(CongestionControlScheme scheme) {
        java.util.Objects.requireNonNull(scheme, "scheme");
        return new CongestionControlConfig(scheme, DEFAULT_LINE_RATE_BPS, DEFAULT_CNP_INTERVAL_NANOS,
                scheme != CongestionControlScheme.NONE, DEFAULT_CNP_DSCP);
    }

    /**
     * Returns a copy with another line rate for wires that do not give theirs.
     *
     * @param bps the rate in bit/s, positive
     * @return the changed copy
     */
    public CongestionControlConfig withFallbackLineRate(long bps) {
        return new CongestionControlConfig(scheme, bps, cnpIntervalNanos, notificationPoint, cnpDscp);
    }

    /**
     * Returns a copy with another CNP interval N.
     *
     * @param nanos N in nanoseconds, 0 or more
     * @return the changed copy
     */
    public CongestionControlConfig withCnpInterval(long nanos) {
        return new CongestionControlConfig(scheme, fallbackLineRateBps, nanos, notificationPoint, cnpDscp);
    }

    /**
     * Returns a copy with the notification point on or off.
     *
     * @param on whether CE-marked packets are answered with CNPs
     * @return the changed copy
     */
    public CongestionControlConfig withNotificationPoint(boolean on) {
        return new CongestionControlConfig(scheme, fallbackLineRateBps, cnpIntervalNanos, on, cnpDscp);
    }

    /**
     * Returns a copy whose CNPs carry another DSCP.
     *
     * @param dscp the DSCP, 0..63
     * @return the changed copy
     */
    public CongestionControlConfig withCnpDscp(int dscp) {
        return new CongestionControlConfig(scheme, fallbackLineRateBps, cnpIntervalNanos, notificationPoint, dscp);
    }
}
